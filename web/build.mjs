// Builds the browser app into dist/: one HTML shell for every page, the app's ES modules
// (split so the lobby never loads Monaco), Monaco's editor worker and the microphone
// AudioWorklet as standalone scripts. Nothing is fetched from a CDN at run time.
import { build } from 'esbuild';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const dist = join(root, 'dist');
const assets = join(dist, 'assets');
const watchless = { absWorkingDir: root, logLevel: 'warning', minify: true, legalComments: 'linked', target: 'es2022' };

await rm(dist, { recursive: true, force: true });
await mkdir(assets, { recursive: true });

// The app: ESM with code splitting; pages are dynamic imports of main.js.
const app = await build({
  ...watchless,
  entryPoints: { main: join(root, 'src/main.ts') },
  bundle: true,
  splitting: true,
  format: 'esm',
  outdir: assets,
  chunkNames: 'chunks/[name]-[hash]',
  assetNames: 'files/[name]-[hash]',
  loader: { '.ttf': 'file' },
  metafile: true,
});

// Workers run in their own global scope, so each is one self-contained file.
await build({
  ...watchless,
  entryPoints: {
    'editor.worker': join(root, 'node_modules/monaco-editor/esm/vs/editor/editor.worker.js'),
    'capture-worklet': join(root, 'src/audio/capture-worklet.ts'),
  },
  bundle: true,
  format: 'esm',
  outdir: assets,
});

// esbuild also writes per-chunk CSS copies, but main.css already holds every rule (including
// the lazily loaded editor's): drop the copies so nothing is shipped twice.
for (const file of Object.keys(app.metafile.outputs)) {
  if (file.endsWith('.css') && !file.endsWith('main.css')) await rm(join(root, file), { force: true });
}

const shell = await readFile(join(root, 'src/index.html'), 'utf8');
await writeFile(join(dist, 'index.html'), shell);

const bytes = Object.entries(app.metafile.outputs)
  .filter(([file]) => !file.endsWith('.css') || file.endsWith('main.css'))
  .reduce((n, [, o]) => n + o.bytes, 0);
await writeFile(
  join(dist, 'build-info.json'),
  JSON.stringify({ built_at: new Date().toISOString(), app_bytes: bytes }, null, 2) + '\n',
);
console.log(`web: built dist/ (${(bytes / 1e6).toFixed(2)} MB of app assets)`);
