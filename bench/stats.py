"""Summary statistics shared by the benches."""

from __future__ import annotations

import math

import numpy as np


def percentile(values: list[float], q: float) -> float | None:
    """The ``q``-th percentile (0..100, linear interpolation); None when there are no values."""
    if not values:
        return None
    return float(np.percentile(np.asarray(values, dtype=float), q))


def pearson(xs: list[float], ys: list[float]) -> float:
    """Pearson's r; 0.0 when either side is constant."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    cov = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    vx = math.sqrt(sum((x - mx) ** 2 for x in xs))
    vy = math.sqrt(sum((y - my) ** 2 for y in ys))
    return cov / (vx * vy) if vx and vy else 0.0
