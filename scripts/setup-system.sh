#!/usr/bin/env bash
# Installs the Debian packages Viva needs when they are missing (root only; apt-get update first).
set -euo pipefail
need=()
command -v redis-server >/dev/null || need+=(redis-server)
command -v espeak-ng >/dev/null || need+=(espeak-ng)
command -v sox >/dev/null || need+=(sox)
# Browser tests drive Debian's Chromium (never a downloaded browser).
command -v chromium >/dev/null || need+=(chromium)
command -v python3 >/dev/null || need+=(python3 python3-venv)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
# docker-compose.yml's test (tests/deploy): Debian 12 packages compose v1 (no v2 plugin).
command -v docker-compose >/dev/null || docker compose version >/dev/null 2>&1 \
  || need+=(docker-compose)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "missing system packages: ${need[*]} — run as root or: sudo apt-get install ${need[*]}" >&2
    exit 1
  fi
  echo "installing system packages: ${need[*]}"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"
fi
