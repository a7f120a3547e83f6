"""``viva bench judge [--json] [--quick]``: sandbox overhead, submission latency, burst throughput.

Figures, per backend (bubblewrap, and Docker when an engine answers):
- ``case_ms_p50`` / ``overhead_ms``: wall time of one trivial Python case in the sandbox, and
  its excess over the same process run bare on the host (``bare_ms``);
- ``submission_p50_ms`` / ``submission_p95_ms``: a Python AC over 10 cases (compile included);
- ``burst_s`` / ``throughput_per_s``: 50 submissions queued at once on a real Redis, drained
  by two workers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import time
from typing import Any

import redis.asyncio as aioredis

from bench.local_stack import private_redis
from bench.stats import percentile
from core.tasks import cancel_and_wait
from judge.backends.base import SandboxBackend, SandboxJob
from judge.backends.bubblewrap import BubblewrapBackend
from judge.backends.docker_engine import DockerBackend
from judge.languages import executor_for
from judge.models import RunLimits
from judge.problems import Problem
from judge.queue import JobQueue
from judge.service import JudgeService
from judge.tiered_run import compile_limits, judge_code
from judge.worker import Worker

CODE = "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n"


def bench_problem() -> Problem:
    tests = [{"kind": "sample" if i == 0 else "hidden", "input": f"{i} {i + 1}\n",
              "output": f"{2 * i + 1}\n"} for i in range(10)]
    return Problem.model_validate({"id": "bench-sum", "title": "Sum", "statement": "Sum.",
                                   "limits": {"time_ms": 2000}, "tests": tests})


def pct_ms(values: list[float], q: float) -> float | None:
    value = percentile(values, q)
    return None if value is None else round(value, 1)


def bare_ms(runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(["/usr/bin/python3", "-c", CODE], input=b"1 2\n", capture_output=True,
                       check=True)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def case_ms(backend: SandboxBackend, cases: int) -> tuple[float, float]:
    """(median wall of one case, wall of the whole job divided by cases)."""
    executor = executor_for("python")
    job = SandboxJob(executor=executor, files={executor.source_name: CODE},
                     run_limits=RunLimits(), compile_limits=compile_limits(executor),
                     inputs=[(str(i), b"1 2\n") for i in range(cases)], compile=False)
    walls = []
    started = time.perf_counter()
    async for event in backend.execute(job):
        walls.append(event.record.wall_ms)
    total = (time.perf_counter() - started) * 1000
    return statistics.median(walls), total / cases


async def submission_latency(backend: SandboxBackend, runs: int,
                             pause_s: float = 0.0) -> list[float]:
    problem = bench_problem()
    times = []
    for _ in range(runs):
        await asyncio.sleep(pause_s)  # lets a warm pool refill, as between real submissions
        started = time.perf_counter()
        outcome = await judge_code(problem, "python", CODE, "submit", backend)
        times.append((time.perf_counter() - started) * 1000)
        if outcome.verdict != "AC":
            raise RuntimeError(f"bench submission was not accepted: {outcome.verdict}")
    return times


async def burst(backend: SandboxBackend, redis_url: str, count: int, workers: int) -> float:
    redis = aioredis.Redis.from_url(redis_url, decode_responses=True)
    problem = bench_problem()
    service = JudgeService(redis, registry_for(problem), backend_choice=backend.name)
    service.backend = backend
    queue = JobQueue(redis)
    await queue.ensure_group()

    async def provide() -> SandboxBackend:
        return backend

    pool = [Worker(redis, service.registry, provide) for _ in range(workers)]
    tasks = [asyncio.create_task(w.run()) for w in pool]
    try:
        started = time.perf_counter()
        ids = [await service.enqueue(None, problem.id, "python", CODE, "submit")
               for _ in range(count)]
        for sid in ids:
            result = await service.wait(sid, 600)
            if result is None or result.verdict != "AC":
                raise RuntimeError(f"burst submission failed: {result and result.verdict}")
        return time.perf_counter() - started
    finally:
        for w in pool:
            w.stop()
        await cancel_and_wait(*tasks, context="bench judge workers")
        await redis.aclose()


def registry_for(problem: Problem) -> Any:
    from judge.problems import ProblemRegistry

    return ProblemRegistry({problem.id: problem})


async def measure(quick: bool) -> dict[str, Any]:
    runs = 5 if quick else 10
    count = 10 if quick else 50
    figures: dict[str, Any] = {"bench": "judge", "bare_ms": round(bare_ms(runs * 2), 1),
                               "burst_submissions": count, "cases_per_submission": 10}
    with private_redis() as redis_url:
        for backend in (BubblewrapBackend(), DockerBackend(pool_size=0)):
            status = await backend.status()
            if not status.ok:
                figures[backend.name] = {"skipped": status.reason}
                continue
            per_case, amortized = await case_ms(backend, 20)
            latency = await submission_latency(backend, runs)
            burst_s = await burst(backend, redis_url, count, workers=2)
            figures[backend.name] = {
                "image": backend.image,
                "case_ms_p50": round(per_case, 1),
                "case_ms_amortized": round(amortized, 1),
                "overhead_ms": round(per_case - figures["bare_ms"], 1),
                "submission_p50_ms": pct_ms(latency, 50),
                "submission_p95_ms": pct_ms(latency, 95),
                "burst_s": round(burst_s, 2),
                "throughput_per_s": round(count / burst_s, 2),
            }
            if isinstance(backend, DockerBackend):
                pooled = DockerBackend(pool_size=2)
                try:
                    await submission_latency(pooled, 1, pause_s=1.0)  # starts the pool
                    warm = await submission_latency(pooled, runs, pause_s=0.6)
                    warm_burst = await burst(pooled, redis_url, count, workers=2)
                finally:
                    await pooled.aclose()
                figures[backend.name].update({
                    "warm_pool_submission_p50_ms": pct_ms(warm, 50),
                    "warm_pool_submission_p95_ms": pct_ms(warm, 95),
                    "warm_pool_burst_s": round(warm_burst, 2),
                    "warm_pool_throughput_per_s": round(count / warm_burst, 2)})
    return figures


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="viva bench judge")
    parser.add_argument("--json", action="store_true", help="last line: one JSON object")
    parser.add_argument("--quick", action="store_true", help="fewer runs, a burst of 10")
    args = parser.parse_args(argv)
    figures = asyncio.run(measure(args.quick))
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    return 0
