"""Joining decoded pieces of one answer without repeating or dropping words.

Pieces are cut in silences, so their audio never overlaps and every word of each piece is
kept. What a decoder adds at a border is removed: a run of three or more words that ends
one piece and starts the next again is a decoder carrying its context over, not speech.
Partials use LocalAgreement: the words two consecutive decodes of the same growing audio
agree on are stable; the rest is tentative. The final decode is one more vote: where it
swaps a few words two earlier decodes agreed on for as many others ("learn from marba
stakes" for "learn from our mistakes"), the agreed words stay (two votes to one).
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

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


MAX_SWAP_WORDS = 3  # a longer disagreement is a real revision, not a misheard word or two


def keep_agreed_words(agreed: str, final: str) -> str:
    """``final`` with short same-length swaps of ``agreed`` words put back."""
    agreed_words, final_words = agreed.split(), final.split()
    if not agreed_words or not final_words:
        return final
    matcher = SequenceMatcher(a=[_key(w) for w in agreed_words],
                              b=[_key(w) for w in final_words], autojunk=False)
    out: list[str] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "replace" and i2 - i1 == j2 - j1 <= MAX_SWAP_WORDS and i1 > 0:
            # Only inside what was agreed, after agreed context (the words before it match);
            # the final's punctuation after the swap is kept.
            kept = agreed_words[i1:i2]
            tail = re.search(r"[.,;:?!]+$", final_words[j2 - 1])
            if tail and not re.search(r"[.,;:?!]$", kept[-1]):
                kept = [*kept[:-1], kept[-1] + tail.group(0)]
            out.extend(kept)
        else:
            out.extend(final_words[j1:j2])
    return " ".join(out)
