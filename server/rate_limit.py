"""A token bucket: at most ``rate`` events a second on average, bursts of ``burst``."""

from __future__ import annotations

import time
from collections.abc import Callable


class TokenBucket:
    def __init__(self, rate: float, burst: float,
                 now: Callable[[], float] = time.monotonic):
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self._now = now
        self.stamp = now()

    def take(self, cost: float = 1.0) -> bool:
        """Spend ``cost`` tokens if there are enough; False means: refuse this one."""
        now = self._now()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False
