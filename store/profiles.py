"""Candidate profiles across sessions: per knowledge point mastery with timestamps.

A profile is a Redis hash ``point_key -> json`` where point_key is ``<question_id>/<point_id>``
or a topic name; the interview engine reads it at the start of a session to steer questions
towards weak points, and writes it after every evaluated answer.
"""

from __future__ import annotations

import time

import redis.asyncio as aioredis
from pydantic import BaseModel

from store import keys


class Mastery(BaseModel):
    key: str  # "<question_id>/<point_id>" or "topic:<topic>"
    score: float  # exponentially smoothed 0..1
    attempts: int
    last_seen: float  # unix seconds
    last_session: str


class ProfileStore:
    def __init__(self, redis: aioredis.Redis, smoothing: float = 0.5):
        self.redis = redis
        self.smoothing = smoothing

    async def load(self, candidate_id: str) -> dict[str, Mastery]:
        raw = await self.redis.hgetall(keys.candidate_profile(candidate_id))
        return {k: Mastery.model_validate_json(v) for k, v in raw.items()}

    async def record(self, candidate_id: str, session_id: str, scores: dict[str, float]) -> None:
        """Fold new scores into the profile. One HSET per key: last writer per key wins,
        which is fine because a candidate has one live interview at a time."""
        if not scores:
            return
        current = await self.load(candidate_id)
        now = time.time()
        updates: dict[str, str] = {}
        for key, score in scores.items():
            old = current.get(key)
            if old is None:
                m = Mastery(key=key, score=score, attempts=1, last_seen=now,
                            last_session=session_id)
            else:
                smoothed = (1 - self.smoothing) * old.score + self.smoothing * score
                m = Mastery(key=key, score=round(smoothed, 4), attempts=old.attempts + 1,
                            last_seen=now, last_session=session_id)
            updates[key] = m.model_dump_json()
        await self.redis.hset(keys.candidate_profile(candidate_id), mapping=updates)

    async def weak_points(self, candidate_id: str, threshold: float = 0.6) -> list[Mastery]:
        profile = await self.load(candidate_id)
        weak = [m for m in profile.values() if m.score < threshold]
        return sorted(weak, key=lambda m: (m.score, -m.last_seen))


