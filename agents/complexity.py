"""Complexity classes: a candidate's claim, spoken or typed, read into a class, and the
classes compared ("You said n log n; ... which is quadratic").

A claim is found by reading every class the words name — named ("linear", "quadratic"),
or written ("O(n^2)", "n squared", "O of n log n") — and keeping the first one about time:
one said of space or memory, or after a "not", is passed over. A written expression takes
its dominant term ("O(n + q log n)" is n log n); any size letter counts as n.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# In growth order; "sqrt n" and "n^3" are kept so a claim of them is not misread.
CLASSES = ("1", "log n", "sqrt n", "n", "n log n", "n^2", "n^3", "2^n")
SPOKEN = {"1": "constant", "log n": "logarithmic", "sqrt n": "square root of n",
          "n": "linear", "n log n": "n log n", "n^2": "quadratic", "n^3": "cubic",
          "2^n": "exponential"}
SAID = {"1": "constant", "log n": "log n", "sqrt n": "square root of n", "n": "linear",
        "n log n": "n log n", "n^2": "n squared", "n^3": "n cubed", "2^n": "exponential"}

_NUMBERS = {"one": "1", "two": "2", "three": "3", "second": "2", "third": "3",
            "square": "2", "squared": "2", "cube": "3", "cubed": "3"}
_NAMED = [
    (r"\b(?:linearithmic|log[- ]?linear|quasi[- ]?linear)\b", "n log n"),
    (r"\blinear\b", "n"),
    (r"\bquadratic\b", "n^2"),
    (r"\bcubic\b", "n^3"),
    (r"\bexponential\b", "2^n"),
    (r"\blogarithmic\b", "log n"),
    (r"\bconstant\b", "1"),
]
_NOT = re.compile(r"(?:\bnot|n't|\binstead of|\brather than|\bthan|\bfrom)\s+(?:\w+\s+){0,1}$")
_SPACE = re.compile(r"\b(?:space|memory|extra)\b")
_TIME = re.compile(r"\btime\b|\bruns?\b|\bcomplexity\b")
VARIABLE = r"(?<![a-z])[nmkqvewlt](?![a-z])"


def _normalise(text: str) -> str:
    t = text.lower().replace("²", "^2").replace("³", "^3").replace("ⁿ", "^n")
    t = re.sub(r"[’']", "", t)
    t = re.sub(r"\bbig\s*-?\s*o\b", "o", t)
    t = re.sub(r"\b(?:oh|o)\s+(?:of\s+)?(?=[(\w])", "o(", t)  # "O of n" → "o(n"
    t = re.sub(r"\border\s+(?:of\s+)?(?=\w)", "o(", t)
    t = re.sub(r"\bsquare\s+root\s+of\s+", "sqrt ", t)
    t = re.sub(r"\bsqrt\s*\(\s*(\w)\s*\)", r"sqrt \1", t)
    t = re.sub(r"\bto\s+the\s+(?:power\s+(?:of\s+)?)?(\w+)", r"^\1", t)
    t = re.sub(r"\^\s*(one|two|three|second|third)\b", lambda m: "^" + _NUMBERS[m.group(1)], t)
    t = re.sub(r"\b(squared|cubed)\b", lambda m: "^" + _NUMBERS[m.group(1)], t)
    t = re.sub(r"(?<=[a-z)])\s+square\b", "^2", t)
    t = re.sub(r"\b(two|three)\b(?=\s*\^)", lambda m: _NUMBERS[m.group(1)], t)
    t = re.sub(r"\b(?:lg|ln)\b", "log", t)
    t = re.sub(r"\blog\s*(?:of\s+)?\(?\s*(" + VARIABLE + r")(?:\s*\))?", r"log \1", t)
    t = re.sub(r"(?<![a-z])([nmkqvewlt])log", r"\1 log", t)  # "nlogn"
    t = re.sub(r"o\(\s*one\b", "o(1", t)
    t = re.sub(r"\blog([nmkqvewlt])(?![a-z])", r"log \1", t)
    t = re.sub(r"\btimes\b|\*|·|×", " ", t)
    t = re.sub(r"(" + VARIABLE + r")(2|3)\b", r"\1^\2", t)  # "n2" as heard
    return " ".join(t.split())


def _term_class(term: str) -> tuple[float, int] | None:
    """(degree, log power) of one product term; None when it names no size."""
    if re.search(r"\b2\s*\^\s*" + VARIABLE, term) or re.search(VARIABLE + r"\s*!", term):
        return (float("inf"), 0)
    logs = len(re.findall(r"\blog\s+" + VARIABLE, term))
    rest = re.sub(r"\blog\s+" + VARIABLE, " ", term)
    degree = 0.0
    degree += 0.5 * len(re.findall(r"\bsqrt\s+" + VARIABLE, rest))
    rest = re.sub(r"\bsqrt\s+" + VARIABLE, " ", rest)
    for match in re.finditer(VARIABLE + r"(?:\s*\^\s*(\d))?", rest):
        degree += int(match.group(1) or 1)
    if degree == 0 and logs == 0:
        return (0.0, 0) if re.search(r"\b1\b", term) else None
    return (degree, logs)


def _class_of(order: tuple[float, int]) -> str:
    degree, logs = order
    if degree == float("inf"):
        return "2^n"
    if degree == 0:
        return "log n" if logs else "1"
    if degree < 1:
        return "sqrt n"
    if degree == 1:
        return "n log n" if logs else "n"
    if degree < 3:
        return "n^2"
    return "n^3"


def expression_class(expr: str) -> str | None:
    """The dominant term's class of an expression like 'n + q log n' or '(v + e) log v'."""
    expr = expr.strip()
    # (a + b) log c → a log c + b log c: distribute a bracketed sum over what follows.
    bracket = re.match(r"^\(([^()]*)\)\s*(.*)$", expr)
    if bracket and "+" in bracket.group(1):
        expr = " + ".join(f"{part} {bracket.group(2)}" for part in bracket.group(1).split("+"))
    expr = expr.replace("(", " ").replace(")", " ")
    orders = [o for o in map(_term_class, re.split(r"\+|-", expr)) if o is not None]
    return _class_of(max(orders)) if orders else None


@dataclass(frozen=True)
class Mention:
    klass: str
    start: int


def _mentions(t: str) -> list[Mention]:
    found: list[Mention] = []
    taken: list[tuple[int, int]] = []
    for match in re.finditer(r"o\(\s*((?:[^()]|\([^()]*\))*)\)?", t):
        klass = expression_class(match.group(1).split(",")[0])
        if klass:
            found.append(Mention(klass, match.start()))
            taken.append(match.span())
    for pattern, klass in _NAMED:
        for match in re.finditer(pattern, t):
            if not any(a <= match.start() < b for a, b in taken):
                found.append(Mention(klass, match.start()))
                taken.append(match.span())
    bare = (r"(?:\b2\s*\^\s*n\b|\bsqrt\s+n\b|(?:\bn\s+)?\blog\s+n\b|\bn\s*\^\s*\d\b"
            r"|\bn(?:\s+n)+\b|\bn\s+log\s+n\b)")
    for match in re.finditer(bare, t):
        if not any(a <= match.start() < b for a, b in taken):
            klass = expression_class(match.group(0))
            if klass:
                found.append(Mention(klass, match.start()))
                taken.append(match.span())
    return sorted(found, key=lambda m: m.start)


def parse_claim(text: str) -> str | None:
    """The time complexity class a candidate's words claim, or None when they name none."""
    t = _normalise(text)
    mentions = _mentions(t)
    kept = []
    for m in mentions:
        before = t[max(0, m.start - 30):m.start]
        if _NOT.search(before):
            continue
        clause = re.split(r"[,;.]|\band\b|\bwith\b", before)[-1]
        if _SPACE.search(clause) and not _TIME.search(clause):
            continue
        # "constant space" / "linear extra space": the words right after say what it is of.
        after = t[m.start:m.start + 40]
        if re.match(r"^\S+(?:\s+\S+)?\s+(?:extra\s+)?(?:space|memory)\b", after) and \
                not re.match(r"^\S+(?:\s+\S+)?\s+time\b", after):
            continue
        kept.append(m)
    if kept:
        return kept[0].klass
    return None


def rank(klass: str) -> int:
    return CLASSES.index(klass)


def claim_score(claimed: str | None, actual: str | None) -> float | None:
    """1 right, 0.5 one class off, 0 wrong or no claim; None when there is nothing to check."""
    if actual is None:
        return None
    if claimed is None:
        return 0.0
    gap = abs(rank(claimed) - rank(actual))
    return 1.0 if gap == 0 else 0.5 if gap == 1 and "sqrt n" not in (claimed, actual) else 0.0
