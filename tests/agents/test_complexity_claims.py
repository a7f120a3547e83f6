"""Complexity claims, spoken or typed, read into classes: the phrasing sets in
tests/data/complexity_claims (dev: tuned on; test: written before the parser, held out)."""

from __future__ import annotations

import pytest

from agents.complexity import CLASSES, claim_score, parse_claim
from tests.conftest import ROOT

CLAIMS = ROOT / "tests" / "data" / "complexity_claims"


def phrasings(split: str) -> list[tuple[str, str]]:
    rows = []
    for line in (CLAIMS / f"{split}.tsv").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            klass, text = line.split("\t", 1)
            assert klass in CLASSES, line
            rows.append((klass, text))
    return rows


@pytest.mark.parametrize("split", ["dev", "test"])
def test_claims_are_classified_right_at_least_95_percent(split: str) -> None:
    rows = phrasings(split)
    right = sum(parse_claim(text) == klass for klass, text in rows)
    assert len(rows) >= 60 and right / len(rows) >= 0.95, (split, right, len(rows))


@pytest.mark.parametrize(("text", "klass"), [
    ("I think my solution runs in O(n cubed) time", "n^3"),
    ("Linear time, and O(n^2) space for the table.", "n"),
    ("It's not quadratic, it's n log n.", "n log n"),
    ("I have no idea, sorry.", None),
    ("Let me think about the edge cases first.", None),
])
def test_a_claim_about_time_not_space_and_none_without_one(text: str, klass: str | None) -> None:
    assert parse_claim(text) == klass


def test_claim_score() -> None:
    assert claim_score("n", "n") == 1.0 and claim_score("n log n", "n") == 0.5
    assert claim_score("n^2", "n") == 0.0 and claim_score(None, "n") == 0.0
    assert claim_score("n", None) is None
