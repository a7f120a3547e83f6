"""The coding round's conversation after an accepted submit: the candidate's complexity
claim, checked against the measured growth of their code, then the wrap-up.

Stages (``state.coding_talk.stage``): ``complexity`` (the question was asked) → a claim is
heard → confirmed, or challenged with one "where does that come from?" (``explain``) →
``done``: the interviewer wraps up and the round is over. The measurement arrives from the
judge after the verdict (``complexity_measured``); a claim heard before it waits for it.
"""

from __future__ import annotations

import re
from typing import Any

from agents.code_reading import CodeFacts
from agents.complexity import SAID, SPOKEN, claim_score, parse_claim, rank
from agents.state import CodingTalk

LOG_CONTAINERS = frozenset({"heap", "tree_map", "tree_set"})
# A fitted growth exponent → class. Between 0.3 and 1.6 the time alone cannot tell n from
# n log n (a doubling is x2 against x2.1): the code decides (a sort, a heap or tree, a
# halving recursion, a binary search: n log n). Nor does a high exponent in that band say
# n log n: a hash table, tree or sieve whose data outgrows the CPU caches (more so while
# other processes share them) fits 1.25-1.6 at the sizes timed, e.g. a std::set 1.62 and a
# std::map 1.59 on a busy machine, whereas quadratic solutions fitted 1.68-2.4.
EXPONENT_BOUNDS = ((0.3, "1"), (1.6, "n"), (2.5, "n^2"), (3.5, "n^3"))


# A logarithmic step in the code's text: a bit-indexed tree, halving, a binary search (a
# library one, or a hand-written one's midpoint: `(lo + hi) // 2`, `l + (r - l) / 2`,
# `(l + r) >> 1`, as in a segment tree or merge sort too), a variable halved in place
# (`i = i / 2`, `l = l % 2 == 1 ? l / 2 + 1 : l / 2`: a bottom-up segment tree's climb), a
# power of two by a variable (`1 << j`, a sparse table's level; `1 << 16`, a buffer's size,
# is a constant), an ordered container or heap (the parser's facts add sorting and halving
# recursion).
_LOG_STEP = re.compile(
    r"&\s*-\s*\w|>>=\s*1|//=\s*2|/=\s*2\b|\*=\s*2\b|<<=\s*1|\b1\s*<<\s*[A-Za-z_]|bit_length"
    r"|bisect|lower_bound|upper_bound|binarySearch|sort\.Search|heapq|PriorityQueue"
    r"|priority_queue|TreeMap|TreeSet|std::set|std::map|\bset<|\bmap<|container/heap"
    r"|\(\s*[A-Za-z_]\w*\s*\+\s*[A-Za-z_]\w*\s*\)\s*(?://?\s*2|>>\s*1)\b"
    r"|\b[A-Za-z_]\w*\s*\+\s*\(\s*[A-Za-z_]\w*\s*-\s*[A-Za-z_]\w*\s*\)\s*(?://?\s*2|>>\s*1)\b"
    r"|\b(?P<halved>[A-Za-z_]\w*)\s*=(?!=)[^;\n]*\b(?P=halved)\s*(?://?\s*2|>>\s*1)\b")


def has_log_factor(code: str, facts: CodeFacts) -> bool:
    """Whether the code has a step that costs log n (sorting, a heap or tree, halving)."""
    return bool(facts.sort_calls or facts.containers & LOG_CONTAINERS
                or any(r.halving for r in facts.recursion) or _LOG_STEP.search(code))


def measured_class(exponent: float, log_factor: bool) -> str:
    for bound, klass in EXPONENT_BOUNDS:
        if exponent < bound:
            if klass == "n" and log_factor:
                return "n log n"
            return klass
    return "2^n"


def growth_words(ratio: float) -> str:
    if ratio < 1.4:
        return "stayed about the same"
    if ratio < 2.7:
        return "about doubled"
    return f"grew about {_number(ratio)} times"


def _number(ratio: float) -> str:
    words = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
             10: "ten", 16: "sixteen"}
    value = round(ratio)
    return words.get(value, str(value))


class ComplexityTalk:
    """Pure steps over ``CodingTalk``; each returns what to say and whether the round ends."""

    def __init__(self, wording: Any):
        self.w = wording  # agents.coding_round.CodingWording

    def hear(self, talk: CodingTalk, text: str) -> tuple[list[str], bool]:
        """The candidate spoke during the complexity talk."""
        c = self.w.complexity
        if talk.stage == "explain":
            talk.stage = "done"
            return [*self._better(talk), self.w.wrap_up], True
        claimed = parse_claim(text)
        if claimed is None:
            if not talk.asked_again:
                talk.asked_again = True
                return [c.again], False
            talk.stage = "done"
            talk.complexity_score = claim_score(None, self._actual(talk))
            return [c.none, self.w.wrap_up], True
        talk.claim, talk.claimed = text.strip()[:300], claimed
        if talk.measured is None:
            return [c.wait], False
        return self._verdict(talk)

    def measured(self, talk: CodingTalk, measurement: dict[str, Any]) -> tuple[list[str], bool]:
        """The judge's timing of the accepted code arrived; speak if a claim waits for it."""
        exponent = measurement.get("exponent")
        klass = (measured_class(float(exponent), talk.log_factor)
                 if isinstance(exponent, int | float) else None)
        talk.measured = {**measurement, "class": klass}
        talk.reference = measurement.get("reference_class") or talk.reference
        if talk.stage == "complexity" and talk.claimed is not None:
            return self._verdict(talk)
        return [], False

    @staticmethod
    def _actual(talk: CodingTalk) -> str | None:
        klass = (talk.measured or {}).get("class")
        return str(klass) if klass else None

    def _verdict(self, talk: CodingTalk) -> tuple[list[str], bool]:
        c = self.w.complexity
        assert talk.claimed is not None
        actual = self._actual(talk)
        claimed = SAID[talk.claimed]
        if actual is None:
            talk.stage = "done"
            return [c.unmeasured.format(claimed=claimed), self.w.wrap_up], True
        talk.complexity_score = claim_score(talk.claimed, actual)
        ratio = (talk.measured or {}).get("ratio")
        ratio = float(ratio) if isinstance(ratio, int | float) else 2.0
        if talk.claimed == actual:
            talk.stage = "done"
            return [c.right.format(claimed=claimed, growth=growth_words(ratio)),
                    *self._better(talk), self.w.wrap_up], True
        talk.stage = "explain"
        return [c.wrong.format(claimed=claimed, growth=growth_words(ratio),
                               measured=SPOKEN[actual]), c.explain], False

    def _better(self, talk: CodingTalk) -> list[str]:
        """'It can be done in linear time.' when the reference grows slower than theirs."""
        actual, reference = self._actual(talk), talk.reference
        if actual is None or reference not in SPOKEN or rank(str(reference)) >= rank(actual):
            return []
        return [self.w.complexity.better.format(reference=SPOKEN[str(reference)])]
