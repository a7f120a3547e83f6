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
import os
import shutil
import tempfile
import threading
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
DEFAULT_IMAGE = os.environ.get("VIVA_JUDGE_IMAGE", "viva-judge:current")
RUNNER_OVERHEAD = 64 * 1024 * 1024


def _limits(limits: RunLimits) -> dict[str, int]:
    return limits.model_dump(include={"cpu_ms", "wall_ms", "memory_bytes", "output_bytes",
                                      "stderr_bytes", "file_bytes", "pids"})


def _record(raw: dict[str, Any]) -> RunRecord:
    return RunRecord(
        exit_code=raw.get("exit_code"), signal=raw.get("signal"),
        wall_ms=raw.get("wall_ms", 0), cpu_ms=raw.get("cpu_ms", 0),
        memory_kb=raw.get("memory_kb", 0), timed_out=raw.get("timed_out", False),
        oom_killed=raw.get("oom_killed", False), output_exceeded=raw.get("output_exceeded", False),
        stdout=base64.b64decode(raw.get("stdout_b64", "")), stderr=raw.get("stderr", ""),
        error=raw.get("error"),
    )


class DockerBackend(SandboxBackend):
    name = "docker"

    def __init__(self, image: str = DEFAULT_IMAGE, work_root: Path | None = None):
        self.image_ref = image
        self.work_root = work_root or Path(tempfile.gettempdir())
        self._client: Any = None
        self._image_id = ""
        self._lock = threading.Lock()

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
        return await asyncio.to_thread(self._connect)

    def _write_job(self, job: SandboxJob) -> Path:
        job_dir = Path(tempfile.mkdtemp(prefix="viva-docker-", dir=self.work_root))  # 0700
        (job_dir / "in").mkdir()
        cases = []
        for index, (case_id, data) in enumerate(job.inputs):
            (job_dir / "in" / str(index)).write_bytes(data)
            cases.append({"id": case_id, "input_file": f"in/{index}"})
        memory_mb = job.run_limits.memory_bytes // (1024 * 1024)
        run_argv = job.executor.run_argv(max(16, memory_mb - job.executor.memory_extra_mb))
        compile_argv = job.executor.compile_argv() if job.compile else None
        manifest = {
            "files": job.files,
            "env": {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", **dict(job.executor.env)},
            "compile": ({"argv": compile_argv, "limits": _limits(job.compile_limits)}
                        if compile_argv else None),
            "run": {"argv": run_argv, "limits": _limits(job.run_limits)},
            "cases": cases,
        }
        (job_dir / "manifest.json").write_text(json.dumps(manifest))
        return job_dir

    def _create(self, job: SandboxJob, job_dir: Path) -> Any:
        memory = max(job.run_limits.memory_bytes,
                     job.compile_limits.memory_bytes if job.compile else 0) + RUNNER_OVERHEAD
        pids = max(job.run_limits.pids, job.compile_limits.pids if job.compile else 0) + 32
        tmp = job.run_limits.tmp_bytes
        return self._client.containers.create(
            self._image_id,
            command=["/usr/bin/python3", "-I", "-S", "/viva/runner.py",
                     "/viva/job/manifest.json"],
            user="0:0", working_dir="/", environment={}, hostname="box",
            network_mode="none", read_only=True,
            tmpfs={"/sandbox": "rw,exec,nosuid,nodev,size=256m,mode=1777",
                   "/tmp": f"rw,exec,nosuid,nodev,size={max(tmp, 512 << 20)},mode=1777"},
            volumes={str(RUNNER): {"bind": "/viva/runner.py", "mode": "ro"},
                     str(job_dir): {"bind": "/viva/job", "mode": "ro"}},
            mem_limit=memory, memswap_limit=memory, pids_limit=pids,
            cap_drop=["ALL"], cap_add=["SETUID", "SETGID"],
            security_opt=["no-new-privileges"],
            ulimits=[{"Name": "nofile", "Soft": 256, "Hard": 256}],
            ipc_mode="private", labels={"org.viva.judge": "run"}, detach=True,
        )

    async def execute(self, job: SandboxJob) -> AsyncIterator[SandboxEvent]:
        status = await self.status()
        if not status.ok:
            raise SandboxUnavailable(status.reason)
        job_dir = await asyncio.to_thread(self._write_job, job)
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[bytes | Exception | None] = asyncio.Queue()
        container: Any = None
        stop = threading.Event()

        def pump() -> None:
            # The SDK streams blocking; hand complete lines to the event loop.
            buffer = b""
            try:
                for chunk in container.attach(stdout=True, stderr=False, stream=True, logs=True):
                    if stop.is_set():
                        break
                    buffer += chunk
                    while b"\n" in buffer:
                        line, buffer = buffer.split(b"\n", 1)
                        loop.call_soon_threadsafe(lines.put_nowait, line)
            except Exception as exc:
                if not stop.is_set():
                    loop.call_soon_threadsafe(lines.put_nowait, exc)
            loop.call_soon_threadsafe(lines.put_nowait, None)

        budget = (job.compile_limits.wall_ms if job.compile else 0) + 10_000 + sum(
            job.run_limits.wall_ms + 1000 for _ in job.inputs)
        try:
            container = await asyncio.to_thread(self._create, job, job_dir)
            reader = threading.Thread(target=pump, daemon=True)
            # attach before start so no line is missed
            await asyncio.to_thread(container.start)
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
                event = json.loads(item)
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
            await asyncio.to_thread(shutil.rmtree, job_dir, True)
