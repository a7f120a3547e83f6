"""The in-container runner: compiles and runs every case of one submission in one container.

Standard library only: it runs on the image's /usr/bin/python3, mounted read-only at
/viva/runner.py. It runs as container root holding only CAP_SETUID/CAP_SETGID, so it can drop
to unprivileged uids but has no power over files. Compilation runs as uid 65532 in /sandbox/w,
every case as uid 65533 (which can read but not change /sandbox/w and cannot signal the runner).
After each process, a helper with that uid sends kill(-1): every leftover process dies.

Reads /viva/job/manifest.json (root-only: 0700 directory); writes one JSON line per event to
stdout: {"event": "compile", ...record} then {"event": "case", "id", ...record}.
"""

from __future__ import annotations

import base64
import json
import os
import resource
import selectors
import signal
import sys
import time
from typing import Any

COMPILE_UID = 65532
RUN_UID = 65533
WORK = "/sandbox/w"


def emit(event: dict) -> None:
    sys.stdout.write(json.dumps(event, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def oom_kills() -> int:
    for path in ("/sys/fs/cgroup/memory/memory.oom_control", "/sys/fs/cgroup/memory.events"):
        try:
            with open(path) as handle:
                for line in handle:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except OSError:
            continue
    return 0


def as_user(uid: int, action) -> None:
    """Run ``action`` in a forked child that has dropped to ``uid``; wait for it."""
    for _ in range(200):  # a fork storm may hold every pid for a moment
        try:
            pid = os.fork()
            break
        except BlockingIOError:
            time.sleep(0.01)
    else:
        raise RuntimeError("cannot fork a helper: the container's pids are exhausted")
    if pid == 0:
        code = 0
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            action()
        except BaseException:
            code = 1
        os._exit(code)
    os.waitpid(pid, 0)


def kill_everything_of(uid: int) -> None:
    def action() -> None:
        for _ in range(20):
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                return
            time.sleep(0.002)
    as_user(uid, action)


def run(argv: list[str], uid: int, env: dict, stdin: bytes, limits: dict,
        tmp: str) -> dict:
    cpu_s = max(1, (limits["cpu_ms"] + 999) // 1000)
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    oom_before = oom_kills()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(in_r, 0)
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            os.closerange(3, 1 << 16)
            os.setsid()
            with open("/proc/self/oom_score_adj", "w") as handle:
                handle.write("1000")  # under memory pressure the candidate dies, not the runner
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file_bytes"],) * 2)
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
            # Per-uid process cap below the container's pids limit: the runner keeps room
            # to fork its killer helper during a fork storm.
            resource.setrlimit(resource.RLIMIT_NPROC, (limits["pids"], limits["pids"]))
            resource.setrlimit(resource.RLIMIT_STACK, (limits["stack_bytes"],) * 2)
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            os.makedirs(tmp, mode=0o700, exist_ok=True)
            os.chdir(WORK)
            os.execve(argv[0], argv, {**env, "HOME": tmp, "TMPDIR": tmp})
        except BaseException as exc:  # exec failed: report on stderr
            os.write(2, f"runner: cannot start {argv[0]}: {exc}\n".encode())
        os._exit(127)
    for fd in (in_r, out_w, err_w):
        os.close(fd)
    record: dict[str, Any] = {"exit_code": None, "signal": None, "timed_out": False,
                              "oom_killed": False, "output_exceeded": False, "error": None}
    out = bytearray()
    err = bytearray()
    sel = selectors.DefaultSelector()
    os.set_blocking(in_w, False)
    if stdin:
        sel.register(in_w, selectors.EVENT_WRITE)
    else:
        os.close(in_w)
        in_w = -1  # the number may be reused by the pidfd below
    sel.register(out_r, selectors.EVENT_READ)
    sel.register(err_r, selectors.EVENT_READ)
    pidfd = os.pidfd_open(pid)
    sel.register(pidfd, selectors.EVENT_READ)
    offset = 0
    deadline = started + limits["wall_ms"] / 1000
    exited = False
    status = 0
    usage = None
    open_pipes = 2
    while open_pipes or not exited:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            if not exited:
                record["timed_out"] = True
            kill_everything_of(uid)
            deadline = time.monotonic() + 5  # leftovers are dead: drain what remains
            if not exited:
                _, status, usage = os.wait4(pid, 0)
                exited = True
            if open_pipes:
                # Pipes still held after the kill: give up on them.
                break
            continue
        for key, _ in sel.select(timeout=min(remaining, 1.0)):
            fd = key.fd
            if fd == in_w:
                try:
                    offset += os.write(in_w, stdin[offset:offset + 65536])
                except (BrokenPipeError, OSError):
                    offset = len(stdin)
                if offset >= len(stdin):
                    sel.unregister(in_w)
                    os.close(in_w)
                    in_w = -1
            elif fd == pidfd:
                sel.unregister(pidfd)
                _, status, usage = os.wait4(pid, 0)
                exited = True
                # Grandchildren may still hold the pipes: end them so reads reach EOF.
                kill_everything_of(uid)
            else:
                chunk = os.read(fd, 65536)
                if not chunk:
                    sel.unregister(fd)
                    open_pipes -= 1
                elif fd == out_r:
                    room = limits["output_bytes"] - len(out)
                    out += chunk[:room]
                    if len(chunk) > room and not record["output_exceeded"]:
                        record["output_exceeded"] = True
                        kill_everything_of(uid)
                else:
                    err += chunk
                    if len(err) > limits["stderr_bytes"]:
                        del err[: len(err) - limits["stderr_bytes"]]
    wall_ms = int((time.monotonic() - started) * 1000)
    sel.close()
    for fd in (out_r, err_r, pidfd):
        try:
            os.close(fd)
        except OSError:
            pass
    if in_w >= 0:
        try:
            os.close(in_w)
        except OSError:
            pass
    if os.WIFSIGNALED(status):
        record["signal"] = os.WTERMSIG(status)
    else:
        record["exit_code"] = os.WEXITSTATUS(status)
    record["oom_killed"] = oom_kills() > oom_before
    record["wall_ms"] = wall_ms
    if usage is not None:
        record["cpu_ms"] = int((usage.ru_utime + usage.ru_stime) * 1000)
        record["memory_kb"] = int(usage.ru_maxrss)
    if record["output_exceeded"]:
        del out[65536:]  # the verdict is OLE: the host needs only a glimpse, not megabytes
    record["stdout_b64"] = base64.b64encode(bytes(out)).decode()
    record["stderr"] = bytes(err).decode("utf-8", "replace")
    return record


def wait_for(path: str, limit_s: float = 600) -> bool:
    """A warm container idles here until the host drops the job in (atomic rename)."""
    deadline = time.monotonic() + limit_s
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.003)
    return True


def main() -> int:
    args = sys.argv[1:]
    warm = "--wait" in args
    args = [a for a in args if a != "--wait"]
    path = args[0] if args else "/viva/job/manifest.json"
    if warm and not wait_for(path):
        return 0
    with open(path) as handle:
        job = json.load(handle)
    base = os.path.dirname(path)
    env = job["env"]
    os.umask(0o022)

    def write_sources() -> None:
        os.makedirs(WORK, mode=0o755)
        for name, text in job["files"].items():
            with open(os.path.join(WORK, name), "w") as handle:
                handle.write(text)

    as_user(COMPILE_UID, write_sources)
    if job.get("compile"):
        record = run(job["compile"]["argv"], COMPILE_UID, env, b"", job["compile"]["limits"],
                     "/tmp/compile")
        emit({"event": "compile", **record})
        if record["exit_code"] != 0:
            return 0
    for index, case in enumerate(job["cases"]):
        with open(os.path.join(base, case["input_file"]), "rb") as raw:
            data = raw.read()
        record = run(job["run"]["argv"], RUN_UID, env, data, job["run"]["limits"],
                     f"/tmp/case-{index}")
        emit({"event": "case", "id": case["id"], **record})
    return 0


if __name__ == "__main__":
    sys.exit(main())
