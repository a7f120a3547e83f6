"""The sandbox port's contract under fast output: every case reported once, in order.

A submission whose cases finish within milliseconds of each other (the bank's reference
solutions on small inputs) used to lose or repeat result lines on Docker: the backend read
the runner's output with ``attach(logs=True, stream=True)``, which replays the log and then
attaches to the live stream, and a line printed between the two is dropped or sent twice.
The tiered run then counted fewer (or more) passes than cases and answered IE with no error.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest

from judge.backends.base import (
    BackendStatus,
    CaseDone,
    CompileDone,
    SandboxBackend,
    SandboxEvent,
    SandboxJob,
)
from judge.backends.docker_engine import DockerBackend
from judge.languages.base import Executor
from judge.models import RunLimits, RunRecord, Verdict
from judge.problems import load_problem
from judge.tiered_run import compile_limits, judge_code

from .conftest import write_problem

CAT = Executor(name="cat", source_name="main.txt", run=("/bin/cat",))


def _cat_job(tag: str, cases: int = 150) -> SandboxJob:
    """``cases`` inputs echoed back by /bin/cat: one result line every few milliseconds."""
    limits = RunLimits(cpu_ms=1000, wall_ms=3000, memory_bytes=64 << 20, pids=16,
                       output_bytes=1 << 16)
    return SandboxJob(executor=CAT, files={CAT.source_name: ""}, run_limits=limits,
                      compile_limits=compile_limits(CAT),
                      inputs=[(f"{tag}-{i}", f"{tag} {i}\n".encode()) for i in range(cases)])


async def _events(backend: SandboxBackend, job: SandboxJob) -> list[SandboxEvent]:
    return [event async for event in backend.execute(job)]


def _assert_every_case_once(job: SandboxJob, events: list[SandboxEvent]) -> None:
    cases = [e for e in events if isinstance(e, CaseDone)]
    got = [c.case_id for c in cases]
    want = [case_id for case_id, _ in job.inputs]
    missing = sorted(set(want) - set(got))
    repeated = sorted({i for i in got if got.count(i) > 1})
    assert got == want, (f"{len(got)} results for {len(want)} cases; missing {missing[:8]}, "
                         f"repeated {repeated[:8]}")
    for case, (_, data) in zip(cases, job.inputs, strict=True):
        assert case.record.error is None and case.record.exit_code == 0
        assert case.record.stdout == data


@pytest.mark.slow
async def test_bwrap_reports_every_fast_case_once(bwrap: SandboxBackend) -> None:
    job = _cat_job("bwrap")
    _assert_every_case_once(job, await _events(bwrap, job))


@pytest.mark.slow
@pytest.mark.docker
async def test_docker_reports_every_case_once_when_the_host_reads_late(
        docker: SandboxBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm container starts the job the moment it lands (the server's second submission
    on a problem); a busy host (the same process transcribes and speaks) starts reading a
    moment later, mid-output. Every line must still arrive exactly once. Before the fix,
    about half of these jobs lost, repeated or cut a line."""
    warm = DockerBackend(pool_size=1)
    acquire = warm._acquire

    def acquire_then_stall(job: SandboxJob):
        taken = acquire(job)
        time.sleep(0.3)  # the host is busy: the runner is already printing
        return taken

    monkeypatch.setattr(warm, "_acquire", acquire_then_stall)
    try:
        for round_ in range(8):
            job = _cat_job(f"late{round_}", cases=300)
            _assert_every_case_once(job, await _events(warm, job))
        for round_ in range(2):  # a cold container: started, then read
            job = _cat_job(f"cold{round_}")
            _assert_every_case_once(job, await _events(docker, job))
    finally:
        await warm.aclose()


class _ScriptedBackend(SandboxBackend):
    """Replays a fixed event list, as a misbehaving sandbox would report it."""

    name = "scripted"

    def __init__(self, keep):
        self.keep = keep

    async def status(self) -> BackendStatus:
        return BackendStatus(self.name, True)

    async def execute(self, job: SandboxJob) -> AsyncIterator[SandboxEvent]:
        ok = RunRecord(exit_code=0, stdout=b"hello 3\n")
        yield CompileDone(RunRecord(exit_code=0))
        for case_id in self.keep([case_id for case_id, _ in job.inputs]):
            yield CaseDone(case_id, ok)


@pytest.fixture
def same_output_problem(tmp_path):
    return load_problem(write_problem(tmp_path, [
        ("sample", "1 2\n", "hello 3\n"), ("hidden", "2 1\n", "hello 3\n"),
        ("hidden", "0 3\n", "hello 3\n"), ("performance", "3 0\n", "hello 3\n")]))


async def test_missing_results_are_an_internal_error_that_says_which(same_output_problem) -> None:
    outcome = await judge_code(same_output_problem, "python", "print('hello 3')\n", "submit",
                               _ScriptedBackend(lambda ids: ids[:1] + ids[2:]))
    assert outcome.verdict == Verdict.IE
    assert outcome.error == "the sandbox reported 3 of 4 cases; no result for hidden-1"


async def test_repeated_results_are_an_internal_error_not_extra_passes(
        same_output_problem) -> None:
    outcome = await judge_code(same_output_problem, "python", "print('hello 3')\n", "submit",
                               _ScriptedBackend(lambda ids: ids[:2] + ids[1:]))
    assert outcome.verdict == Verdict.IE
    assert outcome.error and "hidden-1" in outcome.error and "twice" in outcome.error
    ids = [c.id for c in outcome.cases]
    assert len(ids) == len(set(ids)) and outcome.passed <= outcome.total
