#!/usr/bin/env bash
# Builds the images docker-compose.yml runs, locally (no container registry is reachable):
#
#   viva-runtime:<hash>  a debootstrapped Debian rootfs with Python, Redis, nginx, bubblewrap
#                        and the C/C++ toolchain (Redis and the proxy run it as it is)
#   viva-deps:<hash>     runtime + /opt/viva/venv with Viva's Python dependencies
#   viva-app:<hash>      deps + the source tree (app processes and judge workers)
#
# Each tag is a content hash of its inputs, so an unchanged tree never rebuilds: the heavy
# steps (debootstrap ≈ 2 min, pip ≈ 2 min) happen once per package list / pyproject.toml;
# the code layer is a plain COPY (seconds). Every image is also tagged `:current`, which is
# what docker-compose.yml names.
#
#   scripts/setup-compose.sh          build what is missing
#   VIVA_RUNTIME_EXTRA="openjdk-17-jdk-headless golang-go nodejs" scripts/setup-compose.sh
#                                     also judge Java, Go and JavaScript in the workers
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
LOG_DIR="${VIVA_JUDGE_LOG_DIR:-$ROOT/var/log}"
mkdir -p "$LOG_DIR"
SUITE=bookworm
PACKAGES_RUNTIME="python3,python3-venv,redis-server,nginx,bubblewrap,ca-certificates,gcc,g++,libc6-dev"
for p in ${VIVA_RUNTIME_EXTRA:-}; do PACKAGES_RUNTIME="$PACKAGES_RUNTIME,$p"; done

say() { printf '[setup-compose] %s\n' "$*"; }
# A failed build does not stop `make setup`: the deployment test (tests/deploy) runs this
# script again and fails, quoting why, without the "images ready" line.
fail() { say "$*"; say "compose images not built"; exit 0; }
docker info >/dev/null 2>&1 || { say "no Docker engine answers: compose images skipped"; exit 0; }

# --- runtime rootfs ----------------------------------------------------------------------------
H_RUNTIME=$(printf '%s|%s|%s' "$SUITE" "$PACKAGES_RUNTIME" "v1" | sha256sum | cut -c1-12)
if ! docker image inspect "viva-runtime:$H_RUNTIME" >/dev/null 2>&1; then
  MIRROR=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
             /etc/apt/sources.list.d/*.list 2>/dev/null | grep -E '^(URIs:|deb )' \
             | grep -oE 'https?://[^ ]+' | grep -v security | head -n1)
  MIRROR=${MIRROR:-http://deb.debian.org/debian}
  command -v debootstrap >/dev/null || fail "debootstrap missing (scripts/setup-judge.sh installs it)"
  WORK=$(mktemp -d /var/tmp/viva-runtime-rootfs.XXXXXX)
  start=$(date +%s)
  say "building viva-runtime:$H_RUNTIME (log: $LOG_DIR/debootstrap-runtime.log)"
  if ! debootstrap --variant=minbase --include="$PACKAGES_RUNTIME" "$SUITE" "$WORK/rootfs" \
        "$MIRROR" >"$LOG_DIR/debootstrap-runtime.log" 2>&1; then
    tail -n 20 "$LOG_DIR/debootstrap-runtime.log"; rm -rf "$WORK"; fail "debootstrap failed"
  fi
  rm -rf "$WORK"/rootfs/var/cache/apt/archives/*.deb "$WORK"/rootfs/var/lib/apt/lists/* \
         "$WORK"/rootfs/usr/share/doc "$WORK"/rootfs/usr/share/man "$WORK"/rootfs/usr/share/locale
  tar -C "$WORK/rootfs" -c . | docker import --change "LABEL org.viva.inputs=$H_RUNTIME" \
      - "viva-runtime:$H_RUNTIME" >/dev/null || { rm -rf "$WORK"; fail "docker import failed"; }
  rm -rf "$WORK"
  say "built viva-runtime:$H_RUNTIME in $(( $(date +%s) - start )) s"
fi
docker tag "viva-runtime:$H_RUNTIME" viva-runtime:current

# --- Python dependencies -----------------------------------------------------------------------
# The runtime dependencies from pyproject.toml (not the dev extras), plus the two wheels that
# make installs with --no-deps (Smart Turn's model inside pipecat-ai).
DEPS=$(python3 - "$ROOT/pyproject.toml" <<'EOF'
import sys, tomllib
print("\n".join(tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]))
EOF
)
NODEPS="pipecat-ai==1.14.0"
H_DEPS=$(printf '%s|%s|%s|%s' "$H_RUNTIME" "$DEPS" "$NODEPS" "v1" | sha256sum | cut -c1-12)
if ! docker image inspect "viva-deps:$H_DEPS" >/dev/null 2>&1; then
  start=$(date +%s)
  name="viva-deps-build-$$"
  say "building viva-deps:$H_DEPS (log: $LOG_DIR/compose-deps.log)"
  printf '%s\n' "$DEPS" >"$LOG_DIR/compose-requirements.txt"
  # pip runs inside the runtime image (its own Python) with the host's network view and pip
  # configuration (an index mirror, a CA bundle), read-only. `docker run` + `commit` rather
  # than `docker build` so those host files are mounted, never baked into the image.
  mounts=(-v "$LOG_DIR/compose-requirements.txt:/tmp/requirements.txt:ro")
  for f in /etc/pip.conf /etc/ssl/certs/ca-certificates.crt /opt/wheels /opt/pypi /opt/pypi-more; do
    [ -e "$f" ] && mounts+=(-v "$f:$f:ro")
  done
  if ! docker run --name "$name" --network host "${mounts[@]}" -e PIP_DISABLE_PIP_VERSION_CHECK=1 \
        "viva-runtime:$H_RUNTIME" sh -c "python3 -m venv /opt/viva/venv \
          && /opt/viva/venv/bin/pip install -q --no-cache-dir -r /tmp/requirements.txt \
          && /opt/viva/venv/bin/pip install -q --no-cache-dir --no-deps $NODEPS" \
        >"$LOG_DIR/compose-deps.log" 2>&1; then
    tail -n 20 "$LOG_DIR/compose-deps.log"; docker rm -f "$name" >/dev/null; fail "pip failed"
  fi
  docker commit --change "LABEL org.viva.inputs=$H_DEPS" "$name" "viva-deps:$H_DEPS" >/dev/null
  docker rm -f "$name" >/dev/null
  say "built viva-deps:$H_DEPS in $(( $(date +%s) - start )) s"
fi
docker tag "viva-deps:$H_DEPS" viva-deps:current

# --- the source tree -----------------------------------------------------------------------------
# Tracked files of the Python packages and the bank, plus the web build when there is one.
CTX=$(mktemp -d /var/tmp/viva-app-context.XXXXXX)
trap 'rm -rf "$CTX"' EXIT
# Every top-level Python package (a folder with __init__.py), so a new one is never left out.
PKGS=$(cd "$ROOT" && git ls-files -co --exclude-standard -- '*/__init__.py' \
       | awk -F/ 'NF == 2 && $1 != "tests" {print $1}' | sort -u)
# shellcheck disable=SC2086  # PKGS is a list of folder names
(cd "$ROOT" && git ls-files -co --exclude-standard -- $PKGS \
   bank deploy/worker-entrypoint.sh pyproject.toml | while read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done \
   | tar -c -T - | tar -C "$CTX" -x)
[ -d "$ROOT/web/dist" ] && mkdir -p "$CTX/web" && cp -r "$ROOT/web/dist" "$CTX/web/dist"
cp "$ROOT/deploy/Dockerfile" "$CTX/Dockerfile"
H_APP=$( (echo "$H_DEPS"; cd "$CTX" && find . -type f -print0 | sort -z | xargs -0 sha256sum) \
         | sha256sum | cut -c1-12)
if ! docker image inspect "viva-app:$H_APP" >/dev/null 2>&1; then
  start=$(date +%s)
  docker build -q --build-arg "DEPS=viva-deps:$H_DEPS" --label "org.viva.inputs=$H_APP" \
    -t "viva-app:$H_APP" "$CTX" >"$LOG_DIR/compose-app.log" 2>&1 \
    || { tail -n 20 "$LOG_DIR/compose-app.log"; fail "docker build failed"; }
  say "built viva-app:$H_APP in $(( $(date +%s) - start )) s"
fi
docker tag "viva-app:$H_APP" viva-app:current
# Each source change makes a new app layer (~30 MB): drop the older ones that no container
# uses (`rmi` without -f refuses an image a container still runs from).
docker images viva-app --format '{{.Tag}}' | grep -v -x -e current -e "$H_APP" \
  | while read -r old; do docker rmi "viva-app:$old" >/dev/null 2>&1 || true; done
say "images ready: viva-runtime:$H_RUNTIME viva-deps:$H_DEPS viva-app:$H_APP"
