"""The judge job queue: a Redis Stream with one consumer group shared by every worker.

A worker reads new entries with XREADGROUP, refreshes the entry's idle time while it works
(XCLAIM to itself: a heartbeat), and XACKs when done. Entries idle longer than the reclaim
time belong to a dead worker: XAUTOCLAIM hands them to a live one. Finishing is made
exactly-once by the submission store, so a slow-but-alive duplicate cannot finish twice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from store import keys

STREAM = keys.JUDGE_JOBS
GROUP = keys.JUDGE_WORKERS_GROUP
WORKERS = keys.JUDGE_WORKER_BEATS  # sorted set: consumer name -> last beat (ms since the epoch)


@dataclass(frozen=True)
class Job:
    message_id: str
    submission_id: str
    deliveries: int = 1


class JobQueue:
    def __init__(self, redis: aioredis.Redis, stream: str = STREAM, group: str = GROUP):
        self.redis = redis
        self.stream = stream
        self.group = group
        self._group_ready = False

    async def ensure_group(self) -> None:
        if self._group_ready:
            return
        try:
            await self.redis.xgroup_create(self.stream, self.group, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        self._group_ready = True

    async def enqueue(self, submission_id: str) -> str:
        await self.ensure_group()
        return str(await self.redis.xadd(self.stream, {"submission_id": submission_id}))

    async def read(self, consumer: str, block_ms: int = 1000, count: int = 1) -> list[Job]:
        await self.ensure_group()
        reply = await self.redis.xreadgroup(self.group, consumer, {self.stream: ">"},
                                            count=count, block=block_ms)
        jobs = []
        for _stream, entries in reply or []:
            for message_id, fields in entries:
                jobs.append(Job(message_id, fields.get("submission_id", "")))
        return jobs

    async def reclaim(self, consumer: str, min_idle_ms: int, count: int = 10) -> list[Job]:
        """Take over entries a dead worker left pending longer than ``min_idle_ms``."""
        await self.ensure_group()
        reply = await self.redis.xautoclaim(self.stream, self.group, consumer,
                                            min_idle_time=min_idle_ms, start_id="0-0",
                                            count=count)
        entries = reply[1] if reply else []
        jobs = []
        for message_id, fields in entries:
            if not fields:  # deleted meanwhile
                continue
            pending = await self.redis.xpending_range(self.stream, self.group, message_id,
                                                      message_id, 1)
            deliveries = int(pending[0]["times_delivered"]) if pending else 1
            jobs.append(Job(message_id, fields.get("submission_id", ""), deliveries))
        return jobs

    async def heartbeat(self, consumer: str, message_id: str) -> None:
        """Reset the entry's idle time so nobody reclaims a job that is still being worked."""
        await self.redis.xclaim(self.stream, self.group, consumer, min_idle_time=0,
                                message_ids=[message_id], justid=True)

    async def ack(self, message_id: str) -> None:
        await self.redis.xack(self.stream, self.group, message_id)
        await self.redis.xdel(self.stream, message_id)

    async def pending_count(self) -> int:
        await self.ensure_group()
        info = await self.redis.xpending(self.stream, self.group)
        return int(info["pending"]) if info else 0

    async def beat(self, consumer: str) -> None:
        """A worker says it is alive. (XINFO CONSUMERS cannot tell: Redis 7 creates a
        consumer only when a read hands it an entry, so an idle worker is not listed.)"""
        await self.redis.zadd(WORKERS, {consumer: int(time.time() * 1000)})

    async def live_consumers(self, max_idle_ms: int = 10_000) -> int:
        """Workers that beat lately (clocks of hosts sharing a Redis are assumed in sync to
        well under ``max_idle_ms``); long-dead ones are forgotten."""
        now = int(time.time() * 1000)
        await self.redis.zremrangebyscore(WORKERS, "-inf", now - 3_600_000)
        return int(await self.redis.zcount(WORKERS, now - max_idle_ms, "+inf"))
