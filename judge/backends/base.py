"""The sandbox port: every backend compiles and runs a job and reports the same records."""

from __future__ import annotations

import signal
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from judge.languages.base import Executor
from judge.models import RunLimits, RunRecord


class SandboxUnavailable(RuntimeError):
    """No sandbox can run this job; the judge refuses rather than run code unsandboxed."""


@dataclass(frozen=True)
class SandboxJob:
    """Everything a backend needs for one submission: source, limits and case inputs."""

    executor: Executor
    files: dict[str, str]
    run_limits: RunLimits
    compile_limits: RunLimits
    inputs: list[tuple[str, bytes]] = field(default_factory=list)
    compile: bool = True

    def box_files(self) -> dict[str, str]:
        """What is written into the box: the executor's support files, then the job's."""
        return {**dict(self.executor.support_files), **self.files}


@dataclass(frozen=True)
class CompileDone:
    record: RunRecord


@dataclass(frozen=True)
class CaseDone:
    case_id: str
    record: RunRecord


SandboxEvent = CompileDone | CaseDone


@dataclass(frozen=True)
class BackendStatus:
    name: str
    ok: bool
    reason: str = ""
    image: str = ""


class SandboxBackend(ABC):
    """A sandbox that runs untrusted code. ``execute`` yields a ``CompileDone`` (when the
    language compiles) and then one ``CaseDone`` per input, in order. The consumer may stop
    early (``aclose``): the backend then kills whatever still runs and cleans up."""

    name: str = "sandbox"

    @abstractmethod
    async def status(self) -> BackendStatus:
        """Whether this backend can run jobs now, and why not."""

    @abstractmethod
    def execute(self, job: SandboxJob) -> AsyncIterator[SandboxEvent]:
        """Compile (if needed) then run every input; yields records as they complete."""

    @property
    def image(self) -> str:
        """An identifier of the execution environment recorded in evidence."""
        return self.name

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release long-lived resources (a warm pool, a client)."""


def signal_name(number: int | None) -> str | None:
    if number is None:
        return None
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
