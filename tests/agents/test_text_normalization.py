"""The one normalisation behind error rates and the grader's phrase matching."""

from __future__ import annotations

from agents.text_normalization import normalize_words, word_errors


def test_a_transcript_trailing_off_has_no_extra_word() -> None:
    # The Whisper normaliser alone left "bring..." as "bring ." (one error more than
    # "bring"): live finals of answers cut mid-sentence often end "...".
    assert normalize_words("Ask her to bring...") == ["ask", "her", "to", "bring"]
    assert normalize_words("Well… that is it") == ["well", "that", "is", "it"]
    assert word_errors("Ask her to bring", "Ask her to bring...") == (0, 4)
    assert word_errors("Ask her to bring", "Ask her to bring these...") == (1, 4)


def test_decimals_and_complexity_keep_their_dots() -> None:
    assert normalize_words("It costs 3.5 ms.") == ["it", "costs", "3.5", "ms"]
    assert normalize_words("O(n log n)... fine") == ["o", "of", "n", "log", "n", "fine"]
