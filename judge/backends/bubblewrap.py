"""bubblewrap + cgroups: one fresh namespace sandbox per process run, on the host's toolchains.

Layout of a job directory (created by root, removed by root, never written by the host after
any candidate process has run — Judge0 CVE-2024-28185):

    JOB/            0711 root
    JOB/box/        sources written by the host, then chowned to the sandbox uid; bound
                    read-write at /box for compilation, read-only for every case run.

Each run: a new user/pid/net/ipc/uts/cgroup namespace, read-only /usr, private tmpfs /tmp,
no /etc except what toolchains read, cleared environment, all capabilities dropped, no further
user namespaces (--disable-userns), a seccomp filter (judge/backends/seccomp.py), a per-run
cgroup (memory, pids, CPU accounting), rlimits (CPU, file size, core), and the bwrap process
itself started as an unprivileged host uid so no namespace uid maps to host root.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import shutil
import signal
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from core.tasks import cancel_and_wait
from judge.backends.base import (
    BackendStatus,
    CaseDone,
    CompileDone,
    SandboxBackend,
    SandboxEvent,
    SandboxJob,
    SandboxUnavailable,
)
from judge.backends.cgroups import CgroupUnavailable, RunCgroup, detect_version
from judge.backends.process_io import feed_stdin, read_capped, read_tail
from judge.backends.seccomp import SeccompUnsupported, filter_program
from judge.languages.base import Executor
from judge.models import RunLimits, RunRecord

BWRAP = "/usr/bin/bwrap"
SANDBOX_UID = 65534  # nobody; settings: VIVA_JUDGE_SANDBOX_UID
INNER_UID = 1000
# Read by toolchains and the dynamic loader; everything else under /etc stays invisible.
ETC_PATHS = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d")


def _preexec(procs_files: list[str], limits: RunLimits,
             sandbox_uid: int = SANDBOX_UID) -> Callable[[], None]:
    """Runs in the forked child, as root: join the cgroup, set rlimits, then drop to nobody."""
    cpu_s = max(1, (limits.cpu_ms + 999) // 1000)

    def hook() -> None:
        pid = str(os.getpid())
        for path in procs_files:
            with open(path, "w") as handle:
                handle.write(pid)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        resource.setrlimit(resource.RLIMIT_STACK, (limits.stack_bytes, limits.stack_bytes))
        os.setgroups([])
        os.setresgid(sandbox_uid, sandbox_uid, sandbox_uid)
        os.setresuid(sandbox_uid, sandbox_uid, sandbox_uid)

    return hook


def bwrap_argv(executor: Executor, box: Path, argv: list[str], *, writable_box: bool,
               limits: RunLimits, seccomp_fd: int | None = None) -> list[str]:
    args = [BWRAP, "--unshare-all", "--die-with-parent", "--new-session",
            "--unshare-user", "--disable-userns", "--uid", str(INNER_UID),
            "--gid", str(INNER_UID),
            "--hostname", "box",
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin"]
    for path in (*ETC_PATHS, *executor.host_paths):
        args += ["--ro-bind-try", path, path]
    args += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp",
             "--bind" if writable_box else "--ro-bind", str(box), "/box",
             "--chdir", "/box", "--clearenv",
             "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp",
             "--setenv", "TMPDIR", "/tmp", "--setenv", "LANG", "C.UTF-8"]
    for key, value in executor.env:
        args += ["--setenv", key, value]
    # The root bwrap builds is a tmpfs: make it read-only so only /tmp (and /box while
    # compiling) can be written.
    args += ["--remount-ro", "/", "--cap-drop", "ALL"]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    return [*args, "--", *argv]


def _seccomp_pipe() -> int:
    """A pipe's read end holding the filter program, for ``bwrap --seccomp FD``."""
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, filter_program())  # well under a pipe's 64 KiB buffer
    finally:
        os.close(write_fd)
    return read_fd


async def run_sandboxed(executor: Executor, box: Path, argv: list[str], stdin: bytes,
                        limits: RunLimits, *, writable_box: bool,
                        sandbox_uid: int = SANDBOX_UID) -> RunRecord:
    """One process run in a fresh bubblewrap sandbox under its own cgroup."""
    try:
        group = await asyncio.to_thread(RunCgroup.create, limits.memory_bytes, limits.pids)
    except CgroupUnavailable as exc:
        raise SandboxUnavailable(str(exc)) from exc
    record = RunRecord()
    proc: asyncio.subprocess.Process | None = None
    try:
        started = time.monotonic()
        seccomp_fd = _seccomp_pipe()
        try:
            proc = await asyncio.create_subprocess_exec(
                *bwrap_argv(executor, box, argv, writable_box=writable_box, limits=limits,
                            seccomp_fd=seccomp_fd),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, env={"PATH": "/usr/bin:/bin"},
                preexec_fn=_preexec(group.procs_files(), limits, sandbox_uid), close_fds=True,
                pass_fds=(seccomp_fd,),
            )
        finally:
            os.close(seccomp_fd)
        running = proc

        def kill() -> None:
            with contextlib.suppress(ProcessLookupError):
                running.send_signal(signal.SIGKILL)
            group.kill_all(attempts=3)

        feeder = asyncio.create_task(feed_stdin(proc.stdin, stdin))
        out_task = asyncio.create_task(read_capped(proc.stdout, limits.output_bytes, kill))
        err_task = asyncio.create_task(read_tail(proc.stderr, limits.stderr_bytes))
        try:
            await asyncio.wait_for(proc.wait(), timeout=limits.wall_ms / 1000)
        except TimeoutError:
            record.timed_out = True
            kill()
            await proc.wait()
        record.wall_ms = int((time.monotonic() - started) * 1000)
        # Whatever the sandbox left behind dies now, so the pipes reach EOF.
        await asyncio.to_thread(group.kill_all)
        try:
            (stdout, exceeded), stderr = await asyncio.wait_for(
                asyncio.gather(out_task, err_task), timeout=5)
        except TimeoutError:
            record.error = "the sandbox kept its output pipes open after exit"
            stdout, exceeded, stderr = b"", False, b""
        # A program that exits without reading its input leaves the feeder in drain().
        await cancel_and_wait(feeder, context="stdin feeder")
        record.stdout, record.output_exceeded = stdout, exceeded
        record.stderr = stderr.decode("utf-8", "replace")
        code = proc.returncode
        # bwrap reports a child killed by signal N as exit status 128+N. Signals stop at
        # SIGRTMAX (64): a program's own exit status above 192 ("return 200;", or
        # "return -1;": 255) is an exit status, not a signal.
        if code is not None and code < 0:
            record.signal = -code
        elif code is not None and 128 < code <= 128 + int(signal.SIGRTMAX):
            record.signal = code - 128
        else:
            record.exit_code = code
        record.cpu_ms = group.cpu_ms()
        record.memory_kb = group.peak_memory_kb()
        record.oom_killed = group.oom_killed()
        if "bwrap:" in record.stderr and code == 1 and record.stdout == b"":
            # bwrap's own failure (namespaces refused, bad bind): not the candidate's fault.
            first = next(ln for ln in record.stderr.splitlines() if "bwrap:" in ln)
            if first.startswith("bwrap:"):
                record.error = first
        return record
    finally:
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
        await asyncio.to_thread(group.destroy)


class BubblewrapBackend(SandboxBackend):
    name = "bwrap"

    def __init__(self, work_root: Path | None = None, *, sandbox_uid: int = SANDBOX_UID):
        self.work_root = work_root or Path(tempfile.gettempdir())
        self.sandbox_uid = sandbox_uid

    @property
    def image(self) -> str:
        return f"bwrap:host-toolchains:cgroup-v{detect_version() or 0}"

    async def status(self) -> BackendStatus:
        if not Path(BWRAP).exists():  # noqa: ASYNC240 - one stat, no blocking I/O to speak of
            return BackendStatus(self.name, False, "bubblewrap is not installed (apt install "
                                 "bubblewrap, or run scripts/setup-judge.sh)")
        if os.geteuid() != 0:
            return BackendStatus(self.name, False, "the bubblewrap judge must run as root to "
                                 "create cgroups and drop to an unprivileged uid")
        if detect_version() is None:
            return BackendStatus(self.name, False, "no writable memory+pids cgroup controllers")
        try:
            filter_program()
        except SeccompUnsupported as exc:
            return BackendStatus(self.name, False, str(exc))
        return BackendStatus(self.name, True, image=self.image)

    def _make_job_dir(self, job: SandboxJob) -> tuple[Path, Path]:
        job_dir = Path(tempfile.mkdtemp(prefix="viva-judge-", dir=self.work_root))
        os.chmod(job_dir, 0o711)
        box = job_dir / "box"
        box.mkdir(mode=0o755)
        for name, text in job.box_files().items():
            if "/" in name or name.startswith("."):
                raise ValueError(f"bad source file name {name!r}")
            (box / name).write_text(text)
            os.chmod(box / name, 0o644)
        # From here on the host only reads this tree and finally removes it.
        os.chown(box, self.sandbox_uid, self.sandbox_uid)
        return job_dir, box

    async def execute(self, job: SandboxJob) -> AsyncIterator[SandboxEvent]:
        status = await self.status()
        if not status.ok:
            raise SandboxUnavailable(status.reason)
        job_dir, box = await asyncio.to_thread(self._make_job_dir, job)
        try:
            compile_argv = job.executor.compile_argv()
            if job.compile and compile_argv:
                record = await run_sandboxed(job.executor, box, compile_argv, b"",
                                             job.compile_limits, writable_box=True,
                                             sandbox_uid=self.sandbox_uid)
                yield CompileDone(record)
                if record.exit_code != 0 or record.error:
                    return
            memory_mb = job.run_limits.memory_bytes // (1024 * 1024)
            argv = job.executor.run_argv(max(16, memory_mb - job.executor.memory_extra_mb))
            for case_id, data in job.inputs:
                record = await run_sandboxed(job.executor, box, argv, data, job.run_limits,
                                             writable_box=False,
                                             sandbox_uid=self.sandbox_uid)
                yield CaseDone(case_id, record)
        finally:
            # rmtree does not follow symlinks the candidate may have planted in box/.
            await asyncio.to_thread(shutil.rmtree, job_dir, True)
