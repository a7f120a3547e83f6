#!/usr/bin/env bash
# Idempotent set-up for the code judge: toolchains + bubblewrap on the host, a Docker engine,
# and the judge image (built locally from a debootstrap rootfs: no registry is reachable).
#
#   scripts/setup-judge.sh            everything (skips what is already there)
#   scripts/setup-judge.sh --no-docker   host toolchains and bubblewrap only
#
# The image is tagged by a content hash of its inputs (this script's package list and the
# Debian suite), so an unchanged set-up never rebuilds it.
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
LOG_DIR="${VIVA_JUDGE_LOG_DIR:-$ROOT/var/log}"
mkdir -p "$LOG_DIR"
SUITE=bookworm
# Toolchains inside the image and on the host (bwrap runs the host's toolchains).
PACKAGES_HOST=(bubblewrap gcc g++ libc6-dev openjdk-17-jdk-headless golang-go nodejs docker.io debootstrap python3)
PACKAGES_IMAGE="python3,gcc,g++,libc6-dev,openjdk-17-jdk-headless,golang-go,nodejs"
IMAGE_REPO=viva-judge
WANT_DOCKER=1
[ "${1:-}" = "--no-docker" ] && WANT_DOCKER=0

say() { printf '[setup-judge] %s\n' "$*"; }

# --- host packages ---------------------------------------------------------------------------
missing=()
for p in "${PACKAGES_HOST[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    say "missing packages (${missing[*]}); run as root to install them"
  else
    say "installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
      || say "apt-get install failed; the judge will refuse languages whose toolchain is absent"
  fi
fi

[ "$WANT_DOCKER" -eq 1 ] || { say "skipping Docker (--no-docker)"; exit 0; }

# --- Docker engine ---------------------------------------------------------------------------
engine_up() { docker info >/dev/null 2>&1; }
if ! engine_up; then
  if ! command -v dockerd >/dev/null; then
    say "dockerd is not installed: Docker judge tests will be skipped"; exit 0
  fi
  if [ "$(id -u)" -ne 0 ]; then
    say "no Docker engine answers and we are not root: Docker judge tests will be skipped"; exit 0
  fi
  say "starting dockerd (log: $LOG_DIR/dockerd.log)"
  nohup dockerd --storage-driver=overlay2 >"$LOG_DIR/dockerd.log" 2>&1 &
  for _ in $(seq 1 60); do engine_up && break; sleep 0.5; done
  if ! engine_up; then
    say "dockerd did not come up; last log lines:"; tail -n 15 "$LOG_DIR/dockerd.log" || true
    say "Docker judge tests will be skipped"; exit 0
  fi
fi
say "Docker engine answers"

# --- judge image -----------------------------------------------------------------------------
HASH=$(printf '%s|%s|%s' "$SUITE" "$PACKAGES_IMAGE" "v1" | sha256sum | cut -c1-12)
TAG="$IMAGE_REPO:$HASH"
if docker image inspect "$TAG" >/dev/null 2>&1; then
  say "image $TAG present"
  docker tag "$TAG" "$IMAGE_REPO:current" >/dev/null 2>&1
  exit 0
fi

# The first Debian (not security) mirror apt itself uses: `URIs:` in deb822 files, `deb` lines.
MIRROR=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list \
           2>/dev/null | grep -E '^(URIs:|deb )' | grep -oE 'https?://[^ ]+' \
           | grep -v security | head -n1)
MIRROR=${MIRROR:-http://deb.debian.org/debian}
WORK=$(mktemp -d /var/tmp/viva-judge-rootfs.XXXXXX)
ROOTFS="$WORK/rootfs"
start=$(date +%s)
say "building $TAG from $MIRROR (debootstrap log: $LOG_DIR/debootstrap.log)"
if ! debootstrap --variant=minbase --include="$PACKAGES_IMAGE" "$SUITE" "$ROOTFS" "$MIRROR" \
      >"$LOG_DIR/debootstrap.log" 2>&1; then
  say "debootstrap failed; last log lines:"; tail -n 20 "$LOG_DIR/debootstrap.log"
  rm -rf "$WORK"; say "Docker judge tests will be skipped"; exit 0
fi
# Trim what a judge never needs; keep the toolchains.
rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/* \
       "$ROOTFS"/usr/share/doc "$ROOTFS"/usr/share/man "$ROOTFS"/usr/share/locale
mkdir -p "$ROOTFS/viva"
tar -C "$ROOTFS" -c . | docker import \
  --change "LABEL org.viva.judge.inputs=$HASH" - "$TAG" >/dev/null \
  || { say "docker import failed"; rm -rf "$WORK"; exit 0; }
docker tag "$TAG" "$IMAGE_REPO:current"
rm -rf "$WORK"
say "built $TAG in $(( $(date +%s) - start )) s"
