"""Difficulty rules (seed 000 §2.2): self-ratings set the start, answers move it."""

from __future__ import annotations

from agents.question_bank import Difficulty
from agents.state import SelfRatings

_ORDER = [Difficulty.easy, Difficulty.medium, Difficulty.hard]


def from_self_ratings(ratings: SelfRatings) -> Difficulty:
    """Total of the three 1–5 ratings: ≥ 12 hard, 9–11 medium, < 9 easy."""
    if ratings.total >= 12:
        return Difficulty.hard
    if ratings.total >= 9:
        return Difficulty.medium
    return Difficulty.easy


def step(level: Difficulty, delta: int) -> Difficulty:
    i = max(0, min(len(_ORDER) - 1, _ORDER.index(level) + delta))
    return _ORDER[i]


def adjust(level: Difficulty, recent_scores: list[float], *, high: float = 0.8,
           low: float = 0.4) -> Difficulty:
    """Move one level up after two strong main answers in a row, down after two weak ones."""
    last_two = recent_scores[-2:]
    if len(last_two) == 2 and all(s >= high for s in last_two):
        return step(level, +1)
    if len(last_two) == 2 and all(s < low for s in last_two):
        return step(level, -1)
    return level
