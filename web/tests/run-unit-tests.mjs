// Bundles each tests/*.test.ts for node with esbuild and runs them with node's test runner.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', '.build-tmp', 'tests');
rmSync(out, { recursive: true, force: true });
const entries = readdirSync(here).filter((f) => f.endsWith('.test.ts')).map((f) => join(here, f));
await build({ entryPoints: entries, bundle: true, platform: 'node', format: 'esm', outdir: out, outExtension: { '.js': '.mjs' }, logLevel: 'warning' });
const files = readdirSync(out).filter((f) => f.endsWith('.test.mjs')).map((f) => join(out, f));
const result = spawnSync(process.execPath, ['--test', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
