"""Typed records that cross the judge's module boundaries: verdicts, limits, runs, results."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

CaseKind = Literal["sample", "hidden", "performance"]
SubmissionKind = Literal["run", "submit"]
Status = Literal["queued", "running", "done"]
TIER_ORDER: tuple[CaseKind, ...] = ("sample", "hidden", "performance")


class Verdict(StrEnum):
    """The closed set of verdicts (for a case and for a submission)."""

    AC = "AC"  # accepted
    WA = "WA"  # wrong answer
    TLE = "TLE"  # time limit exceeded (CPU or wall)
    MLE = "MLE"  # memory limit exceeded
    RE = "RE"  # runtime error: non-zero exit or a signal
    CE = "CE"  # compilation error
    OLE = "OLE"  # output limit exceeded
    IE = "IE"  # internal error: the judge failed, not the candidate


class RunLimits(BaseModel):
    """Limits for one process run inside a sandbox. Passed explicitly to every backend."""

    cpu_ms: int = 2000
    wall_ms: int = 5000
    memory_bytes: int = 256 * 1024 * 1024
    pids: int = 64
    output_bytes: int = 8 * 1024 * 1024  # stdout cap; more is OLE
    stderr_bytes: int = 64 * 1024  # stderr is kept up to this, the rest dropped
    file_bytes: int = 16 * 1024 * 1024  # largest file a program may write (RLIMIT_FSIZE)
    tmp_bytes: int = 64 * 1024 * 1024  # private writable /tmp

    @property
    def stack_bytes(self) -> int:
        """The stack's limit: half the memory, at most 256 MiB. A runaway recursion then
        overflows the stack, a crash whose site the debug build names ("a stack overflow on
        line 5"), before the memory limit kills it with no site at all; a deep but finite
        recursion still has room (a million small frames)."""
        return min(self.memory_bytes // 2, 256 * 1024 * 1024)


class RunRecord(BaseModel):
    """What a backend reports for one process run; the same shape on every backend."""

    exit_code: int | None = None
    signal: int | None = None
    wall_ms: int = 0
    cpu_ms: int = 0
    memory_kb: int = 0
    timed_out: bool = False  # killed at the wall limit
    oom_killed: bool = False
    output_exceeded: bool = False
    stdout: bytes = b""
    stderr: str = ""
    error: str | None = None  # the sandbox itself failed (an IE, never the candidate's fault)


class TestCase(BaseModel):
    id: str
    kind: CaseKind
    input: str
    output: str
    note: str | None = None


class CompileResult(BaseModel):
    ok: bool
    log: str = ""
    line: int | None = None  # first error line, when the compiler names one
    message: str | None = None
    time_ms: int = 0


class Fault(BaseModel):
    """What a crash was and the candidate's line it happened on (``judge.faults``)."""

    kind: Literal["exception", "panic", "signal", "sanitizer", "exit"]
    name: str  # "ZeroDivisionError", "index out of range", "SIGSEGV", "std::out_of_range"
    message: str | None = None  # the runtime's short detail
    line: int | None = None  # 1-based, in the candidate's source file


class InputSize(BaseModel):
    """How big a case's input is, without its content: the first line's first integer (the
    problem's n, t, ...) and the byte count. A public view rounds ``n`` of a hidden or
    performance case to two significant digits (for a one-number input, n is the input)."""

    n: int | None = None
    bytes: int = 0
    rounded: bool = False

    @classmethod
    def of(cls, data: str) -> InputSize:
        first = data.split("\n", 1)[0].split()
        n = int(first[0]) if first and first[0].lstrip("-").isdigit() else None
        return cls(n=n, bytes=len(data.encode()))

    def public(self) -> InputSize:
        if self.n is None or abs(self.n) < 100:
            return self
        digits = len(str(abs(self.n)))
        step = 10 ** (digits - 2)
        rounded = round(self.n / step) * step
        return InputSize(n=rounded, bytes=round(self.bytes, -2) if self.bytes > 1000
                         else self.bytes, rounded=rounded != self.n)


class CaseResult(BaseModel):
    """One judged case. A hidden or performance case's ``input``, ``expected``, ``actual``,
    ``stderr``, ``error``, ``checker_message`` and ``fault`` are removed from public views
    (its ``input_size`` stays, rounded)."""

    id: str
    kind: CaseKind
    verdict: Verdict
    time_ms: int
    memory_kb: int
    exit_code: int | None = None
    signal: int | None = None
    input: str | None = None
    expected: str | None = None
    actual: str | None = None
    stderr: str | None = None  # the program's stderr (its tail, capped): a traceback
    error: str | None = None  # stderr tail or the reason (e.g. "killed at the wall limit")
    checker_message: str | None = None
    fault: Fault | None = None  # a runtime error: what and the candidate's line
    input_size: InputSize | None = None


class SubmissionResult(BaseModel):
    """The contract's submission result (the reviewer view; see ``public_view``)."""

    submission_id: str
    session_id: str | None = None
    problem_id: str
    language: str
    kind: SubmissionKind
    status: Status = "queued"
    verdict: Verdict | None = None
    passed: int = 0
    total: int = 0
    revision: int = 1
    compile: CompileResult = Field(default_factory=lambda: CompileResult(ok=True))
    cases: list[CaseResult] = Field(default_factory=list)
    evidence_text: str = ""
    diff: str | None = None
    diff_summary: str | None = None
    error: str | None = None  # why the judge itself failed (verdict IE); never the candidate
    image: str = ""
    backend: str = ""
    code: str = ""
    created_ms: int = 0
    finished_ms: int | None = None
    execution: str = "seconds"

    def public_view(self) -> dict[str, object]:
        """What a session token may see: hidden/performance cases reduced to verdict + figures."""
        data = self.model_dump(mode="json")
        data["cases"] = [public_case(c) for c in self.cases]
        data["evidence_text"] = public_evidence(self)
        return data


def public_case(case: CaseResult) -> dict[str, object]:
    data = case.model_dump(mode="json")
    if case.kind != "sample":
        for key in ("input", "expected", "actual", "stderr", "error", "checker_message",
                    "fault"):
            data.pop(key, None)
        if case.input_size is not None:
            data["input_size"] = case.input_size.public().model_dump(mode="json")
    return data


def public_evidence(result: SubmissionResult) -> str:
    # Imported late: evidence formats text and depends on this module.
    from judge.evidence import evidence_text

    return evidence_text(result, reveal_hidden=False)
