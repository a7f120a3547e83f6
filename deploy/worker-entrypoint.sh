#!/bin/sh
# A judge worker in a container. bubblewrap mounts a fresh /proc for each sandbox, which the
# kernel refuses while Docker's masks (/proc/kcore, /proc/keys, ...) sit over the container's
# /proc. This container has CAP_SYS_ADMIN for bwrap anyway: lift the masks in its own mount
# namespace (what `docker run --security-opt systempaths=unconfined` does; compose files
# cannot say that), then run the worker. Candidate code never sees this /proc: bwrap gives
# it a new one in a new pid namespace.
set -eu
for m in $(awk '$5 ~ "^/proc/" {print $5}' /proc/self/mountinfo | sort -r); do
  umount "$m"
done
# That was all CAP_SYS_ADMIN was for: the worker (which runs candidate code, through bwrap in
# a user namespace of its own) runs without it, and can never get it back.
exec setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin --no-new-privs \
  python -m server.cli worker "$@"
