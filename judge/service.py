"""The judge as the app sees it: problems, submissions, the queue and an in-process worker.

The app's lifespan builds one with ``await JudgeService.create(settings, redis)``, keeps it at
``app.state.judge``, calls ``start_worker()`` when ``settings.judge_in_process_worker``, and
``await aclose()`` on shutdown.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import uuid
from typing import Any

import redis.asyncio as aioredis

from core.tasks import Supervisor
from judge.backends.base import SandboxBackend, SandboxUnavailable
from judge.backends.selection import select_backend
from judge.errors import JudgeError
from judge.languages import LANGUAGES
from judge.models import SubmissionResult
from judge.problems import Problem, ProblemRegistry
from judge.queue import JobQueue
from judge.settings import JudgeSettings
from judge.submissions import SubmissionStore
from judge.worker import Worker

log = logging.getLogger("viva.judge")
MAX_CODE_BYTES = 64 * 1024
WORKER_RESTARTS = 1_000_000  # in effect forever, one a second (a Redis outage ends)


class JudgeService:
    def __init__(self, redis: aioredis.Redis, registry: ProblemRegistry, *,
                 backend_choice: str = "auto", max_code_bytes: int = MAX_CODE_BYTES,
                 settings: JudgeSettings | None = None):
        self.settings = settings or JudgeSettings()
        self.redis = redis
        self.registry = registry
        self.backend_choice = backend_choice
        self.max_code_bytes = max_code_bytes
        self.store = SubmissionStore(redis)
        self.queue = JobQueue(redis)
        self.backend: SandboxBackend | None = None
        self.backend_reason = ""
        self.worker: Worker | None = None
        self._worker_task: asyncio.Task[None] | None = None
        self._stages = Supervisor("judge service", logger=log, restart_delay_s=1.0)
        self._backend_lock = asyncio.Lock()

    @classmethod
    async def create(cls, settings: JudgeSettings, redis: aioredis.Redis, *,
                     start_worker: bool = False) -> JudgeService:
        """From the judge's settings section; ``start_worker`` runs one in-process worker
        (``viva serve``'s default)."""
        service = cls(redis, ProblemRegistry.from_bank(settings.bank_dir, settings.cache_dir),
                      backend_choice=settings.backend, max_code_bytes=settings.max_code_bytes,
                      settings=settings)
        await service.get_backend(required=False)
        await service.queue.ensure_group()
        if start_worker:
            service.start_worker()
        return service

    async def get_backend(self, required: bool = True) -> SandboxBackend:
        """The selected sandbox; re-selected when it stops answering. Fails closed."""
        async with self._backend_lock:
            if self.backend is not None:
                if (await self.backend.status()).ok:
                    return self.backend
                await self.backend.aclose()  # e.g. its warm pool
                self.backend = None
            try:
                self.backend = await select_backend(self.settings, choice=self.backend_choice)
                self.backend_reason = ""
            except SandboxUnavailable as exc:
                self.backend, self.backend_reason = None, str(exc)
                log.warning("judge: %s", exc)
                if required:
                    raise
            return self.backend  # type: ignore[return-value]

    @property
    def backend_name(self) -> str:
        """For /healthz: ``docker``, ``bwrap`` or ``none``."""
        return self.backend.name if self.backend else "none"

    def start_worker(self, **options: Any) -> Worker:
        """Run one worker in this process (owned here; stopped by ``aclose``). A worker loop
        that fails (Redis gone, a bug) is logged and started again, for as long as the
        service lives: a judge that stops silently would leave every submission queued."""
        if self.worker is None:
            self.worker = Worker(self.redis, self.registry, self.get_backend, **options)
            self._worker_task = self._stages.spawn(self.worker.run, "judge-worker",
                                                   restarts=WORKER_RESTARTS)
        return self.worker

    async def aclose(self) -> None:
        if self.worker is not None:
            self.worker.stop()
        await self._stages.aclose()
        self._worker_task = None
        if self.backend is not None:
            await self.backend.aclose()

    # --- problems -----------------------------------------------------------------------
    def problem(self, problem_id: str) -> Problem:
        problem = self.registry.get(problem_id)
        if problem is None:
            raise JudgeError("unknown_problem", f"no problem {problem_id!r}; list them at "
                             "GET /api/problems", "not_found")
        return problem

    def list_problems(self) -> list[dict[str, Any]]:
        return self.registry.summaries()

    def public_problem(self, problem_id: str) -> dict[str, Any]:
        return self.problem(problem_id).public()

    async def pick_problem(self, difficulty: str, exclude: list[str]) -> dict[str, Any] | None:
        """A ``coding_task`` payload for a problem of ``difficulty`` not in ``exclude``
        (another difficulty when none is left; None when the bank is exhausted)."""
        fresh = [p for p in self.registry.problems.values() if p.id not in set(exclude)]
        matching = [p for p in fresh if p.difficulty == difficulty] or fresh
        if not matching:
            return None
        problem = random.choice(sorted(matching, key=lambda p: p.id))
        public = problem.public()
        return {"problem_id": problem.id, "title": problem.title,
                "statement": problem.statement, "templates": problem.templates,
                "samples": public["samples"], "difficulty": problem.difficulty,
                "limits": public["limits"], "input_format": problem.input_format,
                "output_format": problem.output_format}

    # --- submissions --------------------------------------------------------------------
    async def enqueue(self, session_id: str | None, problem_id: str, language: str, code: str,
                      kind: str) -> str:
        """Validate, store (revision number assigned) and queue; returns the submission id."""
        if language not in LANGUAGES:
            raise JudgeError("unsupported_language",
                             f"language {language!r} is not supported; use one of "
                             f"{', '.join(LANGUAGES)}")
        if kind not in ("run", "submit"):
            raise JudgeError("invalid_kind", "kind must be 'run' (samples) or 'submit' (all)")
        if not isinstance(code, str) or not code.strip():
            raise JudgeError("empty_code", "the code is empty")
        if len(code.encode("utf-8")) > self.max_code_bytes:
            raise JudgeError("code_too_large",
                             f"code is larger than {self.max_code_bytes // 1024} KiB", "too_large")
        self.problem(problem_id)
        try:
            await self.get_backend()
        except SandboxUnavailable as exc:
            # An app process without a sandbox of its own (docker-compose: judging happens
            # in separate workers) takes the job when a worker is consuming the queue.
            if self.worker is not None or await self.queue.live_consumers() == 0:
                raise JudgeError("judge_unavailable", str(exc), "unavailable") from None
        problem = self.problem(problem_id)
        result = SubmissionResult(
            submission_id=uuid.uuid4().hex, session_id=session_id, problem_id=problem_id,
            language=language, kind=kind,  # type: ignore[arg-type]
            code=code, created_ms=int(time.time() * 1000), execution=problem.execution)
        await self.store.create(result)
        await self.queue.enqueue(result.submission_id)
        return result.submission_id

    async def get(self, submission_id: str) -> SubmissionResult | None:
        return await self.store.get(submission_id)

    async def wait(self, submission_id: str, within_s: float = 60) -> SubmissionResult | None:
        """Poll until the submission is done or ``within_s`` passed (tests, bench)."""
        deadline = time.monotonic() + within_s
        while True:
            result = await self.store.get(submission_id)
            if result is None or result.status == "done" or time.monotonic() > deadline:
                return result
            await asyncio.sleep(0.05)
