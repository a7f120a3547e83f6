"""What the live pipeline needs from the connection and the interview engine.

The websocket layer implements :class:`Outbox`; the interview engine is reached through an
:data:`AnswerHandler`. Voice stages depend on these ports only, never on ``server``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from core.events import Event


class Outbox(Protocol):
    """The way out to one connected client."""

    async def send_event(self, event: Event) -> dict[str, Any]:
        """Record ``event`` (a typed server event) in the session's event stream (adds
        ``seq``, ``t_ms``) and send it to the client in seq order. Returns the recorded
        event's wire form."""
        ...

    async def send_audio(self, pcm: bytes) -> None:
        """Send one binary frame (PCM16 mono). Not recorded in the event stream."""
        ...


# (final transcript text, turn_id) -> the texts the interviewer should now say, in order.
# The handler commits the answer to the interview state before it returns.
AnswerHandler = Callable[[str, str], Awaitable[list[str]]]
