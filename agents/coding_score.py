"""The coding round's own score and its share of the overall one.

Parts (each 0..1, weights below; a part that did not happen is left out and the others are
scaled up):
- correctness by tier of the last submit (a run, when nothing was submitted, counts its
  samples only): samples 0.2, hidden 0.5, performance 0.3 of it; a tier not reached is 0;
- approach: the assessment points the candidate's talk covered, less ``HINT_COST`` for each
  hint taken;
- complexity: the candidate's claim against the measured (or the reference's) class:
  1 right, 0.5 one class off, 0 wrong, unanswered 0.

The overall score is the concepts mean and the coding score weighed ``1 - CODING_WEIGHT``
to ``CODING_WEIGHT`` when both rounds ran, else the one that did (README, Scoring).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

TIER_WEIGHTS = {"sample": 0.2, "hidden": 0.5, "performance": 0.3}
PART_WEIGHTS = {"correctness": 0.6, "approach": 0.25, "complexity": 0.15}
HINT_COST = 0.15
CODING_WEIGHT = 0.4


class CodingScore(BaseModel):
    score: float | None
    correctness: float | None
    approach: float | None
    complexity: float | None
    hints_used: int = 0
    tiers: dict[str, list[int]] = {}  # tier -> [passed, run]


def tier_counts(cases: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Per tier: [passed, run] over the cases a result carries."""
    out: dict[str, list[int]] = {}
    for case in cases:
        counts = out.setdefault(str(case.get("kind", "hidden")), [0, 0])
        counts[1] += 1
        counts[0] += case.get("verdict") == "AC"
    return out


def correctness(attempt: dict[str, Any]) -> float:
    tiers: dict[str, list[int]] = attempt.get("tiers") or {}
    if attempt.get("kind") == "run":
        passed, run = tiers.get("sample", [0, 0])
        return round(TIER_WEIGHTS["sample"] * (passed / run if run else 0.0), 3)
    if attempt.get("verdict") == "AC":
        return 1.0
    total = 0.0
    for tier, weight in TIER_WEIGHTS.items():
        passed, run = tiers.get(tier, [0, 0])
        total += weight * (passed / run if run else 0.0)
    return round(total, 3)


def coding_score(attempts: list[dict[str, Any]], *, approach: float | None = None,
                 complexity: float | None = None, hints_used: int = 0) -> CodingScore:
    """The round's score from its attempts and the talk's parts (None: did not happen)."""
    submits = [a for a in attempts if a.get("kind") == "submit"]
    last = submits[-1] if submits else (attempts[-1] if attempts else None)
    right = correctness(last) if last is not None else None
    if approach is not None:
        approach = round(max(0.0, approach - HINT_COST * hints_used), 3)
    parts = {"correctness": right, "approach": approach, "complexity": complexity}
    present = {k: v for k, v in parts.items() if v is not None}
    if not present:
        score = None
    else:
        weight = sum(PART_WEIGHTS[k] for k in present)
        score = round(sum(PART_WEIGHTS[k] * v for k, v in present.items()) / weight, 3)
    return CodingScore(score=score, correctness=right, approach=approach,
                       complexity=complexity, hints_used=hints_used,
                       tiers=dict(last.get("tiers") or {}) if last else {})


def overall_score(concepts: float | None, coding: float | None) -> float | None:
    if concepts is None or coding is None:
        return coding if concepts is None else concepts
    return round((1 - CODING_WEIGHT) * concepts + CODING_WEIGHT * coding, 3)
