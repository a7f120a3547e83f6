"""Measured complexity: an accepted submission run in the sandbox on the problem's generator
at growing n, and the growth exponent fitted to its CPU times.

The problem's ``measure`` block names the generator parameters that grow with n and the
largest input; the ladder runs n/4096, n/2048, ... n in one sandbox job (one compile), smallest
first, and stops before a run that would not fit the budget (``BUDGET_MS`` of sandbox wall
time for compile and runs together, though the runs get at least ``MIN_RUNS_MS`` after a
slow compile) or after one that took ``STOP_MS``. The exponent is the
least-squares slope of log(time - startup) on log n over the largest sizes whose time stands
clear of the startup (the smallest run's time). It runs after the verdict, never before it.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Any, Literal

from judge.backends.base import (
    CaseDone,
    CompileDone,
    SandboxBackend,
    SandboxJob,
    SandboxUnavailable,
)
from judge.languages import executor_for
from judge.problems import Problem, generate_input
from judge.tiered_run import compile_limits, run_limits

BUDGET_MS = 5000
MIN_RUNS_MS = 1000
STOP_MS = 1200  # a run this slow is enough: the next (twice the n) would cost 2-8x more
STEPS = 12  # n / 2**12 .. n: a quadratic one gets a few sizes under STOP_MS too
MIN_SIGNAL_MS = 15  # a time this close to the startup time is noise, not growth
FIT_POINTS = 4
Status = Literal["measured", "too_fast", "unavailable", "failed"]


@dataclass
class Measurement:
    status: Status
    exponent: float | None = None
    ratio: float | None = None  # time growth when n doubles (2 ** exponent)
    points: list[tuple[int, int]] = field(default_factory=list)  # (n, cpu ms)
    sandbox_ms: int = 0
    reason: str | None = None

    def event_fields(self) -> dict[str, Any]:
        return {"status": self.status, "exponent": self.exponent, "ratio": self.ratio,
                "points": [{"n": n, "ms": ms} for n, ms in self.points],
                "sandbox_ms": self.sandbox_ms, "reason": self.reason}


_INPUTS: dict[tuple[str, str], str] = {}  # generated inputs by (problem, params), per process


def ladder(problem: Problem) -> list[tuple[int, dict[str, Any]]]:
    """(n, generator params) from the smallest size to the problem's largest."""
    spec = problem.measure
    assert spec is not None
    out: list[tuple[int, dict[str, Any]]] = []
    for step in range(STEPS, -1, -1):
        params = {k: (max(1, int(v) >> step) if k in spec.vary else v)
                  for k, v in spec.generate.items()}
        n = int(params[spec.vary[0]])
        if not out or n != out[-1][0]:
            out.append((n, params))
    return out


def _input(problem: Problem, params: dict[str, Any]) -> str:
    key = (problem.id, repr(sorted(params.items())))
    if key not in _INPUTS:
        _INPUTS[key] = generate_input(problem, params)
    return _INPUTS[key]


def fit(points: list[tuple[int, int]]) -> tuple[float | None, Status]:
    """The growth exponent over the largest sizes standing clear of the startup time."""
    if len(points) < 2:
        return None, "failed"
    base = min(ms for _, ms in points[:2])
    floor = max(MIN_SIGNAL_MS, 0.04 * (points[-1][1] - base))
    usable = [(n, ms - base) for n, ms in points if ms - base >= floor]
    usable = usable[-FIT_POINTS:]
    if len(usable) < 2:
        return None, "too_fast"
    xs = [math.log(n) for n, _ in usable]
    ys = [math.log(t) for _, t in usable]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None, "too_fast"
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    return round(slope, 3), "measured"


async def measure(problem: Problem, language: str, code: str, backend: SandboxBackend,
                  budget_ms: int = BUDGET_MS) -> Measurement:
    """Time ``code`` on the problem's generator at growing n (see the module doc)."""
    if problem.measure is None or problem.directory is None:
        return Measurement("unavailable", reason="the problem has no measure block")
    executor = executor_for(language)
    sizes = ladder(problem)
    inputs = [(str(n), _input(problem, params).encode()) for n, params in sizes]
    limits = run_limits(problem, executor).model_copy(
        update={"cpu_ms": STOP_MS * 2, "wall_ms": STOP_MS * 4})
    job = SandboxJob(executor=executor, files={executor.source_name: code}, run_limits=limits,
                     compile_limits=compile_limits(executor), inputs=inputs)
    points: list[tuple[int, int]] = []
    spent = 0
    events = backend.execute(job)
    try:
        async for event in events:
            if isinstance(event, CompileDone):
                spent += event.record.wall_ms
                if event.record.exit_code != 0 or event.record.error:
                    return Measurement("failed", sandbox_ms=spent, reason="did not compile")
                budget_ms = max(budget_ms, spent + MIN_RUNS_MS)
                continue
            assert isinstance(event, CaseDone)
            record = event.record
            spent += record.wall_ms
            if record.exit_code != 0 or record.timed_out or record.error:
                break  # a limit or a crash at this size: the sizes below are what we have
            points.append((int(event.case_id), record.cpu_ms))
            # The next run is twice the n: stop before it would break the budget.
            grow = (points[-1][1] / points[-2][1]) if len(points) >= 2 and points[-2][1] else 4
            next_ms = 1.5 * record.wall_ms * min(max(grow, 2.0), 8.0)  # 1.5: a margin
            if record.cpu_ms >= STOP_MS or spent + next_ms > budget_ms:
                break
    except SandboxUnavailable as exc:
        return Measurement("failed", reason=str(exc))
    finally:
        with contextlib.suppress(Exception):
            await events.aclose()  # type: ignore[attr-defined]
    exponent, status = fit(points)
    return Measurement(status, exponent=exponent,
                       ratio=round(2 ** exponent, 2) if exponent is not None else None,
                       points=points, sandbox_ms=spent)
