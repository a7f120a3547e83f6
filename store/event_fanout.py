"""One reader per process for every live session's event stream, fanned out in memory.

A blocking ``XREAD`` holds its Redis connection for the whole block, so one reader per
websocket caps a process at its pool size. Here one task, on its own connection, reads every
subscribed session's stream in one ``XREAD`` (it takes many keys) and hands the entries to
that session's subscribers. Each subscriber has a bounded buffer: one that falls behind (a
client that reads nothing) loses its buffer and is told to catch up from the stream instead,
which is the source of truth, so memory stays bounded and nothing is lost.

What a :class:`Subscription` yields, after ``subscribe(session_id, after_seq)``: every event
with ``seq > after_seq``, in order, exactly once — either inline (a list of events) or as
:class:`Lagged` ``(until_seq)``, meaning "read ``(last seen, until_seq]`` from the stream".

New subscriptions interrupt the running ``XREAD`` through a per-process wake stream, so a
new session's events from other processes arrive without waiting out the block.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections import deque
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import redis.asyncio as aioredis
import redis.exceptions

from store import keys
from store.events import decode_entry

log = logging.getLogger("viva.fanout")

_EVENTS_PREFIX = keys.session_events("")[: -len(":events")]  # "viva:session:"
_EVENTS_SUFFIX = ":events"


def _session_of(stream_key: str) -> str:
    return stream_key[len(_EVENTS_PREFIX): -len(_EVENTS_SUFFIX)]


@dataclass(frozen=True)
class Lagged:
    """Events up to ``until_seq`` exist that were not buffered: read them from the stream."""

    until_seq: int


class FanoutClosed(Exception):
    """The fanout shut down (the app is stopping)."""


class Subscription:
    """One subscriber's bounded view of a session's events. Use as a context manager."""

    def __init__(self, fanout: EventFanout, session_id: str, after_seq: int, *,
                 max_events: int, max_bytes: int):
        self.fanout = fanout
        self.session_id = session_id
        self.max_events, self.max_bytes = max_events, max_bytes
        self._pending: deque[dict[str, Any]] = deque()
        self._pending_bytes = 0
        self._last_offered = after_seq  # the highest seq handed over or promised via Lagged
        self._lagged_until = 0
        self._ready = asyncio.Event()
        self.closed = False
        self.overflows = 0

    @property
    def pending(self) -> int:
        """Events buffered and not yet taken."""
        return len(self._pending)

    def _lag(self, until_seq: int) -> None:
        self._pending.clear()
        self._pending_bytes = 0
        self._lagged_until = max(self._lagged_until, until_seq)
        self._last_offered = max(self._last_offered, until_seq)
        self._ready.set()

    def _offer(self, events: list[tuple[dict[str, Any], int]]) -> None:
        """Called by the reader with (event, size) in seq order."""
        if self.closed:
            return
        fresh = [(e, n) for e, n in events if e["seq"] > self._last_offered]
        if not fresh:
            return
        last = fresh[-1][0]["seq"]
        if self._lagged_until or fresh[0][0]["seq"] != self._last_offered + 1:
            # Already behind, or a gap (the reader's cursor was ahead of ours): the stream
            # has the missing part.
            self._lag(last)
            return
        size = sum(n for _, n in fresh)
        if (len(self._pending) + len(fresh) > self.max_events
                or self._pending_bytes + size > self.max_bytes):
            self.overflows += 1
            self.fanout.overflows += 1
            self._lag(last)
            return
        self._pending.extend(e for e, _ in fresh)
        self._pending_bytes += size
        self._last_offered = last
        self._ready.set()

    async def get(self) -> list[dict[str, Any]] | Lagged:
        """The next events (a non-empty list in seq order) or a :class:`Lagged` marker."""
        while True:
            if self.closed:
                raise FanoutClosed(f"subscription to {self.session_id} is closed")
            if self._lagged_until:
                marker = Lagged(self._lagged_until)
                self._lagged_until = 0
                return marker
            if self._pending:
                batch = list(self._pending)
                self._pending.clear()
                self._pending_bytes = 0
                return batch
            self._ready.clear()
            await self._ready.wait()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._ready.set()
            self.fanout._unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class EventFanout:
    """Reads every subscribed session stream with one blocking ``XREAD`` and fans out.

    ``reader`` must be a client with its own single connection (``reader_client``): it is
    blocked most of the time. ``waker`` is the request client, used only to interrupt it.
    """

    def __init__(self, reader: aioredis.Redis, waker: aioredis.Redis, *,
                 block_ms: int = 5000, count: int = 200, max_events: int = 256,
                 max_bytes: int = 1 << 20):
        self.reader, self.waker = reader, waker
        self.block_ms, self.count = block_ms, count
        self.max_events, self.max_bytes = max_events, max_bytes
        self._subs: dict[str, set[Subscription]] = {}
        self._cursor: dict[str, int] = {}  # session id → highest seq read from its stream
        self._wake_key = keys.fanout_wake(uuid.uuid4().hex)
        self._wake_cursor = "0-0"
        self._wake_pending = False
        self._wake_tasks: set[asyncio.Task[None]] = set()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self.healthy = False
        self.reads = 0
        self.overflows = 0
        self.last_error: str | None = None

    # -- subscribers --------------------------------------------------------------------

    @property
    def subscribers(self) -> int:
        return sum(len(s) for s in self._subs.values())

    @property
    def streams(self) -> int:
        return len(self._subs)

    @property
    def buffered(self) -> int:
        """Events held in memory for subscribers (bounded by subscribers × max_events)."""
        return sum(sub.pending for subs in self._subs.values() for sub in subs)

    def subscribe(self, session_id: str, after_seq: int) -> Subscription:
        """Follow ``session_id`` from ``after_seq`` on (see the module docstring)."""
        if self._task is None or self._task.done():
            raise FanoutClosed("the event reader is not running")
        sub = Subscription(self, session_id, after_seq, max_events=self.max_events,
                           max_bytes=self.max_bytes)
        self._subs.setdefault(session_id, set()).add(sub)
        cursor = self._cursor.get(session_id)
        if cursor is None:
            self._cursor[session_id] = after_seq
            self._wake()
        elif cursor > after_seq:
            # The reader is past this subscriber's start: those events are in the stream.
            sub._lag(cursor)
        return sub

    def _unsubscribe(self, sub: Subscription) -> None:
        subs = self._subs.get(sub.session_id)
        if subs is None:
            return
        subs.discard(sub)
        if not subs:
            del self._subs[sub.session_id]
            self._cursor.pop(sub.session_id, None)

    # -- the reader ---------------------------------------------------------------------

    def _wake(self) -> None:
        """Make the running XREAD return so it picks up the new stream (coalesced)."""
        if self._wake_pending:
            return
        self._wake_pending = True
        task = asyncio.create_task(self._send_wake(), name="fanout-wake")
        self._wake_tasks.add(task)
        task.add_done_callback(self._wake_tasks.discard)

    async def _send_wake(self) -> None:
        try:
            async with self.waker.pipeline(transaction=False) as pipe:
                pipe.xadd(self._wake_key, {"w": "1"}, maxlen=1, approximate=False)
                pipe.pexpire(self._wake_key, 3_600_000)
                await pipe.execute()
        except redis.exceptions.RedisError as exc:
            # The stream is still read within one block; only the latency suffers.
            log.debug("fanout wake failed: %s", exc)

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="event-fanout")

    async def aclose(self) -> None:
        """Stop the reader. It is woken rather than cancelled mid-read: redis-py 8 can leave
        a task cancelled inside a blocking XREAD hanging; cancelling is the fallback."""
        self._closing = True
        for subs in list(self._subs.values()):
            for sub in list(subs):
                sub.close()
        task = self._task
        if task is not None and not task.done():
            await self._send_wake()
            await asyncio.wait({task}, timeout=2)
            if not task.done():
                task.cancel()
                await asyncio.wait({task}, timeout=2)
            if not task.done():
                log.warning("event reader did not stop; abandoning it")
        for wake in list(self._wake_tasks):
            wake.cancel()
        with contextlib.suppress(redis.exceptions.RedisError, OSError):
            await self.waker.delete(self._wake_key)
        with contextlib.suppress(redis.exceptions.RedisError, OSError, TimeoutError):
            async with asyncio.timeout(2):
                await self.reader.aclose()

    async def _run(self) -> None:
        backoff = 0.1
        while not self._closing:
            # Cleared before the key set is taken: a subscribe after this point wakes us.
            self._wake_pending = False
            streams = {self._wake_key: self._wake_cursor}
            streams.update({keys.session_events(s): f"{c}-0" for s, c in self._cursor.items()})
            try:
                if not self.healthy:  # say "up" now, not after a whole block
                    await self.reader.ping()
                    self.healthy, self.last_error = True, None
                reply = await self.reader.xread(streams, block=self.block_ms, count=self.count)
            except Exception as exc:  # the reader must outlive any error (and log it)
                if self.healthy or self.last_error is None:
                    log.warning("event reader: XREAD failed (%s); retrying", exc)
                self.healthy, self.last_error = False, str(exc)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 2.0)
                continue
            backoff = 0.1
            self.reads += 1
            for stream_key, entries in reply or []:
                if not entries:
                    continue
                if stream_key == self._wake_key:
                    self._wake_cursor = entries[-1][0]
                    continue
                self._dispatch(_session_of(stream_key), entries)

    def _dispatch(self, session_id: str, entries: list[tuple[str, dict[str, str]]]) -> None:
        subs = self._subs.get(session_id)
        if not subs:
            return  # unsubscribed while the read was in flight
        events: list[tuple[dict[str, Any], int]] = []
        for entry_id, fields in entries:
            try:
                events.append((decode_entry(fields), len(fields.get("data", ""))))
            except (KeyError, ValueError) as exc:
                # Not written by the event log: skip it; subscribers see a gap and read
                # the stream, whose reader raises where it can be reported.
                log.error("event reader: bad entry %s in %s: %r", entry_id, session_id, exc)
        if not events:
            return
        last = events[-1][0]["seq"]
        self._cursor[session_id] = max(self._cursor.get(session_id, 0), last)
        for sub in list(subs):
            sub._offer(events)
