"""The crash parsers on reports as each runtime prints them (recorded from real runs)."""

from __future__ import annotations

import pytest

from judge.faults import fault_of, sanitizer_fault
from judge.models import RunRecord

JAVA_OVERFLOW = ('Exception in thread "main" java.lang.StackOverflowError\n'
                 + "\tat Main.f(Main.java:5)\n" * 1000)
ASAN = """AddressSanitizer:DEADLYSIGNAL
=================================================================
==12==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000004 (pc 0x55 T0)
==12==The signal is caused by a WRITE memory access.
    #0 0x55e75035134c in solve(std::vector<int, std::allocator<int> >&) /box/main.cpp:9
    #1 0x55e75035134c in main /box/main.cpp:14
    #2 0x7f8ad8845249 in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58
"""
ASAN_HEAP = """==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602 at pc 0x5
WRITE of size 4 at 0x602000000020 thread T0
    #0 0x5631 in std::vector<int>::operator[](unsigned long) /usr/include/c++/12/stl_vector.h:1
    #1 0x5632 in main /box/main.cpp:7
"""
UBSAN = "/box/main.c:4:12: runtime error: division by zero\n"


@pytest.mark.parametrize(("language", "stderr", "name", "line"), [
    ("python", 'Traceback (most recent call last):\n  File "/box/main.py", line 9, in <module>\n'
               '    main()\n  File "/box/main.py", line 6, in main\n    print(xs[10])\n'
               "IndexError: list index out of range\n", "IndexError", 6),
    ("python", 'Traceback (most recent call last):\n  File "/box/main.py", line 2, in f\n'
               "    return f(n)\n  [Previous line repeated 996 more times]\n"
               "RecursionError: maximum recursion depth exceeded\n", "RecursionError", 2),
    ("java", JAVA_OVERFLOW, "StackOverflowError", 5),
    ("java", 'Exception in thread "main" java.lang.NumberFormatException: For input string: "x"'
             "\n\tat java.base/java.lang.Integer.parseInt(Integer.java:652)\n"
             "\tat Main.main(Main.java:12)\n", "NumberFormatException", 12),
    ("javascript", "/box/main.js:4\n  f();\n  ^\n\nRangeError: Maximum call stack size exceeded\n"
                   "    at f (/box/main.js:4:3)\n", "RangeError", 4),
    ("go", "panic: assignment to entry in nil map\n\ngoroutine 1 [running]:\nmain.main()\n"
           "\t/box/main.go:7 +0x2b\nexit status 2\n", "assignment to entry in nil map", 7),
    ("go", "runtime: goroutine stack exceeds 1000000000-byte limit\nfatal error: stack overflow"
           "\n\nmain.f(...)\n\t/box/main.go:4 +0x4\n", "stack overflow", 4),
    ("cpp", "terminate called after throwing an instance of 'std::bad_alloc'\n"
            "  what():  std::bad_alloc\n", "std::bad_alloc", None),
])
def test_runtime_reports(language: str, stderr: str, name: str, line: int | None) -> None:
    fault = fault_of(language, RunRecord(exit_code=1, stderr=stderr))
    assert fault is not None and (fault.name, fault.line) == (name, line)


def test_a_signal_without_a_report_is_named_and_a_clean_exit_is_no_fault() -> None:
    fault = fault_of("c", RunRecord(signal=11))
    assert fault is not None and (fault.kind, fault.name, fault.message) == (
        "signal", "SIGSEGV", "segmentation fault")
    assert fault_of("python", RunRecord(exit_code=0, stderr="warning")) is None
    exited = fault_of("python", RunRecord(exit_code=3))
    assert exited is not None and exited.name == "exit code 3"


@pytest.mark.parametrize(("stderr", "name", "line"), [
    (ASAN, "segmentation fault", 9),
    (ASAN_HEAP, "heap buffer overflow", 7),  # the candidate's frame, not the header's
    (UBSAN, "division by zero", 4),
    ("terminate called after throwing an instance of 'std::out_of_range'\n  what(): at\n"
     + ASAN.replace("SEGV", "ABRT"), "std::out_of_range", 9),
])
def test_sanitizer_reports(stderr: str, name: str, line: int) -> None:
    fault = sanitizer_fault(stderr)
    assert fault is not None and (fault.name, fault.line) == (name, line)
