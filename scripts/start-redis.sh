#!/usr/bin/env bash
# `make run`'s own Redis: a private server with AOF under $VIVA_DATA_DIR/redis, on a free
# loopback port, started by this script. It never adopts a server it did not start: a server
# that happens to answer on 6379 (someone else's, with their data and their config) is left
# alone. The one it started is reused on the next run only when it is provably ours: the pid
# in our pidfile is alive and is the server on our recorded port, and that server's working
# directory is our data directory.
#
# Prints the REDIS_URL to use as its last line of stdout; everything else goes to stderr.
#   REDIS_URL=$(bash scripts/start-redis.sh)
# VIVA_REDIS_PORT pins the port (it must then be free, or ours).
set -euo pipefail
data_dir=${VIVA_DATA_DIR:-./var}
mkdir -p "$data_dir/redis"
dir=$(cd "$data_dir/redis" && pwd -P)
pidfile="$dir/redis.pid"
portfile="$dir/port"
say() { printf '[start-redis] %s\n' "$*" >&2; }

ours_on() {  # ours_on PORT: the server answering on PORT is the one this script started
  local port=$1 pid served_pid served_dir
  [ -s "$pidfile" ] || return 1
  pid=$(cat "$pidfile")
  kill -0 "$pid" 2>/dev/null || return 1
  served_pid=$(redis-cli -p "$port" INFO server 2>/dev/null | tr -d '\r' \
               | awk -F: '$1 == "process_id" {print $2}')
  served_dir=$(redis-cli -p "$port" CONFIG GET dir 2>/dev/null | tr -d '\r' | sed -n 2p)
  [ "$served_pid" = "$pid" ] && [ "$served_dir" = "$dir" ]
}

answers_on() { redis-cli -p "$1" ping >/dev/null 2>&1; }

if [ -s "$portfile" ] && ours_on "$(cat "$portfile")"; then
  port=$(cat "$portfile")
  say "reusing the Redis this script started on 127.0.0.1:$port (AOF in $dir)"
  echo "redis://127.0.0.1:$port/0"
  exit 0
fi

if [ -n "${VIVA_REDIS_PORT:-}" ]; then
  port=$VIVA_REDIS_PORT
  if answers_on "$port"; then
    say "a Redis this script did not start answers on 127.0.0.1:$port: not using it."
    say "Unset VIVA_REDIS_PORT (a free port is chosen), or set REDIS_URL to use that server."
    exit 1
  fi
else
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fi

rm -f "$pidfile"
redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" --appendonly yes --daemonize yes \
  --pidfile "$pidfile" --logfile "$dir/redis.log"
for _ in $(seq 100); do
  if [ -s "$pidfile" ] && ours_on "$port"; then
    echo "$port" >"$portfile"
    say "started Redis on 127.0.0.1:$port (AOF in $dir)"
    echo "redis://127.0.0.1:$port/0"
    exit 0
  fi
  sleep 0.1
done
say "Redis did not start on 127.0.0.1:$port: see $dir/redis.log"
exit 1
