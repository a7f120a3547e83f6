"""Every session stream is bounded (issue 23, item 3): capped length, idle expiry.

The cap sits far above the longest interview: a recorded voice interview's event rate, over
the longest session the settings allow, stays a fraction of it; a full interview over the
websocket never reaches it (tests/server/test_event_floods.py).
"""

from __future__ import annotations

import asyncio
import io
import json
import tarfile
from pathlib import Path

import redis.asyncio as aioredis
from pydantic import BaseModel

from server.settings import Settings
from store import keys
from store.events import IDLE_TTL_MS, MAX_EVENTS, EventLog
from store.session_state import SessionStateStore

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample_archive" / "viva-sample.tar.gz"
SESSION_KEYS = (keys.session_seq, keys.session_events, keys.session_meta, keys.session_state)


class Doc(BaseModel):
    n: int = 0


async def test_a_flooded_stream_is_trimmed_to_its_cap(aredis: aioredis.Redis) -> None:
    log = EventLog(aredis, max_events=1000)
    store = SessionStateStore(aredis, Doc, max_events=1000)
    version, _ = await store.commit("flood", Doc(), 0, [{"type": "x"}] * 600)
    for i in range(1500):
        await log.append("flood", {"type": "error", "code": "x", "message": str(i)})
    await store.commit("flood", Doc(n=1), version, [{"type": "y"}] * 600)
    length = await aredis.xlen(keys.session_events("flood"))
    # "~" trims whole stream nodes (100 entries by default): never far above the cap
    assert 1000 <= length <= 1100, length
    assert await log.last_seq("flood") == 2700  # seq keeps counting; the oldest went
    newest = await log.range("flood", 2690)
    assert [e["seq"] for e in newest] == list(range(2691, 2701))


async def test_untrimmed_below_the_cap(aredis: aioredis.Redis) -> None:
    log = EventLog(aredis)
    for _ in range(300):
        await log.append("calm", {"type": "x"})
    assert await aredis.xlen(keys.session_events("calm")) == 300


async def test_an_abandoned_sessions_keys_expire(aredis: aioredis.Redis) -> None:
    # No sweep runs here: the keys go by themselves once no event came for the idle TTL.
    store = SessionStateStore(aredis, Doc, idle_ttl_ms=300)
    await store.commit("gone", Doc(), 0, [{"type": "state"}])
    await EventLog(aredis, idle_ttl_ms=300).append("gone", {"type": "x"})
    for key in SESSION_KEYS:
        assert 0 < await aredis.pttl(key("gone")) <= 300
    await asyncio.sleep(0.6)
    assert not await aredis.exists(*(key("gone") for key in SESSION_KEYS))


async def test_each_event_renews_the_idle_ttl(aredis: aioredis.Redis) -> None:
    store = SessionStateStore(aredis, Doc)
    await store.commit("live", Doc(), 0, [{"type": "state"}])
    await aredis.pexpire(keys.session_events("live"), 1000)
    await EventLog(aredis).append("live", {"type": "x"})
    for key in SESSION_KEYS:
        assert IDLE_TTL_MS - 60_000 < await aredis.pttl(key("live")) <= IDLE_TTL_MS


def test_the_idle_ttl_outlasts_abandonment() -> None:
    settings = Settings(env="test", reviewer_token="a-real-secret-123")
    assert settings.session_idle_ttl_hours * 60 > settings.abandon_after_minutes
    assert settings.max_session_events == MAX_EVENTS


def test_the_cap_is_far_above_the_longest_interview() -> None:
    # A real recorded voice interview (the sample archive): its events a minute, over the
    # longest session the defaults allow, with a coding round's edits and judge cases on top.
    with tarfile.open(SAMPLE) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("events.ndjson"))
        handle = tar.extractfile(member)
        assert handle is not None
        events = [json.loads(line) for line in io.TextIOWrapper(handle, "utf-8")]
    minutes = events[-1]["t_ms"] / 60_000
    per_minute = len(events) / minutes
    longest = Settings(env="test", reviewer_token="a-real-secret-123").session_minutes
    coding = 2 * 60 * longest + 30 * 50  # an edit every half second, 30 runs of 50 cases
    assert (per_minute * longest + coding) * 4 < MAX_EVENTS, (per_minute, longest)
