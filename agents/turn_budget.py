"""One model budget per live turn, counted from the answer's arrival.

Grading, a model's judgement (0.8 s at most) and its wording (0.9 s at most) share it: a slow
accept or grading (a loaded machine) leaves the models less time instead of pushing answer ->
feedback past 2 s. Each agent gets the instant the budget ends and asks ``model_deadline``.
"""

from __future__ import annotations

import time

TURN_MODEL_BUDGET_S = 1.7
MIN_MODEL_CALL_S = 0.05  # less left than this: the model is not asked at all


def model_deadline(cap_s: float, budget_ends_s: float | None) -> float:
    """Seconds a model call may take now: its own cap, and no more than the turn has left
    (``budget_ends_s``, a ``time.monotonic()`` instant; None: the cap alone)."""
    if budget_ends_s is None:
        return cap_s
    return min(cap_s, budget_ends_s - time.monotonic())
