"""One small module per language declares how to compile and run it (DMOJ-style executors)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Compilation is sandboxed like a run, with its own (larger) limits.
COMPILE_CPU_MS = 10_000
COMPILE_WALL_MS = 20_000
COMPILE_MEMORY = 1024 * 1024 * 1024
COMPILE_PIDS = 128
# A sanitizer build's run: stop at the first report, with a stack; no leak check (exit paths
# leak by design), a small quarantine (the memory limit still applies).
SANITIZER_ENV = (
    ("ASAN_OPTIONS", "detect_leaks=0:handle_abort=1:handle_sigfpe=1:quarantine_size_mb=16:"
                     "malloc_context_size=2:print_summary=0:symbolize=1"),
    ("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=0"),
)


@dataclass(frozen=True)
class Executor:
    """How one language is compiled and run inside a sandbox whose working directory is /box.

    ``memory_extra_mb`` is runtime overhead granted above the problem's limit (a JVM's metaspace
    and code cache are not the candidate's data); ``time_factor`` scales the problem's CPU limit.
    """

    name: str
    source_name: str
    run: tuple[str, ...]
    compile: tuple[str, ...] | None = None
    env: tuple[tuple[str, str], ...] = ()
    time_factor: float = 1.0
    memory_extra_mb: int = 0
    pids: int = 64
    compile_pids: int = COMPILE_PIDS
    # Extra host paths the toolchain reads (bound read-only by bubblewrap).
    host_paths: tuple[str, ...] = ()
    # Regex with a named group `line` finding the first error line in the compile log.
    error_line: str = r":(?P<line>\d+):(?:\d+:)? (?:fatal )?error"
    # Where the message is when it is not on the line's own row (an interpreter's
    # "SyntaxError: ..." under the quoted code): a regex with a named group `message`.
    error_message: str | None = None
    self_test: str = ""
    self_test_output: str = "hello 3\n"
    tools: tuple[str, ...] = field(default=())  # host binaries it needs (for availability)
    # A debug build that says where a crash is (C/C++: sanitizers), run again on a crashing
    # sample only; its run environment is added to ``env``.
    diagnose: tuple[str, ...] | None = None
    diagnose_env: tuple[tuple[str, str], ...] = ()
    # The run command for timing growth (``judge.measure``), when it must differ from the
    # judging one: a JIT that compiles as n grows bends the curve it is fitted to.
    measure_run: tuple[str, ...] | None = None
    # Files built beside the candidate's (name, text): the judge's own, never theirs.
    support_files: tuple[tuple[str, str], ...] = ()

    def run_argv(self, memory_mb: int) -> list[str]:
        return [part.format(memory_mb=memory_mb) for part in self.run]

    def compile_argv(self) -> list[str] | None:
        return list(self.compile) if self.compile else None

    def first_error(self, log: str) -> tuple[int | None, str | None]:
        """The first error's line number and message in a compile log."""
        match = re.search(self.error_line, log, re.MULTILINE)
        if not match:
            lines = [ln for ln in log.strip().splitlines() if ln.strip()]
            return None, (lines[-1][:300] if lines else None)
        line = int(match.group("line"))
        if self.error_message:
            found = re.search(self.error_message, log[match.end():], re.MULTILINE)
            if found:
                return line, found.group("message").strip()[:300]
        rest = log[match.end():].splitlines()[0] if log[match.end():] else ""
        message = rest.strip(" :") or log[match.start():].splitlines()[0]
        return line, message[:300]
