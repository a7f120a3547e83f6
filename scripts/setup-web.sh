#!/usr/bin/env bash
# Builds the browser app into web/dist. Idempotent: installs npm packages only when
# package-lock.json changed since the last install, rebuilds only when a source is newer
# than the last build. Uses the machine's node/npm (node >= 18); fetches only from npm.
set -euo pipefail
cd "$(dirname "$0")/../web"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm
  else
    echo "setup-web: node and npm are required (apt-get install nodejs npm)" >&2
    exit 1
  fi
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 18 ]; then
  echo "setup-web: node >= 18 is required, found $(node --version)" >&2
  exit 1
fi

stamp=node_modules/.package-lock.json
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ ! -x node_modules/.bin/esbuild ]; then
  echo "setup-web: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi

# The event types are generated from the server's models (core/events.py). With the venv
# present they are regenerated here (written only when they changed, so an unchanged build
# stays up to date); without it the committed file is used. tests/core/test_events.py fails
# when the committed file and the models differ.
if [ -x ../.venv/bin/python ]; then
  generated=$(mktemp)
  if (cd .. && .venv/bin/python -m server.cli schema events --typescript) > "$generated"; then
    if ! cmp -s "$generated" src/shared/events.gen.ts; then
      echo "setup-web: regenerated src/shared/events.gen.ts from core/events.py"
      cp "$generated" src/shared/events.gen.ts
    fi
  fi
  rm -f "$generated"
fi

built=dist/build-info.json
if [ ! -f "$built" ] || [ -n "$(find src build.mjs package-lock.json -newer "$built" -print -quit)" ]; then
  echo "setup-web: building web/dist"
  node build.mjs
else
  echo "setup-web: web/dist is up to date"
fi
