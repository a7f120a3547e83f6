"""The Redis store: versioned state never silently overwritten; events strictly ordered."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis
from pydantic import BaseModel

from store.events import EventLog
from store.profiles import ProfileStore
from store.session_state import SessionStateStore, VersionConflict


class Doc(BaseModel):
    items: list[int] = []


async def test_stale_writer_gets_a_conflict(aredis: aioredis.Redis) -> None:
    store = SessionStateStore(aredis, Doc)
    await store.commit("s1", Doc(), 0)
    a = await store.load("s1")
    b = await store.load("s1")
    assert a is not None and b is not None and a.version == b.version == 1
    a.doc.items.append(1)
    await store.commit("s1", a.doc, a.version, [{"type": "x"}])
    b.doc.items.append(2)
    with pytest.raises(VersionConflict):
        await store.commit("s1", b.doc, b.version, [{"type": "y"}])
    final = await store.load("s1")
    assert final is not None and final.doc.items == [1] and final.version == 2
    # The losing writer's events were not written either.
    assert [e["type"] for e in await EventLog(aredis).range("s1")] == ["x"]


async def test_create_twice_conflicts(aredis: aioredis.Redis) -> None:
    store = SessionStateStore(aredis, Doc)
    await store.commit("s2", Doc(), 0)
    with pytest.raises(VersionConflict):
        await store.commit("s2", Doc(items=[9]), 0)


async def test_concurrent_read_modify_write_loses_nothing(aredis: aioredis.Redis) -> None:
    store = SessionStateStore(aredis, Doc)
    await store.commit("s3", Doc(), 0)

    async def add(n: int) -> None:
        while True:
            cur = await store.load("s3")
            assert cur is not None
            cur.doc.items.append(n)
            try:
                await store.commit("s3", cur.doc, cur.version, [{"type": "add", "n": n}])
                return
            except VersionConflict:
                await asyncio.sleep(0)

    await asyncio.gather(*(add(i) for i in range(20)))
    final = await store.load("s3")
    assert final is not None and sorted(final.doc.items) == list(range(20))
    events = await EventLog(aredis).range("s3")
    assert [e["seq"] for e in events] == list(range(1, 21))


async def test_event_seq_is_gapless_under_concurrent_appends(aredis: aioredis.Redis) -> None:
    log = EventLog(aredis)
    await asyncio.gather(*(log.append("s4", {"type": "t", "i": i}) for i in range(100)))
    events = await log.range("s4")
    assert [e["seq"] for e in events] == list(range(1, 101))
    assert all(e["t_ms"] >= 0 for e in events)
    assert [e["seq"] for e in await log.range("s4", after_seq=95)] == [96, 97, 98, 99, 100]
    assert await log.range("s4", after_seq=10, until_seq=12) == events[10:12]
    with pytest.raises(ValueError):
        await log.append("s4", {"no": "type"})


async def test_wait_after_blocks_until_an_event(aredis: aioredis.Redis) -> None:
    log = EventLog(aredis)
    waiter = asyncio.create_task(log.wait_after("s5", 0, block_ms=5000))
    await asyncio.sleep(0.1)
    assert not waiter.done()
    await log.append("s5", {"type": "hello"})
    got = await asyncio.wait_for(waiter, 5)
    assert [e["type"] for e in got] == ["hello"]


async def test_profile_smooths_and_reports_weak_points(aredis: aioredis.Redis) -> None:
    profiles = ProfileStore(aredis)
    await profiles.record("c1", "s1", {"q/a": 0.2, "q/b": 0.9})
    await profiles.record("c1", "s2", {"q/a": 0.6})
    p = await profiles.load("c1")
    assert p["q/a"].attempts == 2 and p["q/a"].score == pytest.approx(0.4)
    assert p["q/a"].last_session == "s2"
    assert [m.key for m in await profiles.weak_points("c1")] == ["q/a"]
