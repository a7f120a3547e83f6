"""What a crash was and where, from the program's own report: a Python traceback, a Java
stack trace, a Node error, a Go panic, a C/C++ sanitizer report or the signal that killed it.

The line is always the candidate's own (a frame in their source file, never the runtime's),
so the interviewer can quote it. Each parser reads the whole stderr the backend kept (its
head: a Java stack overflow prints a thousand frames after the exception's name).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from judge.backends.base import signal_name
from judge.models import Fault, RunRecord

# A signal's usual meaning for a compiled program (what an interviewer would call it).
SIGNAL_WORDS = {
    "SIGSEGV": "segmentation fault", "SIGFPE": "arithmetic error", "SIGABRT": "abort",
    "SIGBUS": "bus error", "SIGILL": "illegal instruction", "SIGKILL": "kill",
}
_DIR = r"(?:[^\s\"'(]*/)?"  # the sandbox's working directory (/box, /sandbox/w, ...)
_PY_FRAME = re.compile(r'File "' + _DIR + r'main\.py", line (\d+)')
_PY_EXC = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|"
                     r"Iteration|Overflow))(?::\s*(.*))?$")
_JAVA_EXC = re.compile(r'Exception in thread "[^"]*" ([\w.$]+)(?::\s*(.*))?')
_JAVA_FRAME = re.compile(r"\(Main\.java:(\d+)\)")
_JS_EXC = re.compile(r"^(?:Uncaught )?([A-Z]\w*(?:Error|Exception))(?::\s*(.*))?$")
_JS_FRAME = re.compile(_DIR + r"main\.js:(\d+)")
_GO_PANIC = re.compile(r"^panic: (.*)$")
_GO_FRAME = re.compile(_DIR + r"main\.go:(\d+)")
_CPP_THROW = re.compile(r"terminate called after throwing an instance of '([^']+)'")
_CPP_WHAT = re.compile(r"^\s*what\(\):\s*(.*)$")
_SAN_ERROR = re.compile(r"ERROR: (?:AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer)"
                        r": ([\w-]+)(?: on (?:unknown )?address[^\n]*)?")
_UBSAN = re.compile(r"main\.c(?:pp)?:(\d+):\d+: runtime error: (.*)")
_SAN_FRAME = re.compile(r"#\d+ 0x[0-9a-f]+ in \S.* " + _DIR + r"main\.c(?:pp)?:(\d+)")
_SAN_NAMES = {"SEGV": "segmentation fault", "stack-overflow": "stack overflow",
              "heap-buffer-overflow": "heap buffer overflow",
              "stack-buffer-overflow": "stack buffer overflow",
              "global-buffer-overflow": "global buffer overflow",
              "heap-use-after-free": "use after free", "FPE": "division by zero",
              "ABRT": "abort", "BUS": "bus error", "double-free": "double free",
              "dynamic-stack-buffer-overflow": "stack buffer overflow",
              "stack-use-after-return": "use of a returned stack frame",
              "alloc-dealloc-mismatch": "mismatched delete"}
MAX_MESSAGE = 120


def _message(text: str | None) -> str | None:
    if not text:
        return None
    text = " ".join(text.split())
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "…"


def _python(stderr: str) -> Fault | None:
    lines = [ln.rstrip() for ln in stderr.splitlines() if ln.strip()]
    frames = _PY_FRAME.findall(stderr)
    for ln in reversed(lines):
        match = _PY_EXC.match(ln.strip())
        if match:
            return Fault(kind="exception", name=match.group(1).rsplit(".", 1)[-1],
                         message=_message(match.group(2)),
                         line=int(frames[-1]) if frames else None)
    return None


def _java(stderr: str) -> Fault | None:
    match = _JAVA_EXC.search(stderr)
    if not match:
        return None
    frame = _JAVA_FRAME.search(stderr, match.end())
    return Fault(kind="exception", name=match.group(1).rsplit(".", 1)[-1],
                 message=_message(match.group(2)), line=int(frame.group(1)) if frame else None)


def _javascript(stderr: str) -> Fault | None:
    for ln in stderr.splitlines():
        match = _JS_EXC.match(ln.strip())
        if match:
            frame = _JS_FRAME.search(stderr)
            return Fault(kind="exception", name=match.group(1),
                         message=_message(match.group(2)),
                         line=int(frame.group(1)) if frame else None)
    return None


def _go(stderr: str) -> Fault | None:
    for ln in stderr.splitlines():
        match = _GO_PANIC.match(ln.strip())
        if match:
            text = match.group(1)
            text = re.sub(r"^runtime error: ", "", text)
            text = re.sub(r"\s*\[signal [^\]]*\]\s*$", "", text)
            # "index out of range [6] with length 2": the name is the words, the rest detail.
            name = re.split(r"\s*[\[(:]", text, maxsplit=1)[0].strip() or "panic"
            frame = _GO_FRAME.search(stderr, match.end())
            return Fault(kind="panic", name=name, message=_message(text),
                         line=int(frame.group(1)) if frame else None)
    if "fatal error: stack overflow" in stderr or "goroutine stack exceeds" in stderr:
        frame = _GO_FRAME.search(stderr)
        return Fault(kind="panic", name="stack overflow", message=None,
                     line=int(frame.group(1)) if frame else None)
    return None


def _native(stderr: str) -> Fault | None:
    """An uncaught C++ exception (from std::terminate's message)."""
    match = _CPP_THROW.search(stderr)
    if not match:
        return None
    what = next((m.group(1) for m in map(_CPP_WHAT.match, stderr.splitlines()) if m), None)
    return Fault(kind="exception", name=match.group(1), message=_message(what))


def sanitizer_fault(stderr: str) -> Fault | None:
    """A C/C++ debug build's report (AddressSanitizer / UndefinedBehaviorSanitizer): what and
    the first frame in the candidate's file."""
    thrown = _native(stderr)
    match = _SAN_ERROR.search(stderr)
    if match:
        frame = _SAN_FRAME.search(stderr, match.end())
        kind = match.group(1)
        if thrown is not None:  # std::terminate → abort: the exception is the news
            return thrown.model_copy(update={"line": int(frame.group(1)) if frame else None})
        return Fault(kind="sanitizer", name=_SAN_NAMES.get(kind, kind.replace("-", " ")),
                     line=int(frame.group(1)) if frame else None)
    ub = _UBSAN.findall(stderr)
    if ub:
        line, what = ub[-1]
        return Fault(kind="sanitizer", name=_message(what) or "undefined behaviour",
                     line=int(line))
    return thrown


PARSERS: dict[str, Callable[[str], Fault | None]] = {
    "python": _python, "java": _java, "javascript": _javascript, "go": _go,
    "c": _native, "cpp": _native,
}


def fault_of(language: str, record: RunRecord) -> Fault | None:
    """The crash in ``record`` (a non-zero exit or a signal), or None for a clean exit."""
    if record.exit_code == 0 and record.signal is None:
        return None
    parser = PARSERS.get(language)
    found = parser(record.stderr) if parser else None
    if found is not None:
        return found
    name = signal_name(record.signal)
    if name is not None:
        return Fault(kind="signal", name=name,
                     message=SIGNAL_WORDS.get(name))
    if record.exit_code not in (None, 0):
        return Fault(kind="exit", name=f"exit code {record.exit_code}")
    return None
