"""A judge worker: takes jobs from the queue, judges them, publishes progress and the result.

``viva worker`` runs one as a process (its settings — REDIS_URL, VIVA_JUDGE_BACKEND,
VIVA_BANK_DIR, … — are read by ``server.settings`` and passed in); ``viva serve`` runs one
in-process through ``JudgeService.start_worker``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import sys
import time
import uuid
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis

from core.events import ComplexityMeasuredEvent, JudgeCaseEvent, JudgeResultEvent
from core.tasks import cancel_and_wait
from judge.backends.base import SandboxBackend, SandboxUnavailable
from judge.backends.selection import select_backend
from judge.evidence import diff_against, evidence_text
from judge.measure import Measurement, measure
from judge.models import CaseResult, SubmissionResult, Verdict
from judge.problems import Problem, ProblemError, ProblemRegistry
from judge.queue import Job, JobQueue
from judge.settings import JudgeSettings
from judge.submissions import SubmissionStore
from judge.tiered_run import judge_code
from store.events import EventLog

log = logging.getLogger("viva.judge.worker")
BackendProvider = Callable[[], Awaitable[SandboxBackend]]


def now_ms() -> int:
    return int(time.time() * 1000)


class Worker:
    def __init__(self, redis: aioredis.Redis, registry: ProblemRegistry,
                 backend: BackendProvider, *, consumer: str | None = None,
                 reclaim_idle_ms: int = 30_000, heartbeat_ms: int = 5_000,
                 max_deliveries: int = 3):
        self.redis = redis
        self.registry = registry
        self.backend = backend
        self.queue = JobQueue(redis)
        self.store = SubmissionStore(redis)
        self.events = EventLog(redis)
        self.consumer = consumer or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.reclaim_idle_ms = reclaim_idle_ms
        self.heartbeat_ms = heartbeat_ms
        self.max_deliveries = max_deliveries
        self.processed = 0
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        self._stopping.set()

    async def run(self) -> None:
        """Serve until ``stop()``: reclaim dead workers' jobs, then read new ones."""
        last_reclaim = last_beat = 0.0
        while not self._stopping.is_set():
            jobs: list[Job] = []
            if time.monotonic() - last_beat > 2.0:
                last_beat = time.monotonic()
                await self.queue.beat(self.consumer)
            if time.monotonic() - last_reclaim > self.reclaim_idle_ms / 3000:
                last_reclaim = time.monotonic()
                jobs = await self.queue.reclaim(self.consumer, self.reclaim_idle_ms)
            if not jobs:
                jobs = await self.queue.read(self.consumer, block_ms=500)
            for job in jobs:
                await self.handle(job)

    async def handle(self, job: Job) -> None:
        beat = asyncio.create_task(self._heartbeat(job))
        try:
            await self.process(job)
        except Exception:
            log.exception("judging %s failed", job.submission_id)
            await self._internal_error(job.submission_id, "the judge worker failed")
        finally:
            # Cancelled again if it goes on: a heartbeat inside its Redis call once lost its
            # cancel and beat on, so the worker waited on it for ever and judged nothing more
            # (CI: a second submission still queued after 120 s).
            await cancel_and_wait(beat, context=f"heartbeat of {job.submission_id}",
                                  logger=log)
        await self.queue.ack(job.message_id)
        self.processed += 1

    async def _heartbeat(self, job: Job) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_ms / 1000)
            await self.queue.heartbeat(self.consumer, job.message_id)

    async def process(self, job: Job) -> None:
        result = await self.store.get(job.submission_id)
        if result is None or result.status == "done":
            return
        if job.deliveries > self.max_deliveries:
            await self._internal_error(job.submission_id,
                                       f"abandoned after {job.deliveries - 1} failed attempts")
            return
        problem = self.registry.get(result.problem_id)
        if problem is None:
            await self._internal_error(job.submission_id, f"problem {result.problem_id} is gone")
            return
        result.status = "running"
        result.cases = []
        await self.store.save_progress(result)
        try:
            backend = await self.backend()
        except SandboxUnavailable as exc:
            await self._internal_error(job.submission_id, str(exc))
            return

        async def on_case(case: CaseResult) -> None:
            result.cases.append(case)
            await self.store.save_progress(result)
            if result.session_id:
                await self.events.append(result.session_id, JudgeCaseEvent(
                    submission_id=result.submission_id, case_id=case.id, kind=case.kind,
                    verdict=case.verdict.value, time_ms=case.time_ms,
                    memory_kb=case.memory_kb))

        try:
            outcome = await judge_code(problem, result.language, result.code, result.kind,
                                       backend, on_case)
        except ProblemError as exc:
            await self._internal_error(job.submission_id, str(exc))
            return
        result.compile, result.cases = outcome.compile, outcome.cases
        result.verdict, result.passed, result.total = outcome.verdict, outcome.passed, outcome.total
        result.image, result.backend = outcome.image, outcome.backend
        result.error = outcome.error
        await self._finish(result)
        if result.kind == "submit" and result.verdict == Verdict.AC and result.session_id:
            await self._measure(problem, result, backend)

    async def _measure(self, problem: Problem, result: SubmissionResult,
                       backend: SandboxBackend) -> None:
        """After the verdict is out: time the accepted code at growing n (judge/measure.py)
        and publish it for the complexity talk. Never fails the job."""
        try:
            measured = await measure(problem, result.language, result.code, backend)
        except Exception as exc:  # the verdict stands; the talk goes on without a timing
            log.exception("measuring %s failed", result.submission_id)
            measured = Measurement("failed", reason=type(exc).__name__)
        spec = problem.measure
        assert result.session_id is not None
        await self.events.append(result.session_id, ComplexityMeasuredEvent(
            submission_id=result.submission_id, **measured.event_fields(),
            reference_class=spec.reference if spec else None,
            var=spec.var if spec else None))

    async def _finish(self, result: SubmissionResult) -> None:
        result.status = "done"
        result.finished_ms = now_ms()
        previous = await self.store.previous(result)
        result.diff, result.diff_summary = diff_against(previous, result)
        result.evidence_text = evidence_text(result, reveal_hidden=True)
        if await self.store.finish(result) and result.session_id:
            await self.events.append(result.session_id,
                                     JudgeResultEvent.model_validate(result.public_view()))

    async def _internal_error(self, submission_id: str, message: str) -> None:
        result = await self.store.get(submission_id)
        if result is None or result.status == "done":
            return
        result.verdict = Verdict.IE
        result.error = message
        await self._finish(result)


async def _serve(settings: JudgeSettings) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    redis = aioredis.Redis.from_url(settings.redis_url, decode_responses=True)
    registry = ProblemRegistry.from_bank(settings.bank_dir, settings.cache_dir)
    try:
        backend = await select_backend(settings)
    except SandboxUnavailable as exc:
        print(f"viva worker: {exc}", file=sys.stderr)
        await redis.aclose()
        return 3

    async def provide() -> SandboxBackend:
        return backend

    worker = Worker(redis, registry, provide)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, worker.stop)
    log.info("worker %s judging on %s (%s)", worker.consumer, backend.name, backend.image)
    try:
        await worker.run()
    finally:
        await redis.aclose()
    return 0


def main(argv: list[str], settings: JudgeSettings | None = None) -> int:
    """``viva worker``: judge jobs until SIGTERM/SIGINT."""
    if argv and argv[0] in ("-h", "--help"):
        print("usage: viva worker  (REDIS_URL, VIVA_JUDGE_BACKEND, VIVA_BANK_DIR from env)")
        return 0
    return asyncio.run(_serve(settings or JudgeSettings()))
