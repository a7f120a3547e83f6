"""The session clock: ``time.monotonic()`` moments as the events' ``t_ms``.

Event ``t_ms`` comes from Redis' clock (``store.events``), an offset from the session's first
event. Audio is timed on this process' monotonic clock. The mapping starts from the wall
clock and the session's ``started_ms``, and is corrected by every event this process records
(its ``t_ms`` was taken between the call and the reply): the narrowest such window wins, so
a Redis host whose clock differs from ours still gets audio that lines up with the events.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from core.events import Event
from realtime.ports import Outbox


class SessionClock:
    def __init__(self, started_ms: int, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time):
        self._clock = clock
        # session_ms(m) = m * 1000 + offset
        self._offset_ms = wall() * 1000 - started_ms - clock() * 1000
        self._window_s = float("inf")

    def ms(self, moment: float) -> int:
        return max(0, round(moment * 1000 + self._offset_ms))

    def now_ms(self) -> int:
        return self.ms(self._clock())

    def calibrate(self, t_ms: int, before: float, after: float) -> None:
        """An event stamped ``t_ms`` was recorded between ``before`` and ``after``."""
        window = after - before
        if window <= self._window_s:
            self._window_s = window
            self._offset_ms = t_ms - (before + after) / 2 * 1000


class ClockedOutbox:
    """An :class:`Outbox` that sets the session clock from the events it records."""

    def __init__(self, inner: Outbox, session_clock: SessionClock,
                 clock: Callable[[], float] = time.monotonic):
        self._inner = inner
        self._session_clock = session_clock
        self._clock = clock

    async def send_event(self, event: Event) -> dict[str, Any]:
        before = self._clock()
        recorded = await self._inner.send_event(event)
        if isinstance(recorded.get("t_ms"), int):
            self._session_clock.calibrate(recorded["t_ms"], before, self._clock())
        return recorded

    async def send_audio(self, pcm: bytes) -> None:
        await self._inner.send_audio(pcm)
