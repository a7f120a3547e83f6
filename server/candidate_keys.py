"""Who may add to a candidate's progress: the holder of the candidate key.

A candidate id is chosen, not proven: anyone can type "ada". Without a key, whoever created a
session as "ada" would hold a token of one of ada's sessions, and so read ada's progress and
interview with ada's weak points carried in. So the first session created for an id gets a
**candidate key** (returned once, kept by that browser), and later sessions join the id's
progress (its index and its weak-point profile) only when they present it. A session without
the key is still created, under the same name, but stands alone: it reads nothing of the
candidate's history and adds nothing to it. Only the key's SHA-256 digest is stored.
"""

from __future__ import annotations

import hmac
import secrets

import redis.asyncio as aioredis

from server.archived_session import token_digest
from store import keys

MAX_KEY_LEN = 256



async def claim(redis: aioredis.Redis, candidate_id: str,
                key: str | None) -> tuple[bool, str | None]:
    """(whether the session joins the candidate's progress, a key issued now or None)."""
    name = keys.candidate_key(candidate_id)
    stored = await redis.get(name)
    if stored is None:
        issued = secrets.token_urlsafe(24)
        if await redis.set(name, token_digest(issued), nx=True):
            return True, issued
        stored = await redis.get(name)  # another request claimed the id first
    if key is None or not key.isascii() or not 0 < len(key) <= MAX_KEY_LEN or stored is None:
        return False, None
    stored_s = stored.decode() if isinstance(stored, bytes) else str(stored)
    return hmac.compare_digest(stored_s, token_digest(key)), None


async def joined(redis: aioredis.Redis, candidate_id: str, session_id: str) -> bool:
    """Whether ``session_id`` is part of the candidate's progress (a practice of it joins too)."""
    return await redis.zscore(keys.candidate_sessions(candidate_id), session_id) is not None
