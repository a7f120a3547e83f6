#!/usr/bin/env bash
# Starts a private Redis with AOF under $VIVA_DATA_DIR/redis unless one answers on the port.
set -euo pipefail
data_dir=${VIVA_DATA_DIR:-./var}
port=${VIVA_REDIS_PORT:-6379}
mkdir -p "$data_dir/redis"
if redis-cli -p "$port" ping >/dev/null 2>&1; then
  echo "redis already answering on 127.0.0.1:$port"
  exit 0
fi
redis-server --port "$port" --bind 127.0.0.1 --dir "$(cd "$data_dir/redis" && pwd)" \
  --appendonly yes --daemonize yes --logfile "$(cd "$data_dir/redis" && pwd)/redis.log"
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
echo "redis started on 127.0.0.1:$port (AOF in $data_dir/redis)"
