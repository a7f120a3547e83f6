"""Hints in the coding round: hearing a request for one, the idle clock that offers one to a
candidate who has gone quiet, and a hint in speakable words.

The ladder itself is the problem's ``hints`` in ``bank/problems/*/problem.yaml`` (nudge first;
``viva bank validate`` wants at least two), never its tests, so no hint can carry hidden data.
``agents/coding_round.py`` gives them out and counts them; the idle clock is kept by whoever
sees the candidate's activity (the websocket link: edits, submissions, speech), on a clock it
is handed, so tests move time instead of waiting for it.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from typing import Protocol

_NOUN = r"(?:hint|clue|nudge|tip)s?"
# A request frame, then (within a few words) a hint as a noun: "can I get a hint",
# "give me another small clue", "do you have any hints", "I could use a nudge".
_REQUEST = re.compile(
    r"\b(?:(?:can|could|may|might)\s+(?:i|we)\s+(?:\w+\s+)?(?:get|have|ask\s+for|see|try)"
    r"|(?:can|could|would|will)\s+you\s+(?:\w+\s+)?(?:give|offer|share|spare|provide)"
    r"|give\s+(?:me|us)|i(?:'d|\s+would)\s+(?:like|love|appreciate|take)"
    r"|i\s+(?:need|want|could\s+use)|do\s+you\s+have|(?:is|are)\s+there"
    r"|how\s+about|what\s+about|what'?s\s+the\s+next|any|one\s+more)\b"
    r"[^.?!;]{0,25}?\b(?:an?|another|any|some|one|more|the\s+next|next)\s+"
    r"(?:(?:small|little|quick|tiny|gentle|bit\s+of\s+a|more)\s+)?" + _NOUN + r"\b",
    re.IGNORECASE)
# The whole sentence is the request: "Hint?", "A hint, please.", "Any hints?", "Hints please".
_BARE = re.compile(r"^\W*(?:(?:a|an|another|any|one\s+more|some)\s+)?(?:small\s+|little\s+)?"
                   + _NOUN + r"(?:\s*,?\s*please)?\W*$", re.IGNORECASE)
# Ends in "a hint, please": the request even when the recognizer lost its first words
# ("[Can] I get a hint, please?" heard as "I get a hint, please.").
_PLEASE = re.compile(r"\b(?:an?|another|any|some|one\s+more)\s+(?:small\s+|little\s+)?"
                     + _NOUN + r"\s*,?\s*please\W*$", re.IGNORECASE)
# "could you hint at what I am missing?"
_HINT_VERB = re.compile(r"\b(?:can|could|would)\s+you\s+(?:please\s+)?hint\b", re.IGNORECASE)
_HELP = re.compile(
    r"\b(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?help"
    r"|please\s+help|i\s+(?:need|could\s+use|would\s+like)\s+(?:some\s+|a\s+(?:little\s+)?)?help"
    r"|(?:any|some)\s+help)\b|^\W*help(?:\s+me)?\W*$", re.IGNORECASE)
# The candidate says they are stuck (not their program: "the loop gets stuck" is not it).
_STUCK = re.compile(r"\bi(?:'m|\s+am)\s+(?:\w+\s+){0,2}?stuck\b"
                    r"|\bi\s+(?:don'?t|do\s+not)\s+know\s+(?:how|where)\s+to\s+(?:start|begin)",
                    re.IGNORECASE)
# "no hints", "I don't need a hint", "I'm not stuck", "without help", "rather not get a clue".
_REFUSAL = re.compile(
    r"\b(?:no|not|don'?t|do\s+not|won'?t|never|without)\s+(?:\w+\s+){0,2}?"
    r"(?:(?:a|an|any|the|more)\s+)?(?:" + _NOUN + r"|help|stuck)\b", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.?!;])\s+|\n+")


def asks_for_hint(text: str) -> bool:
    """Whether the candidate's words ask for a hint ("can I get a hint?", "any hints?", "I'm
    stuck, can you help?"), typed or spoken. Talk about code ("I hint at the answer", "the
    loop got stuck", "a helper function", "thanks for the hint") is not a request; neither is
    a sentence that turns one down ("no hints, please")."""
    for sentence in _SENTENCES.split(text.strip()):
        if not sentence or _REFUSAL.search(sentence):
            continue
        if (_REQUEST.search(sentence) or _BARE.search(sentence) or _PLEASE.search(sentence)
                or _HINT_VERB.search(sentence)
                or _HELP.search(sentence) or _STUCK.search(sentence)):
            return True
    return False


# Code notation in an authored hint, in words a voice can say: "dp[i-1][j]" → "dp of i minus
# 1, j", "p*p <= n" → "p times p at most n", "10^18" → "10 to the 18". The room shows the hint
# as written; only the voice gets these words.
_SPOKEN_SYMBOLS = [
    (re.compile(r"`"), ""),
    (re.compile(r"\.\.\.|…"), " and so on "),
    (re.compile(r"\^\s*2\b|²"), " squared"),
    (re.compile(r"\^\s*3\b|³"), " cubed"),
    (re.compile(r"\^\s*(\w+)"), r" to the \1"),
    (re.compile(r"(\d)x(\d)"), r"\1 by \2"),
    (re.compile(r"\s*<=\s*"), " at most "),
    (re.compile(r"\s*>=\s*"), " at least "),
    (re.compile(r"\s*!=\s*"), " is not "),
    (re.compile(r"\s*==\s*"), " equals "),
    (re.compile(r"\s*->\s*"), " to "),
    (re.compile(r"\s*//\s*"), " over "),
    (re.compile(r"\s*<\s*"), " less than "),
    (re.compile(r"\s*>\s*"), " more than "),
    (re.compile(r"\s*=\s*"), " equals "),
    (re.compile(r"\s*\*\s*"), " times "),
    (re.compile(r"\s*\+\s*"), " plus "),
    (re.compile(r"\s*%\s*"), " mod "),
    (re.compile(r"\s+-\s+|(?<=\w)-(?=\d)"), " minus "),
    (re.compile(r"(?<=\w)_(?=\w)"), " "),
]
_INDEX = re.compile(r"\b(\w+)((?:\[[^\[\]]*\])+)")
_RANGE = re.compile(r"\[\s*(\w+)\s*,\s*(\w+)\s*\]")  # "[l, r]": a range, not an index
_CALL = re.compile(r"(?<![A-Za-z_])([A-Za-z]\w*)\(([^()]*)\)")
_PRODUCT = re.compile(r"\)\s*\(")  # "F(k)(2F(k+1) - F(k))"


def spoken_hint(text: str) -> str:
    """A hint as the interviewer says it: indexing, calls and operators in words."""
    def index(match: re.Match[str]) -> str:
        subscripts = re.findall(r"\[([^\[\]]*)\]", match.group(2))
        return f"{match.group(1)} of {', '.join(s.strip() for s in subscripts)}"

    text = _INDEX.sub(index, text)
    text = _RANGE.sub(r"\1 to \2", text)
    text = _PRODUCT.sub(") times (", text)
    for _ in range(3):  # nested calls, innermost first: F(k)(2F(k+1) - F(k))
        text = _CALL.sub(lambda m: f"{m.group(1)} of {m.group(2)}", text)
    for pattern, words in _SPOKEN_SYMBOLS:
        text = pattern.sub(words, text)
    text = re.sub(r"\s+([,.;:?!])", r"\1", text)
    return " ".join(text.split())


class IdleClock(Protocol):
    """The time the idle check reads, and the wait between checks (tests step it)."""

    def now(self) -> float:
        """Seconds on a monotonic clock."""
        ...

    async def tick(self) -> None:
        """Wait until the next check."""
        ...


@dataclass
class MonotonicIdleClock:
    every_s: float = 1.0  # a 90 s threshold needs no finer check

    def now(self) -> float:
        return time.monotonic()

    async def tick(self) -> None:
        await asyncio.sleep(self.every_s)


class IdleHints:
    """When to offer a hint unasked: after ``idle_s`` seconds with no activity from the
    candidate (an edit, a submission, speech), once per such stretch; the next activity
    starts a new stretch. Clock-free: every call says what time it is."""

    def __init__(self, idle_s: float, now: float):
        self.idle_s = idle_s
        self.since = now
        self.offered = False

    def activity(self, now: float) -> None:
        self.since = max(self.since, now)
        self.offered = False

    def idle_for(self, now: float) -> float:
        return max(0.0, now - self.since)

    def due(self, now: float) -> bool:
        """True once, when the stretch has lasted ``idle_s`` (the caller offers the hint)."""
        if self.offered or self.idle_for(now) < self.idle_s:
            return False
        self.offered = True
        return True
