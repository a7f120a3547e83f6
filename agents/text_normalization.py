"""One normalisation of English text for comparing words: speech-recognition error rates and
the grader's matching of spoken answers to authored phrases.

Whisper-style (the ``whisper-normalizer`` package, OpenAI's English normaliser): lower case,
no punctuation, fillers ("um", "uh") dropped, "Mr." → "mister", spelled numbers → digits
("fifteenth" → "15th", "twenty one" → "21"), contractions and British spellings unified.
On top of it, complexity notation, which that normaliser would turn into "0": "O(n log n)",
"O of n log n" and "big O of n log n" all become "o of n log n", "n^2" → "n squared".
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

_PLACEHOLDER = "bigohnotation"
_BIG_O_CALL = re.compile(r"\b(?:big[\s-]*)?[oO]\s*\(\s*([^()]{0,40})\)")
_BIG_O_SPOKEN = re.compile(r"\b(?:big[\s-]*)?(?:o|oh)\s+of\b", re.IGNORECASE)
_POWERS = [(re.compile(r"\^\s*2\b|²"), " squared"), (re.compile(r"\^\s*3\b|³"), " cubed"),
           (re.compile(r"\s*\*\s*"), " times ")]


@lru_cache(maxsize=1)
def _whisper() -> Any:
    from whisper_normalizer.english import EnglishTextNormalizer

    return EnglishTextNormalizer()


def _complexity_in_words(text: str) -> str:
    def spoken(match: re.Match[str]) -> str:
        inner = match.group(1)
        for pattern, words in _POWERS:
            inner = pattern.sub(words, inner)
        return f" {_PLACEHOLDER} of {inner} "

    text = _BIG_O_CALL.sub(spoken, text)
    for pattern, words in _POWERS[:2]:
        text = pattern.sub(words, text)
    return _BIG_O_SPOKEN.sub(f" {_PLACEHOLDER} of", text)


_ELLIPSIS = re.compile(r"\.{2,}|…")


def normalize_text(text: str) -> str:
    """The text as normalised words separated by single spaces."""
    # The Whisper normaliser leaves a "." of a trailing "..." as a word ("bring..." became
    # "bring ."), so a transcript trailing off counted one error more than the same words.
    normalized = _whisper()(_complexity_in_words(_ELLIPSIS.sub(" ", text)))
    return re.sub(r"\s+", " ", normalized.replace(_PLACEHOLDER, "o")).strip()


def normalize_words(text: str) -> list[str]:
    return normalize_text(text).split()


def word_errors(reference: str, hypothesis: str) -> tuple[int, int]:
    """(word edit distance, reference word count) after normalisation."""
    ref, hyp = normalize_words(reference), normalize_words(hypothesis)
    row = list(range(len(hyp) + 1))
    for i in range(1, len(ref) + 1):
        prev, row = row, [i] + [0] * len(hyp)
        for j in range(1, len(hyp) + 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ref[i - 1] != hyp[j - 1]))
    return row[len(hyp)], len(ref)
