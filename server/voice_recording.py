"""Wires a voice session's recorder: the session clock, and the process' recording writer."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from realtime.ports import Outbox
from realtime.recorder import VoiceRecorder
from realtime.recording_writer import RecordingWriter
from realtime.session_clock import ClockedOutbox, SessionClock
from store import keys
from store.events import now_ms


async def recording_for(app_state: Any, redis: aioredis.Redis, session_id: str,
                        outbox: Outbox) -> tuple[Outbox, VoiceRecorder | None]:
    """The outbox the voice session should use, and its recorder (None: not recording)."""
    writer: RecordingWriter | None = getattr(app_state, "recording_writer", None)
    if writer is None:
        return outbox, None
    started = await redis.hget(keys.session_meta(session_id), "started_ms")
    clock = SessionClock(int(started) if started else now_ms())
    return ClockedOutbox(outbox, clock), VoiceRecorder(session_id, writer, clock)
