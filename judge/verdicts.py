"""From a backend's run record and a checker to one verdict (DMOJ-style closed set)."""

from __future__ import annotations

from dataclasses import dataclass

from judge.backends.base import signal_name
from judge.checkers import Checker
from judge.models import RunLimits, RunRecord, TestCase, Verdict


@dataclass(frozen=True)
class CaseOutcome:
    verdict: Verdict
    error: str | None = None
    checker_message: str | None = None


def _stderr_tail(record: RunRecord, lines: int = 6) -> str | None:
    text = record.stderr.strip()
    if not text:
        return None
    return "\n".join(text.splitlines()[-lines:])[-800:]


def case_verdict(record: RunRecord, limits: RunLimits, test: TestCase,
                 checker: Checker) -> CaseOutcome:
    """Limits first (they explain a crash), then the exit status, then the checker."""
    if record.error:
        return CaseOutcome(Verdict.IE, record.error)
    if record.output_exceeded:
        return CaseOutcome(Verdict.OLE, f"more than {limits.output_bytes} bytes of output")
    if record.oom_killed or record.memory_kb * 1024 > limits.memory_bytes:
        return CaseOutcome(Verdict.MLE, f"peak memory {record.memory_kb} KB")
    if record.timed_out:
        return CaseOutcome(Verdict.TLE, f"killed at the wall limit of {limits.wall_ms} ms")
    if record.cpu_ms > limits.cpu_ms or signal_name(record.signal) == "SIGXCPU":
        return CaseOutcome(Verdict.TLE, f"CPU time {record.cpu_ms} ms over {limits.cpu_ms} ms")
    if record.signal is not None:
        return CaseOutcome(Verdict.RE, f"killed by {signal_name(record.signal)}"
                           + (f": {_stderr_tail(record)}" if _stderr_tail(record) else ""))
    if record.exit_code != 0:
        return CaseOutcome(Verdict.RE, _stderr_tail(record) or f"exit code {record.exit_code}")
    actual = record.stdout.decode("utf-8", "replace")
    checked = checker(test.input, test.output, actual)
    if not checked.ok:
        return CaseOutcome(Verdict.WA, _stderr_tail(record), checked.message)
    return CaseOutcome(Verdict.AC)
