"""Output checkers: exact (after trimming line ends), float tolerance, token sets, custom."""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CheckResult:
    ok: bool
    message: str | None = None


Checker = Callable[[str, str, str], CheckResult]  # (input, expected, actual)


def normalize(text: str) -> list[str]:
    """Lines without trailing whitespace, without trailing empty lines (the contract's rule)."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def exact(_input: str, expected: str, actual: str) -> CheckResult:
    want, got = normalize(expected), normalize(actual)
    if want == got:
        return CheckResult(True)
    for index, (a, b) in enumerate(zip(want, got, strict=False)):
        if a != b:
            return CheckResult(False, f"line {index + 1} differs")
    return CheckResult(False, f"expected {len(want)} lines, got {len(got)}")


def make_float(tolerance: float = 1e-6) -> Checker:
    def check(_input: str, expected: str, actual: str) -> CheckResult:
        want, got = expected.split(), actual.split()
        if len(want) != len(got):
            return CheckResult(False, f"expected {len(want)} tokens, got {len(got)}")
        for index, (a, b) in enumerate(zip(want, got, strict=True)):
            try:
                x, y = float(a), float(b)
            except ValueError:
                if a != b:
                    return CheckResult(False, f"token {index + 1} differs")
                continue
            if not math.isclose(x, y, rel_tol=tolerance, abs_tol=tolerance):
                return CheckResult(False,
                                   f"token {index + 1}: {b} is not within {tolerance} of {a}")
        return CheckResult(True)

    return check


def unordered_lines(_input: str, expected: str, actual: str) -> CheckResult:
    if sorted(normalize(expected)) == sorted(normalize(actual)):
        return CheckResult(True)
    return CheckResult(False, "the set of lines differs")


def load_custom(path: Path) -> Checker:
    """A problem-authored ``check(input, expected, actual) -> bool | (bool, message)``."""
    spec = importlib.util.spec_from_file_location(f"viva_checker_{path.parent.name}", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot load checker {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    func = module.check

    def check(input_: str, expected: str, actual: str) -> CheckResult:
        verdict = func(input_, expected, actual)
        if isinstance(verdict, tuple):
            return CheckResult(bool(verdict[0]), verdict[1] if len(verdict) > 1 else None)
        return CheckResult(bool(verdict))

    return check


def checker_for(spec: str, problem_dir: Path | None = None) -> Checker:
    """``exact`` | ``float`` | ``float:1e-4`` | ``unordered`` | ``custom:checker.py``."""
    name, _, arg = spec.partition(":")
    if name == "exact":
        return exact
    if name == "float":
        return make_float(float(arg) if arg else 1e-6)
    if name == "unordered":
        return unordered_lines
    if name == "custom" and arg and problem_dir is not None:
        return load_custom(problem_dir / arg)
    raise ValueError(f"unknown checker {spec!r}; use exact, float[:tol], unordered, custom:FILE")
