"""Measured complexity: an accepted submission run in the sandbox on the problem's generator
at growing n, and the growth exponent fitted to its CPU times.

The problem's ``measure`` block names the generator parameters that grow with n and the
largest input; the ladder runs n/4096, n/2048, ... n in one sandbox job (one compile), smallest
first, and stops before a run that would not fit the budget (``BUDGET_MS`` of sandbox wall
time for compile and runs together, though the runs get at least ``MIN_RUNS_MS`` after a
slow compile) or after one that took ``STOP_MS``. The exponent is the
least-squares slope of log(time - startup) on log n over the largest sizes whose time stands
clear of the startup (the smallest run's time). A solution still fast at the largest input
(less than ``EXTEND_BELOW_MS`` above the startup, where scheduling noise bends the slope)
carries on to 2, 4 and 8 times that n while the budget lasts. It runs after the verdict,
never before it.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections import OrderedDict
from collections.abc import AsyncIterator
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
EXTEND_BELOW_MS = 250  # a largest run this far above the startup is clear of the noise
BEYOND = 3  # doublings past the problem's largest input for a fast solution
BEYOND_MAX_BYTES = 10_000_000  # ...while the input stays this small (generated in-process)
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


_BEYOND: OrderedDict[str, dict[int, bytes]] = OrderedDict()  # tens of MB each: the last two


def _beyond(problem: Problem) -> dict[int, bytes]:
    """Inputs at 2, 4 and 8 times the problem's largest n (the varied parameters together);
    fewer when the input would pass ``BEYOND_MAX_BYTES`` or the generator refuses a size."""
    spec = problem.measure
    assert spec is not None
    if problem.id in _BEYOND:
        _BEYOND.move_to_end(problem.id)
        return _BEYOND[problem.id]
    out: dict[int, bytes] = {}
    size = len(_input(problem, spec.generate))
    for step in range(1, BEYOND + 1):
        size *= 2
        if size > BEYOND_MAX_BYTES:
            break
        params = {k: (int(v) << step if k in spec.vary else v) for k, v in spec.generate.items()}
        try:
            data = generate_input(problem, params).encode()
        except Exception:  # noqa: BLE001 - a generator bounded by the constraints: stop here
            break
        out[int(params[spec.vary[0]])] = data
    _BEYOND[problem.id] = out
    while len(_BEYOND) > 2:
        _BEYOND.popitem(last=False)
    return out


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
    inputs = {n: _input(problem, params).encode() for n, params in sizes}
    limits = run_limits(problem, executor).model_copy(
        update={"cpu_ms": STOP_MS * 2, "wall_ms": STOP_MS * 4})

    def job(ns: list[int]) -> SandboxJob:
        return SandboxJob(executor=executor, files={executor.source_name: code},
                          run_limits=limits, compile_limits=compile_limits(executor),
                          inputs=[(f"{n}#{i}", inputs[n]) for i, n in enumerate(ns)])

    runs = _Runs(budget_ms)
    try:
        failed = await runs.ladder(backend, job([n for n, _ in sizes]))
        if failed:
            return Measurement("failed", sandbox_ms=runs.spent, reason=failed)
        largest = sizes[-1][0]
        if largest in runs.cpu and not runs.clear_of_noise():
            # A fast solution: ~70 ms above a ~30 ms startup at the largest n is mostly noise
            # on a shared machine, so carry on past the problem's largest input (a solution
            # that cannot take the bigger input just stops there: the sizes below stand).
            beyond = await asyncio.to_thread(_beyond, problem)
            inputs.update(beyond)
            if beyond:
                await runs.ladder(backend, job(list(beyond)), first=False)
    except SandboxUnavailable as exc:
        return Measurement("failed", reason=str(exc))
    points = runs.points()
    exponent, status = fit(points)
    return Measurement(status, exponent=exponent,
                       ratio=round(2 ** exponent, 2) if exponent is not None else None,
                       points=points, sandbox_ms=runs.spent)


class _Runs:
    """The CPU and wall times per n of one measurement and the sandbox time it has spent."""

    def __init__(self, budget_ms: int) -> None:
        self.budget_ms = budget_ms
        self.spent = 0
        self.cpu: dict[int, int] = {}

    def points(self) -> list[tuple[int, int]]:
        return sorted(self.cpu.items())

    async def _events(self, backend: SandboxBackend,
                      job: SandboxJob) -> AsyncIterator[CompileDone | CaseDone]:
        events = backend.execute(job)
        try:
            async for event in events:
                if isinstance(event, CompileDone):
                    self.spent += event.record.wall_ms
                else:
                    assert isinstance(event, CaseDone)
                    self.spent += event.record.wall_ms
                yield event
        finally:
            with contextlib.suppress(Exception):
                await events.aclose()  # type: ignore[attr-defined]

    def _keep(self, event: CaseDone) -> bool:
        record = event.record
        if record.exit_code != 0 or record.timed_out or record.error:
            return False  # a limit or a crash at this size: the sizes below are what we have
        n = int(event.case_id.split("#")[0])
        self.cpu[n] = record.cpu_ms
        return True

    async def ladder(self, backend: SandboxBackend, job: SandboxJob,
                     first: bool = True) -> str | None:
        """Smallest n first, stopping before a run that would break the budget (a slow
        compile earns the runs ``MIN_RUNS_MS`` once, on the first job)."""
        async for event in self._events(backend, job):
            if isinstance(event, CompileDone):
                if event.record.exit_code != 0 or event.record.error:
                    return "did not compile"
                if first:
                    self.budget_ms = max(self.budget_ms, self.spent + MIN_RUNS_MS)
                continue
            if not self._keep(event):
                break
            points = self.points()
            # The next run is twice the n: stop before it would break the budget.
            grow = (points[-1][1] / points[-2][1]) if len(points) >= 2 and points[-2][1] else 4
            next_ms = 1.5 * event.record.wall_ms * min(max(grow, 2.0), 8.0)  # 1.5: a margin
            if event.record.cpu_ms >= STOP_MS or self.spent + next_ms > self.budget_ms:
                break
        return None

    def clear_of_noise(self) -> bool:
        """Whether the largest run stands far enough above the startup for its slope to hold."""
        points = self.points()
        return len(points) >= 2 and points[-1][1] - points[0][1] >= EXTEND_BELOW_MS
