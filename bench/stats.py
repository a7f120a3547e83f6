"""Summary statistics shared by the benches."""

from __future__ import annotations

import numpy as np


def percentile(values: list[float], q: float) -> float | None:
    """The ``q``-th percentile (0..100, linear interpolation); None when there are no values."""
    if not values:
        return None
    return float(np.percentile(np.asarray(values, dtype=float), q))
