"""Split what the interviewer says into pieces to synthesize one at a time."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+(?=[\"'(\[A-Z0-9`])")
_CLAUSE_BREAK = re.compile(r"(?<=,)\s+")
FIRST_PIECE_CHARS = 60  # a longer first sentence is cut at a comma so audio starts sooner


def split_for_speech(texts: list[str]) -> list[str]:
    """Sentences in order; the very first one cut at a comma when it is long."""
    pieces: list[str] = []
    for text in texts:
        for sentence in _SENTENCE_END.split(" ".join(text.split())):
            if sentence.strip():
                pieces.append(sentence.strip())
    if pieces and len(pieces[0]) > FIRST_PIECE_CHARS:
        head, *rest = _CLAUSE_BREAK.split(pieces[0], maxsplit=1)
        if rest and len(head) >= 15:
            pieces[0:1] = [head, rest[0]]
    return pieces
