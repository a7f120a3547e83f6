"""The per-session event stream: every server event, in order, with ``seq`` and ``t_ms``.

A Redis Stream whose entry ids are ``<seq>-0``, so ``seq`` is both the public sequence number
and the stream position: replay after N is one XRANGE. ``seq`` and the entry are written by
one Lua script, so concurrent writers (app, judge worker, another app process) never reorder
or collide. The stream is the recording: playback and reports read it back.
"""

from __future__ import annotations

import json
import time
from typing import Any

import redis.asyncio as aioredis

from core.events import Event, wire
from store import keys

# Far above the longest interview (a 45-minute voice interview with a coding round records
# a few thousand events: tests/store/test_event_bounds.py), so only a flood meets it. Redis
# trims whole nodes ("~"), so a stream may hold slightly more.
MAX_EVENTS = 50_000
# A session whose stream has had no event this long expires (seq, stream, meta, state),
# even when no sweep ever ran. The archive sweep ends and archives an abandoned session
# long before (abandon_after_minutes); archived keys get their own, shorter TTL.
IDLE_TTL_MS = 14 * 24 * 3_600_000

# Every write of a session's events renews its keys' idle TTL (the archiver then sets the
# shorter after-archive TTL, or none). KEYS[1..4] are the session's keys; ttl in ms.
EXPIRE_IDLE_LUA = """
if ttl > 0 then
  for i = 1, 4 do
    redis.call('PEXPIRE', KEYS[i], ttl)
  end
end
"""

# KEYS: seq counter, stream, meta hash, state. ARGV: event json (without seq/t_ms), now_ms,
# max stream length, idle TTL in ms (0: none).
# The session's start time is fixed by the first event so t_ms is an offset from the start.
_APPEND = """
local ttl = tonumber(ARGV[4])
local seq = redis.call('INCR', KEYS[1])
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local started = redis.call('HGET', KEYS[3], 'started_ms')
if not started then
  started = now_ms
  redis.call('HSET', KEYS[3], 'started_ms', started)
end
local t_ms = math.max(0, now_ms - tonumber(started))
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], seq .. '-0',
           'seq', seq, 't_ms', t_ms, 'data', ARGV[1])
""" + EXPIRE_IDLE_LUA + """return {seq, t_ms}
"""


def now_ms() -> int:
    return int(time.time() * 1000)


def decode_entry(fields: dict[str, str]) -> dict[str, Any]:
    event: dict[str, Any] = json.loads(fields["data"])
    event["seq"] = int(fields["seq"])
    event["t_ms"] = int(fields["t_ms"])
    return event


class EventLog:
    """Append and read a session's events. Use a client with ``decode_responses=True``."""

    def __init__(self, redis: aioredis.Redis, *, max_events: int = MAX_EVENTS,
                 idle_ttl_ms: int = IDLE_TTL_MS):
        self.redis = redis
        self.max_events = max_events
        self.idle_ttl_ms = idle_ttl_ms
        self._append = redis.register_script(_APPEND)

    def script_keys(self, session_id: str) -> list[str]:
        """The append script's keys (tests pipeline the script itself)."""
        return [keys.session_seq(session_id), keys.session_events(session_id),
                keys.session_meta(session_id), keys.session_state(session_id)]

    def script_args(self, body_json: str) -> list[str | int]:
        return [body_json, now_ms(), self.max_events, self.idle_ttl_ms]

    async def append(self, session_id: str, event: Event | dict[str, Any]) -> dict[str, Any]:
        """Record ``event`` (a ``core.events`` model, or any dict with a ``type``: the stream
        itself is generic); returns its wire form with ``seq`` and ``t_ms`` added."""
        if isinstance(event, Event):
            event = wire(event)
        if "type" not in event:
            raise ValueError("an event needs a 'type'")
        body = {k: v for k, v in event.items() if k not in ("seq", "t_ms")}
        seq, t_ms = await self._append(keys=self.script_keys(session_id),
                                       args=self.script_args(json.dumps(body,
                                                                        separators=(",", ":"))))
        return {**body, "seq": int(seq), "t_ms": int(t_ms)}

    async def range(self, session_id: str, after_seq: int = 0,
                    until_seq: int | None = None, count: int | None = None
                    ) -> list[dict[str, Any]]:
        """Events with ``after_seq < seq <= until_seq`` in order."""
        start = f"{after_seq + 1}-0"
        end = f"{until_seq}-0" if until_seq is not None else "+"
        if until_seq is not None and until_seq <= after_seq:
            return []
        entries = await self.redis.xrange(keys.session_events(session_id), start, end,
                                          count=count)
        return [decode_entry(fields) for _, fields in entries]

    async def wait_after(self, session_id: str, after_seq: int,
                         block_ms: int = 15000) -> list[dict[str, Any]]:
        """Block until events after ``after_seq`` exist (or the timeout); return them.

        This holds a pool connection for the whole block: fine for a script or a test, not
        per websocket (the app follows live sessions with ``store.event_fanout``)."""
        result = await self.redis.xread(
            {keys.session_events(session_id): f"{after_seq}-0"}, block=block_ms, count=500)
        if not result:
            return []
        _, entries = result[0]
        return [decode_entry(fields) for _, fields in entries]

    async def last_seq(self, session_id: str) -> int:
        value = await self.redis.get(keys.session_seq(session_id))
        return int(value) if value else 0
