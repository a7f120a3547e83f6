"""Summary statistics shared by the benches."""

from __future__ import annotations

import json
import math
from typing import Any

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


def _r(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r of two arrays (0 where one is constant), as ``pearson`` for lists."""
    x, y = x - x.mean(), y - y.mean()
    den = float(np.sqrt((x * x).sum() * (y * y).sum()))
    return float((x * y).sum()) / den if den else 0.0


def paired_r_difference(a: list[float], b: list[float], labels: list[float],
                        groups: list[str], resamples: int = 2000,
                        seed: int = 0) -> dict[str, float]:
    """r(a, labels) - r(b, labels), with a 95 % interval from a paired cluster bootstrap:
    whole groups (questions) are drawn with replacement, since answers to one question are
    not independent of each other, and both scorers are read on the same draw."""
    ga = np.asarray(a, dtype=float)
    gb = np.asarray(b, dtype=float)
    gl = np.asarray(labels, dtype=float)
    names = sorted(set(groups))
    members = [np.flatnonzero(np.asarray(groups) == g) for g in names]
    rng = np.random.default_rng(seed)
    diffs = np.empty(resamples)
    for i in range(resamples):
        idx = np.concatenate([members[k] for k in rng.integers(0, len(names), len(names))])
        diffs[i] = _r(ga[idx], gl[idx]) - _r(gb[idx], gl[idx])
    low, high = np.percentile(diffs, [2.5, 97.5])
    return {"r_difference": round(pearson(a, labels) - pearson(b, labels), 3),
            "ci95_low": round(float(low), 3), "ci95_high": round(float(high), 3),
            "groups": len(names)}


def emit(figures: dict[str, Any], as_json: bool) -> None:
    """A bench's figures: one ``key: value`` line each unless ``as_json``, then always one
    JSON object as the last stdout line (what ``viva bench … --json`` promises)."""
    if not as_json:
        for key, value in figures.items():
            print(f"{key}: {value}")
    print(json.dumps(figures))
