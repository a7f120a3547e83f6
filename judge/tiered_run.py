"""The tiered run (seed 003 §4.3): compile → samples → hidden → performance.

``run`` judges the samples only; ``submit`` all tiers. A tier with a failure is finished (so
the evidence shows its failing cases) and the next tiers are skipped; a TLE ends its tier at
once (every further case would burn the whole limit). ``manual`` problems compile only.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from judge.backends.base import (
    CaseDone,
    CompileDone,
    SandboxBackend,
    SandboxJob,
    SandboxUnavailable,
)
from judge.checkers import checker_for
from judge.faults import fault_of, sanitizer_fault
from judge.languages import executor_for
from judge.languages.base import (
    COMPILE_CPU_MS,
    COMPILE_MEMORY,
    COMPILE_WALL_MS,
    Executor,
)
from judge.models import (
    TIER_ORDER,
    CaseResult,
    CompileResult,
    Fault,
    InputSize,
    RunLimits,
    SubmissionKind,
    TestCase,
    Verdict,
)
from judge.problems import Problem, resolve_tests
from judge.verdicts import case_verdict

CaseCallback = Callable[[CaseResult], Awaitable[None]]
MAX_ACTUAL = 4096  # actual output kept per case in evidence
MAX_STDERR = 4096  # stderr kept per case: its tail, where a traceback names the error


@dataclass
class Outcome:
    compile: CompileResult
    cases: list[CaseResult] = field(default_factory=list)
    verdict: Verdict | None = None
    passed: int = 0
    total: int = 0
    image: str = ""
    backend: str = ""
    error: str | None = None


def run_limits(problem: Problem, executor: Executor) -> RunLimits:
    cpu_ms = int(problem.time_ms * executor.time_factor)
    return RunLimits(
        cpu_ms=cpu_ms,
        wall_ms=cpu_ms * 2 + 1000,
        memory_bytes=(problem.limits.memory_mb + executor.memory_extra_mb) * 1024 * 1024,
        pids=executor.pids,
        output_bytes=problem.limits.output_kb * 1024,
    )


def compile_limits(executor: Executor) -> RunLimits:
    return RunLimits(cpu_ms=COMPILE_CPU_MS, wall_ms=COMPILE_WALL_MS, memory_bytes=COMPILE_MEMORY,
                     pids=executor.compile_pids, output_bytes=256 * 1024,
                     stderr_bytes=64 * 1024, file_bytes=256 * 1024 * 1024,
                     tmp_bytes=512 * 1024 * 1024)


def _compile_result(executor: Executor, done: CompileDone) -> CompileResult:
    record = done.record
    log = (record.stderr + "\n" + record.stdout.decode("utf-8", "replace")).strip()
    if record.error:
        return CompileResult(ok=False, log=log, message=f"judge error: {record.error}",
                             time_ms=record.wall_ms)
    if record.timed_out or record.cpu_ms > COMPILE_CPU_MS:
        return CompileResult(ok=False, log=log, time_ms=record.wall_ms,
                             message="compilation took too long (compile-time limit)")
    if record.oom_killed:
        return CompileResult(ok=False, log=log, time_ms=record.wall_ms,
                             message="compilation used too much memory")
    if record.output_exceeded:
        return CompileResult(ok=False, log=log[:65536], time_ms=record.wall_ms,
                             message="the compiler produced too much output")
    if record.exit_code != 0:
        line, message = executor.first_error(log)
        if record.signal is not None and message is None:
            message = f"the compiler was killed by signal {record.signal}"
        return CompileResult(ok=False, log=log, line=line, message=message,
                             time_ms=record.wall_ms)
    return CompileResult(ok=True, log=log, time_ms=record.wall_ms)


async def judge_code(problem: Problem, language: str, code: str, kind: SubmissionKind,
                     backend: SandboxBackend, on_case: CaseCallback | None = None) -> Outcome:
    """Judge ``code`` against ``problem`` on ``backend``; ``on_case`` sees each case result."""
    executor = executor_for(language)
    tiers = ("sample",) if kind == "run" else TIER_ORDER
    tests = [t for t in resolve_tests(problem) if t.kind in tiers]
    tests.sort(key=lambda t: TIER_ORDER.index(t.kind))
    if problem.execution == "manual":
        tests = []
    limits = run_limits(problem, executor)
    checker = checker_for(problem.checker, problem.directory)
    outcome = Outcome(compile=CompileResult(ok=True), total=len(tests), image=backend.image,
                      backend=backend.name)
    job = SandboxJob(executor=executor, files={executor.source_name: code}, run_limits=limits,
                     compile_limits=compile_limits(executor),
                     inputs=[(t.id, t.input.encode()) for t in tests])
    by_id: dict[str, TestCase] = {t.id: t for t in tests}
    failed_tier: str | None = None
    reported: set[str] = set()
    events = backend.execute(job)
    try:
        async for event in events:
            if isinstance(event, CompileDone):
                outcome.compile = _compile_result(executor, event)
                if not outcome.compile.ok:
                    if event.record.error:
                        outcome.verdict, outcome.error = Verdict.IE, event.record.error
                    else:
                        outcome.verdict = Verdict.CE
                    break
                continue
            assert isinstance(event, CaseDone)
            if event.case_id in reported or event.case_id not in by_id:
                # The sandbox's report is inconsistent: no verdict can be read from it.
                outcome.verdict = Verdict.IE
                outcome.error = (f"the sandbox reported case {event.case_id} twice"
                                 if event.case_id in reported else
                                 f"the sandbox reported an unknown case {event.case_id!r}")
                break
            reported.add(event.case_id)
            test = by_id[event.case_id]
            if failed_tier is not None and test.kind != failed_tier:
                break  # the failing tier is complete: skip the rest
            result = _case_result(executor, test, event, limits, checker)
            if _needs_diagnosis(executor, result):
                result.fault = await diagnose(executor, code, test, limits, backend,
                                              result.fault)
            outcome.cases.append(result)
            if on_case is not None:
                await on_case(result)
            if result.verdict != Verdict.AC:
                if outcome.verdict is None and result.verdict == Verdict.IE:
                    outcome.error = result.error  # the sandbox's own failure, said once
                outcome.verdict = outcome.verdict or result.verdict
                failed_tier = test.kind
                if result.verdict == Verdict.TLE:
                    break
    except SandboxUnavailable as exc:
        outcome.verdict = Verdict.IE
        outcome.error = str(exc)
    finally:
        with contextlib.suppress(Exception):
            await events.aclose()  # type: ignore[attr-defined]
    outcome.image = backend.image
    outcome.passed = sum(1 for c in outcome.cases if c.verdict == Verdict.AC)
    if outcome.verdict is None and problem.execution != "manual":
        if outcome.passed == outcome.total:
            outcome.verdict = Verdict.AC
        else:  # every reported case passed, but some were never reported
            missing = [t.id for t in tests if t.id not in reported]
            outcome.verdict = Verdict.IE
            outcome.error = (f"the sandbox reported {len(reported)} of {outcome.total} cases; "
                             f"no result for {', '.join(missing[:5])}"
                             + (f" and {len(missing) - 5} more" if len(missing) > 5 else ""))
    return outcome


def _needs_diagnosis(executor: Executor, result: CaseResult) -> bool:
    """A crashing sample in a language that cannot say where (C/C++): worth a debug run.
    Samples only: a hidden case's crash site is not shown to the candidate anyway."""
    return (executor.diagnose is not None and result.kind == "sample"
            and result.verdict == Verdict.RE
            and (result.fault is None or result.fault.line is None))


DIAGNOSE_MEMORY = 512 * 1024 * 1024  # a sanitizer's shadow and bookkeeping, above the limit


async def diagnose(executor: Executor, code: str, test: TestCase, limits: RunLimits,
                   backend: SandboxBackend, known: Fault | None) -> Fault | None:
    """Build ``code`` with the executor's debug build and run ``test`` again, for the crash
    site. Runs only after a crash on a sample (a few seconds, on that path alone); any
    trouble keeps what the plain run knew."""
    assert executor.diagnose is not None
    debug = dataclasses.replace(executor, compile=executor.diagnose,
                                env=executor.env + executor.diagnose_env)
    run = limits.model_copy(update={"cpu_ms": limits.cpu_ms * 5, "wall_ms": limits.wall_ms * 5,
                                    "memory_bytes": limits.memory_bytes + DIAGNOSE_MEMORY})
    job = SandboxJob(executor=debug, files={executor.source_name: code}, run_limits=run,
                     compile_limits=compile_limits(executor),
                     inputs=[(test.id, test.input.encode())])
    found: Fault | None = None
    events = backend.execute(job)
    try:
        async for event in events:
            if isinstance(event, CompileDone) and event.record.exit_code != 0:
                return known
            if isinstance(event, CaseDone):
                found = sanitizer_fault(event.record.stderr)
    except SandboxUnavailable:
        return known
    finally:
        with contextlib.suppress(Exception):
            await events.aclose()  # type: ignore[attr-defined]
    if found is None or found.line is None:
        return known
    if known is not None and known.kind == "signal" and found.kind == "sanitizer":
        # The signal is what the candidate saw; the sanitizer names the cause and the line.
        return found.model_copy(update={"message": known.name})
    return found


def _case_result(executor: Executor, test: TestCase, event: CaseDone, limits: RunLimits,
                 checker) -> CaseResult:
    record = event.record
    verdict = case_verdict(record, limits, test, checker)
    actual = record.stdout[:MAX_ACTUAL].decode("utf-8", "replace")
    return CaseResult(
        id=test.id, kind=test.kind, verdict=verdict.verdict, time_ms=record.cpu_ms,
        memory_kb=record.memory_kb, exit_code=record.exit_code, signal=record.signal,
        input=test.input[:MAX_ACTUAL], expected=test.output[:MAX_ACTUAL], actual=actual,
        stderr=record.stderr[-MAX_STDERR:] or None, error=verdict.error,
        checker_message=verdict.checker_message,
        fault=fault_of(executor.name, record) if verdict.verdict == Verdict.RE else None,
        input_size=InputSize.of(test.input),
    )
