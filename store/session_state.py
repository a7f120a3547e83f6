"""Interview state as a versioned document with optimistic concurrency.

``commit`` writes the new state and appends its events in one Lua script: either both land or
neither does, and a writer holding a stale version gets :class:`VersionConflict` instead of
silently overwriting someone else's change. That is what lets a new process resume after a
SIGKILL: what was acknowledged (an event the client saw) is always backed by the state.
"""

from __future__ import annotations

import json
from typing import Any, Generic, TypeVar

import redis.asyncio as aioredis
from pydantic import BaseModel

from store import keys
from store.events import EXPIRE_IDLE_LUA, IDLE_TTL_MS, MAX_EVENTS, now_ms

# KEYS: state, seq, stream, meta. ARGV: expected_version, state_json, now_ms, n, max stream
# length, idle TTL in ms (0: none), event_json...
_COMMIT = """
local ttl = tonumber(ARGV[6])
local current = redis.call('HGET', KEYS[1], 'version')
local expected = tonumber(ARGV[1])
if expected == 0 then
  if current then return {-1, tonumber(current)} end
elseif (not current) or tonumber(current) ~= expected then
  return {-1, tonumber(current or 0)}
end
local version = expected + 1
redis.call('HSET', KEYS[1], 'version', version, 'doc', ARGV[2])
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local started = redis.call('HGET', KEYS[4], 'started_ms')
if not started then
  started = now_ms
  redis.call('HSET', KEYS[4], 'started_ms', started)
end
local t_ms = math.max(0, now_ms - tonumber(started))
local out = {version, t_ms}
for i = 1, tonumber(ARGV[4]) do
  local seq = redis.call('INCR', KEYS[2])
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[5], seq .. '-0', 'seq', seq, 't_ms', t_ms,
             'data', ARGV[6 + i])
  table.insert(out, seq)
end
""" + EXPIRE_IDLE_LUA + """return out
"""

M = TypeVar("M", bound=BaseModel)


class VersionConflict(Exception):
    """Someone else committed first; reload and apply the change again."""

    def __init__(self, key: str, expected: int, actual: int):
        super().__init__(f"{key}: expected version {expected}, found {actual}")
        self.expected, self.actual = expected, actual


class Versioned(Generic[M]):
    """A loaded document and the version it was read at."""

    def __init__(self, doc: M, version: int):
        self.doc, self.version = doc, version


class SessionStateStore(Generic[M]):
    """Versioned state documents of one pydantic model type, keyed by session id."""

    def __init__(self, redis: aioredis.Redis, model: type[M], *, max_events: int = MAX_EVENTS,
                 idle_ttl_ms: int = IDLE_TTL_MS):
        self.redis = redis
        self.model = model
        self.max_events = max_events  # the stream's bound and idle TTL, as store.events
        self.idle_ttl_ms = idle_ttl_ms
        self._commit = redis.register_script(_COMMIT)

    async def load(self, session_id: str) -> Versioned[M] | None:
        raw = await self.redis.hmget(keys.session_state(session_id), ["version", "doc"])
        if raw[0] is None or raw[1] is None:
            return None
        return Versioned(self.model.model_validate_json(raw[1]), int(raw[0]))

    async def commit(self, session_id: str, doc: M, expected_version: int,
                     events: list[dict[str, Any]] | None = None
                     ) -> tuple[int, list[dict[str, Any]]]:
        """Write ``doc`` if the stored version is ``expected_version`` (0 = create) and append
        ``events``. Returns the new version and the recorded events (with seq and t_ms)."""
        events = events or []
        bodies = [{k: v for k, v in e.items() if k not in ("seq", "t_ms")} for e in events]
        for b in bodies:
            if "type" not in b:
                raise ValueError("an event needs a 'type'")
        result = await self._commit(
            keys=[keys.session_state(session_id), keys.session_seq(session_id),
                  keys.session_events(session_id), keys.session_meta(session_id)],
            args=[expected_version, doc.model_dump_json(), now_ms(), len(bodies),
                  self.max_events, self.idle_ttl_ms,
                  *[json.dumps(b, separators=(",", ":")) for b in bodies]],
        )
        if int(result[0]) == -1:
            raise VersionConflict(keys.session_state(session_id), expected_version,
                                  int(result[1]))
        version, t_ms, seqs = int(result[0]), int(result[1]), [int(s) for s in result[2:]]
        recorded = [{**b, "seq": s, "t_ms": t_ms} for b, s in zip(bodies, seqs, strict=True)]
        return version, recorded
