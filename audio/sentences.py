"""Split what the interviewer says into pieces to synthesize one at a time.

The first piece decides when the candidate hears the reply, so it is kept short: a long
first sentence is cut at an early comma, or else after its first few words (a phrase like
"You covered" then comes from the cache after its first use).
"""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+(?=[\"'(\[A-Za-z0-9`])")
FIRST_PIECE_WORDS = 3
SHORT_SENTENCE_WORDS = 6  # a first sentence this short is synthesized whole
# Never end the first piece on one of these: "You said that | ..." sounds cut off less
# than "the | ..." does.
_WEAK_ENDINGS = {"a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "is", "are",
                 "with", "your", "my", "this", "that's"}


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if s.strip()]


def split_for_speech(texts: list[str]) -> list[str]:
    """Sentences in order; the very first one cut early when it is long."""
    pieces = [s for text in texts for s in split_sentences(text)]
    return _cut_first(pieces)


def pieces_of_first_sentence(pieces: list[str]) -> int:
    """How many of ``split_for_speech``'s pieces the first sentence is (1, or 2 if cut)."""
    if len(pieces) < 2:
        return len(pieces)
    return 2 if _cut_first([" ".join(pieces[:2])])[:1] == pieces[:1] else 1


def _cut_first(pieces: list[str]) -> list[str]:
    if not pieces:
        return pieces
    words = pieces[0].split()
    if len(words) <= SHORT_SENTENCE_WORDS:
        return pieces
    cut = next((i + 1 for i, w in enumerate(words[:SHORT_SENTENCE_WORDS - 1])
                if w.endswith(",")), None)
    if cut is None:
        cut = FIRST_PIECE_WORDS
        while cut > 1 and words[cut - 1].lower() in _WEAK_ENDINGS:
            cut -= 1
    return [" ".join(words[:cut]), " ".join(words[cut:]), *pieces[1:]]
