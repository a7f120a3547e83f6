"""Docker: one container per submission, all cases inside, driven by judge/sandbox_runner.py.

``docker run`` costs about half a second here, so a submission pays it once, not per case.
The container has no network, a read-only root, tmpfs /box and /tmp, every capability dropped
but SETUID/SETGID (the runner needs them to drop to unprivileged uids), no-new-privileges,
memory = memory+swap, a pids limit, and an empty environment. The job directory (manifest,
inputs) is mounted read-only and is root-only, so candidate code cannot read hidden inputs of
later cases. The image is pinned by ID, recorded in every evidence record.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import shutil
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from judge.backends.base import (
    BackendStatus,
    CaseDone,
    CompileDone,
    SandboxBackend,
    SandboxEvent,
    SandboxJob,
    SandboxUnavailable,
)
from judge.models import RunLimits, RunRecord

RUNNER = Path(__file__).resolve().parent.parent / "sandbox_runner.py"
DEFAULT_IMAGE = "viva-judge:current"  # settings: VIVA_JUDGE_IMAGE
RUNNER_OVERHEAD = 64 * 1024 * 1024
# Warm containers are created with one uniform configuration big enough for compilation;
# the runner enforces each run's own limits inside.
POOL_MEMORY = 1024 * 1024 * 1024 + RUNNER_OVERHEAD
POOL_PIDS = 160
DEFAULT_POOL = 2  # settings: VIVA_JUDGE_DOCKER_POOL


def _limits(limits: RunLimits) -> dict[str, int]:
    return {**limits.model_dump(include={"cpu_ms", "wall_ms", "memory_bytes", "output_bytes",
                                         "stderr_bytes", "file_bytes", "pids"}),
            "stack_bytes": limits.stack_bytes}


def _record(raw: dict[str, Any]) -> RunRecord:
    return RunRecord(
        exit_code=raw.get("exit_code"), signal=raw.get("signal"),
        wall_ms=raw.get("wall_ms", 0), cpu_ms=raw.get("cpu_ms", 0),
        memory_kb=raw.get("memory_kb", 0), timed_out=raw.get("timed_out", False),
        oom_killed=raw.get("oom_killed", False), output_exceeded=raw.get("output_exceeded", False),
        stdout=base64.b64decode(raw.get("stdout_b64", "")), stderr=raw.get("stderr", ""),
        error=raw.get("error"),
    )


class WarmPool:
    """Started containers whose runner waits for a job (``docker start`` is ~0.3 s of the
    ~0.5 s a container costs). Kept full by a daemon thread: the SDK is blocking anyway and a
    thread is not tied to any one event loop. Each warm container has its own empty job
    directory; the host writes the job there before any candidate code ran in it."""

    def __init__(self, backend: DockerBackend, size: int):
        self.backend = backend
        self.size = size
        self.ready: list[tuple[Any, Path]] = []
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._fill_forever, name="judge-warm-pool",
                                       daemon=True)
        self.thread.start()

    def _fill_forever(self) -> None:
        self._remove_exited()
        while not self.stopping.is_set():
            with self.lock:
                missing = self.size - len(self.ready)
            if missing <= 0:
                self.wake.wait(timeout=5)
                self.wake.clear()
                continue
            try:
                job_dir = Path(tempfile.mkdtemp(prefix="viva-docker-", dir=self.backend.work_root))
                container = self.backend._create_container(job_dir, POOL_MEMORY, POOL_PIDS,
                                                           warm=True)
                container.start()
            except Exception:  # engine hiccup: retry later, cold path meanwhile
                time.sleep(2)
                continue
            with self.lock:
                if not self.stopping.is_set():
                    self.ready.append((container, job_dir))
                    continue
            # closed while this one was starting
            with contextlib.suppress(Exception):
                container.remove(force=True)
            shutil.rmtree(job_dir, ignore_errors=True)

    def _remove_exited(self) -> None:
        """Warm containers of a process that died idle until their runner gives up, then
        stay behind as exited: clear those."""
        with contextlib.suppress(Exception):
            client = self.backend._client
            for container in client.containers.list(
                    all=True, filters={"label": "org.viva.judge", "status": "exited"}):
                container.remove(force=True)

    def take(self) -> tuple[Any, Path] | None:
        with self.lock:
            taken = self.ready.pop(0) if self.ready else None
        self.wake.set()
        return taken

    def close(self) -> None:
        self.stopping.set()
        self.wake.set()
        with self.lock:
            leftovers, self.ready = self.ready, []
        for container, job_dir in leftovers:
            with contextlib.suppress(Exception):
                container.remove(force=True)
            shutil.rmtree(job_dir, ignore_errors=True)


class DockerBackend(SandboxBackend):
    name = "docker"

    def __init__(self, image: str = DEFAULT_IMAGE, work_root: Path | None = None,
                 pool_size: int | None = None):
        self.image_ref = image
        self.work_root = work_root or Path(tempfile.gettempdir())
        self.pool_size = DEFAULT_POOL if pool_size is None else pool_size
        self._pool: WarmPool | None = None
        self._client: Any = None
        self._image_id = ""
        self._lock = threading.Lock()
        self._checked: tuple[float, BackendStatus | None] = (0.0, None)

    @property
    def image(self) -> str:
        return self._image_id or self.image_ref

    def _connect(self) -> BackendStatus:
        with self._lock:
            try:
                import docker  # the SDK is only needed when this backend is used

                if self._client is None:
                    self._client = docker.from_env(timeout=30)
                self._client.ping()
            except Exception as exc:  # any failure means: no engine answers
                self._client = None
                return BackendStatus(self.name, False, f"no Docker engine answers: {exc}")
            try:
                self._image_id = self._client.images.get(self.image_ref).id
            except Exception:
                return BackendStatus(self.name, False, f"judge image {self.image_ref} is missing; "
                                     "build it with scripts/setup-judge.sh")
            return BackendStatus(self.name, True, image=self._image_id)

    async def status(self) -> BackendStatus:
        status = await asyncio.to_thread(self._connect)
        self._checked = (time.monotonic(), status)
        return status

    async def _recent_status(self) -> BackendStatus:
        """The engine check costs two API calls: reuse one younger than a few seconds."""
        checked_at, status = self._checked
        if status is not None and status.ok and time.monotonic() - checked_at < 5:
            return status
        return await self.status()

    def _write_job(self, job: SandboxJob, job_dir: Path | None = None) -> Path:
        """Inputs and manifest into a fresh 0700 directory (or a warm container's, still
        untouched by any candidate). The manifest lands last, by rename: it is the signal."""
        job_dir = job_dir or Path(tempfile.mkdtemp(prefix="viva-docker-", dir=self.work_root))
        (job_dir / "in").mkdir()
        cases = []
        for index, (case_id, data) in enumerate(job.inputs):
            (job_dir / "in" / str(index)).write_bytes(data)
            cases.append({"id": case_id, "input_file": f"in/{index}"})
        memory_mb = job.run_limits.memory_bytes // (1024 * 1024)
        run_argv = job.executor.run_argv(max(16, memory_mb - job.executor.memory_extra_mb))
        compile_argv = job.executor.compile_argv() if job.compile else None
        manifest = {
            "files": job.box_files(),
            "env": {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", **dict(job.executor.env)},
            "compile": ({"argv": compile_argv, "limits": _limits(job.compile_limits)}
                        if compile_argv else None),
            "run": {"argv": run_argv, "limits": _limits(job.run_limits)},
            "cases": cases,
        }
        staged = job_dir / "manifest.json.tmp"
        staged.write_text(json.dumps(manifest))
        staged.rename(job_dir / "manifest.json")
        return job_dir

    @staticmethod
    def _needs(job: SandboxJob) -> tuple[int, int]:
        memory = max(job.run_limits.memory_bytes,
                     job.compile_limits.memory_bytes if job.compile else 0) + RUNNER_OVERHEAD
        pids = max(job.run_limits.pids, job.compile_limits.pids if job.compile else 0) + 32
        return memory, pids

    def _create_container(self, job_dir: Path, memory: int, pids: int, *, warm: bool) -> Any:
        tmp = 512 << 20
        command = ["/usr/bin/python3", "-I", "-S", "/viva/runner.py",
                   "/viva/job/manifest.json"] + (["--wait"] if warm else [])
        return self._client.containers.create(
            self._image_id,
            command=command,
            user="0:0", working_dir="/", environment={}, hostname="box",
            network_mode="none", read_only=True,
            tmpfs={"/sandbox": "rw,exec,nosuid,nodev,size=256m,mode=1777",
                   "/tmp": f"rw,exec,nosuid,nodev,size={tmp},mode=1777"},
            volumes={str(RUNNER): {"bind": "/viva/runner.py", "mode": "ro"},
                     str(job_dir): {"bind": "/viva/job", "mode": "ro"}},
            mem_limit=memory, memswap_limit=memory, pids_limit=pids,
            cap_drop=["ALL"], cap_add=["SETUID", "SETGID"],
            security_opt=["no-new-privileges"],
            ulimits=[{"Name": "nofile", "Soft": 256, "Hard": 256}],
            ipc_mode="private", labels={"org.viva.judge": "warm" if warm else "run"},
            # The results are read back from this log (whatever the engine's default driver).
            log_config={"type": "json-file", "config": {}},
            detach=True,
        )

    def _acquire(self, job: SandboxJob) -> tuple[Any, Path, bool]:
        """A started container already holding ``job``: warm from the pool when it fits."""
        memory, pids = self._needs(job)
        if self.pool_size > 0 and memory <= POOL_MEMORY and pids <= POOL_PIDS:
            if self._pool is None:
                self._pool = WarmPool(self, self.pool_size)
            taken = self._pool.take()
            if taken is not None:
                container, job_dir = taken
                self._write_job(job, job_dir)
                return container, job_dir, True
        job_dir = self._write_job(job)
        container = self._create_container(job_dir, memory, pids, warm=False)
        return container, job_dir, False

    async def aclose(self) -> None:
        if self._pool is not None:
            await asyncio.to_thread(self._pool.close)
            self._pool = None

    async def execute(self, job: SandboxJob) -> AsyncIterator[SandboxEvent]:
        status = await self._recent_status()
        if not status.ok:
            raise SandboxUnavailable(status.reason)
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[bytes | Exception | None] = asyncio.Queue()
        container: Any = None
        job_dir: Path | None = None
        stop = threading.Event()

        def pump() -> None:
            # The SDK streams blocking; hand complete lines to the event loop. The runner's
            # stdout is read from the container's log, from its first line and following it
            # until the container stops: one sequential read. (``attach(logs=True,
            # stream=True)`` replays the log, then joins the live stream: a line printed
            # between the two was lost, sent twice or garbled: an IE.)
            def hand(item: bytes | Exception | None) -> bool:
                try:
                    loop.call_soon_threadsafe(lines.put_nowait, item)
                    return True
                except RuntimeError:  # the loop closed: nobody reads any more
                    return False

            buffer = b""
            try:
                for chunk in container.logs(stdout=True, stderr=False, stream=True, follow=True):
                    if stop.is_set():
                        return
                    buffer += chunk
                    while b"\n" in buffer:
                        line, buffer = buffer.split(b"\n", 1)
                        if not hand(line):
                            return
            except Exception as exc:
                if not stop.is_set():
                    hand(exc)
            hand(None)

        budget = (job.compile_limits.wall_ms if job.compile else 0) + 10_000 + sum(
            job.run_limits.wall_ms + 1000 for _ in job.inputs)
        try:
            container, job_dir, warm = await asyncio.to_thread(self._acquire, job)
            reader = threading.Thread(target=pump, daemon=True)
            if not warm:
                await asyncio.to_thread(container.start)
            # Following the log from its start: what was printed before this is read too.
            reader.start()
            deadline = loop.time() + budget / 1000
            while True:
                try:
                    item = await asyncio.wait_for(lines.get(), timeout=deadline - loop.time())
                except TimeoutError:
                    raise SandboxUnavailable("the judge container overran its time budget") \
                        from None
                if item is None:
                    break
                if isinstance(item, Exception):
                    raise SandboxUnavailable(f"lost the judge container's output: {item}")
                try:
                    event = json.loads(item)
                except ValueError:
                    raise SandboxUnavailable("unreadable output from the judge container: "
                                             f"{item[:200]!r}") from None
                if event["event"] == "compile":
                    yield CompileDone(_record(event))
                else:
                    yield CaseDone(event["id"], _record(event))
            result = await asyncio.to_thread(container.wait, timeout=10)
            if result.get("StatusCode", 0) != 0:
                logs = await asyncio.to_thread(container.logs, stdout=False, stderr=True)
                raise SandboxUnavailable(
                    f"judge runner failed: {logs.decode('utf-8', 'replace')[-500:]}")
        finally:
            stop.set()
            if container is not None:
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(container.remove, force=True)
            if job_dir is not None:
                await asyncio.to_thread(shutil.rmtree, job_dir, True)
