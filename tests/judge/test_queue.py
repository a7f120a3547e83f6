"""The job queue on a real Redis: submit → worker → per-case events → result; a dead worker's
job is reclaimed and finished exactly once; bad input and a missing sandbox are refused."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import redis.asyncio as aioredis

import judge.backends.bubblewrap as bubblewrap
from judge.errors import JudgeError
from judge.problems import ProblemRegistry, load_problem
from judge.queue import JobQueue
from judge.service import JudgeService
from store.events import EventLog

from .conftest import write_problem

GOOD = "a, b = map(int, input().split())\nprint(a + b)\n"
WRONG = "a, b = map(int, input().split())\nprint(a - b)\n"
# wait() returns as soon as the job is done; the bound only has to outlast a loaded CI
# machine, where a compile may take up to its 20 s wall limit and each case up to 3 s.
JUDGED_WITHIN_S = 120


@pytest.fixture
def small_registry(tmp_path: Path) -> ProblemRegistry:
    path = write_problem(tmp_path, [("sample", "1 2\n", "3\n"), ("hidden", "5 5\n", "10\n"),
                                    ("hidden", "-1 1\n", "0\n"), ("performance", "7 8\n", "15\n")],
                         pid="a-plus-b")
    problem = load_problem(path)
    return ProblemRegistry({problem.id: problem})


@pytest.fixture
async def service(aredis: aioredis.Redis, small_registry: ProblemRegistry):
    svc = JudgeService(aredis, small_registry, backend_choice="bwrap")
    await svc.get_backend(required=False)
    yield svc
    await svc.aclose()


async def test_submission_flow_and_revisions(service: JudgeService,
                                             aredis: aioredis.Redis) -> None:
    service.start_worker(heartbeat_ms=200)
    first = await service.enqueue("s1", "a-plus-b", "python", WRONG, "submit")
    result = await service.wait(first, JUDGED_WITHIN_S)
    assert result is not None and result.status == "done", result
    assert result.verdict == "WA" and result.revision == 1 and result.diff is None
    assert "Passed: 0/4" in result.evidence_text and "Compile: success" in result.evidence_text

    second = await service.enqueue("s1", "a-plus-b", "python", GOOD, "submit")
    result = await service.wait(second, JUDGED_WITHIN_S)
    assert result is not None and result.status == "done", result
    assert result.verdict == "AC" and result.passed == result.total == 4
    assert result.revision == 2
    assert result.diff is not None and "-print(a - b)" in result.diff
    assert result.diff_summary is not None and "+1/-1 lines" in result.diff_summary
    assert "WA 0/4 -> AC, passed 4/4" in result.diff_summary
    assert result.image.startswith("bwrap") and result.code == GOOD

    # The accepted code is timed after its verdict is out (complexity_measured): wait for it.
    for _ in range(JUDGED_WITHIN_S * 10):
        events = await EventLog(aredis).range("s1")
        if events and events[-1]["type"] == "complexity_measured":
            break
        await asyncio.sleep(0.1)
    kinds = [e["type"] for e in events]
    # the WA stops at the sample tier: 1 case; the AC runs all 4; the timing never comes first
    assert kinds == (["judge_case", "judge_result"] + ["judge_case"] * 4 + ["judge_result"]
                     + ["complexity_measured"])
    assert [e["seq"] for e in events] == sorted(e["seq"] for e in events)
    assert events[-1]["submission_id"] == second
    final = events[-2]
    assert final["submission_id"] == second and final["verdict"] == "AC"
    hidden = [c for c in final["cases"] if c["kind"] == "hidden"]
    assert hidden and all("input" not in c and "expected" not in c for c in hidden)
    assert final["cases"][0]["input"] == "1 2\n"  # samples stay visible


async def test_a_heartbeat_that_loses_its_cancel_does_not_stop_the_worker(
        aredis: aioredis.Redis, small_registry: ProblemRegistry) -> None:
    from judge.queue import Job
    from judge.worker import Worker
    from tests.lost_cancel import StuckCall, finishes

    stuck = StuckCall()  # a heartbeat's Redis call that loses its cancel, as one did on CI

    class SwallowingQueue(JobQueue):
        async def heartbeat(self, consumer: str, message_id: str) -> None:
            await stuck()

    class SlowWorker(Worker):
        async def process(self, job: Job) -> None:
            await asyncio.sleep(0.05)  # long enough for a heartbeat to be in its call

    async def no_backend() -> bubblewrap.BubblewrapBackend:
        raise AssertionError("not reached")

    worker = SlowWorker(aredis, small_registry, no_backend, heartbeat_ms=10)
    worker.queue = SwallowingQueue(aredis)
    # 15 s: a re-cancel comes after 2 s.
    handled = await finishes(worker.handle(Job("0-1", "no-such-submission")), 15)
    assert handled is not None and worker.processed == 1 and stuck.lost == 1


async def test_run_kind_judges_samples_only(service: JudgeService) -> None:
    service.start_worker()
    sid = await service.enqueue("s2", "a-plus-b", "python", GOOD, "run")
    result = await service.wait(sid, JUDGED_WITHIN_S)
    assert result is not None and result.total == 1 and result.verdict == "AC"


async def test_dead_workers_job_is_reclaimed_and_finished_once(
        service: JudgeService, aredis: aioredis.Redis) -> None:
    sid = await service.enqueue("s3", "a-plus-b", "python", GOOD, "submit")
    # A worker takes the job and dies without acknowledging it.
    taken = await JobQueue(aredis).read("dead-worker", block_ms=100)
    assert [j.submission_id for j in taken] == [sid]
    assert await service.queue.pending_count() == 1
    worker = service.start_worker(reclaim_idle_ms=300, heartbeat_ms=100)
    result = await service.wait(sid, JUDGED_WITHIN_S)
    assert result is not None and result.status == "done" and result.verdict == "AC"
    await asyncio.sleep(0.5)
    assert await service.queue.pending_count() == 0
    assert worker.processed == 1
    results = [e for e in await EventLog(aredis).range("s3") if e["type"] == "judge_result"]
    assert len(results) == 1
    # a late duplicate finish is refused
    assert await service.store.finish(result) is False


async def test_enqueue_refuses_bad_input(service: JudgeService) -> None:
    with pytest.raises(JudgeError) as bad_language:
        await service.enqueue("s4", "a-plus-b", "cobol", GOOD, "submit")
    assert bad_language.value.code == "unsupported_language"
    with pytest.raises(JudgeError) as too_large:
        await service.enqueue("s4", "a-plus-b", "python", "#" * (64 * 1024 + 1), "submit")
    assert too_large.value.kind == "too_large"
    with pytest.raises(JudgeError) as missing:
        await service.enqueue("s4", "no-such-problem", "python", GOOD, "submit")
    assert missing.value.kind == "not_found"
    with pytest.raises(JudgeError) as empty:
        await service.enqueue("s4", "a-plus-b", "python", "   ", "submit")
    assert empty.value.code == "empty_code"


async def test_fails_closed_without_a_sandbox(aredis: aioredis.Redis,
                                              small_registry: ProblemRegistry,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bubblewrap, "BWRAP", "/nonexistent/bwrap")
    await aredis.delete("judge:workers")  # no worker elsewhere (earlier tests' beats)
    svc = JudgeService(aredis, small_registry, backend_choice="bwrap")
    assert await svc.get_backend(required=False) is None
    assert svc.backend_name == "none"
    with pytest.raises(JudgeError) as refused:
        await svc.enqueue("s5", "a-plus-b", "python", GOOD, "submit")
    assert refused.value.kind == "unavailable"
    assert "refuses" in refused.value.message and "bubblewrap is not installed" in \
        refused.value.message
    await svc.aclose()


async def test_an_app_without_a_sandbox_enqueues_for_live_workers(
        aredis: aioredis.Redis, small_registry: ProblemRegistry,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """docker-compose: app processes have no sandbox; `viva worker`s elsewhere judge."""
    monkeypatch.setattr(bubblewrap, "BWRAP", "/nonexistent/bwrap")
    await aredis.delete("judge:workers")
    queue = JobQueue(aredis)
    # A worker that beat an hour ago is dead: not counted, and nothing is accepted for it.
    await aredis.zadd("judge:workers", {"dead-worker": 1})
    assert await queue.live_consumers() == 0
    svc = JudgeService(aredis, small_registry, backend_choice="bwrap")
    with pytest.raises(JudgeError):
        await svc.enqueue("s6", "a-plus-b", "python", GOOD, "run")
    await queue.beat("remote-worker-1")
    assert await queue.live_consumers() == 1
    submission_id = await svc.enqueue("s6", "a-plus-b", "python", GOOD, "run")
    assert (await svc.get(submission_id)) is not None
    # Take the job off the shared test queue so no later test's worker finds it.
    for job in await queue.read("test-cleanup", block_ms=200, count=50):
        if job.submission_id == submission_id:
            await queue.ack(job.message_id)
    await aredis.delete("judge:workers")
    await svc.aclose()
