"""Joining decoded pieces of one answer without repeating or dropping words.

Pieces are cut in silences, so their audio never overlaps and every word of each piece is
kept. What a decoder adds at a border is removed: a run of three or more words that ends
one piece and starts the next again is a decoder carrying its context over, not speech.
Partials use LocalAgreement: the words two consecutive decodes of the same growing audio
agree on are stable; the rest is tentative.
"""

from __future__ import annotations

import re

BORDER_REPEAT_WORDS = 3


def _key(word: str) -> str:
    return re.sub(r"[^a-z0-9']", "", word.lower())


def agreed_prefix(previous: str, current: str) -> str:
    """The start of ``current`` (its own spelling) whose words ``previous`` also starts with."""
    prev, cur = previous.split(), current.split()
    n = 0
    while n < min(len(prev), len(cur)) and _key(prev[n]) == _key(cur[n]):
        n += 1
    return " ".join(cur[:n])


def join_segments(texts: list[str]) -> str:
    words: list[str] = []
    for text in texts:
        piece = text.split()
        if not piece:
            continue
        keys = [_key(w) for w in words]
        piece_keys = [_key(w) for w in piece]
        longest = min(len(keys), len(piece_keys))
        for n in range(longest, BORDER_REPEAT_WORDS - 1, -1):
            if keys[-n:] == piece_keys[:n]:
                piece = piece[n:]
                break
        words.extend(piece)
    return " ".join(words)
