"""Submission records in Redis: the evidence chain per revision, finished exactly once.

Keys:
    judge:sub:{id}                      the SubmissionResult (JSON, the reviewer view)
    judge:sub:{id}:finished             set once, by the one worker whose finish counts
    judge:revs:{session}:{problem}      submission ids in revision order (RPUSH → revision)
"""

from __future__ import annotations

import redis.asyncio as aioredis

from judge.models import SubmissionResult
from store import keys

# KEYS: record, finished flag. ARGV: result json. Returns 1 for the first finisher only.
_FINISH = """
if redis.call('SET', KEYS[2], '1', 'NX') then
  redis.call('SET', KEYS[1], ARGV[1])
  return 1
end
return 0
"""
# A progress write must never overwrite a finished record (a reclaimed job's late worker).
_PROGRESS = """
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1
"""


# Key names live in store/keys.py with every other Redis key.
record_key = keys.judge_submission
finished_key = keys.judge_submission_finished
revisions_key = keys.judge_revisions


class SubmissionStore:
    def __init__(self, redis: aioredis.Redis):
        self.redis = redis
        self._finish = redis.register_script(_FINISH)
        self._progress = redis.register_script(_PROGRESS)

    async def create(self, result: SubmissionResult) -> SubmissionResult:
        """Store a new queued submission and give it the next revision number."""
        session = result.session_id or "-"
        revision = await self.redis.rpush(revisions_key(session, result.problem_id),
                                          result.submission_id)
        result.revision = int(revision)
        await self.redis.set(record_key(result.submission_id), result.model_dump_json())
        return result

    async def get(self, submission_id: str) -> SubmissionResult | None:
        raw = await self.redis.get(record_key(submission_id))
        return SubmissionResult.model_validate_json(raw) if raw else None

    async def previous(self, result: SubmissionResult) -> SubmissionResult | None:
        """The revision before ``result`` for the same session and problem."""
        if result.revision <= 1:
            return None
        session = result.session_id or "-"
        previous_id = await self.redis.lindex(revisions_key(session, result.problem_id),
                                              result.revision - 2)
        return await self.get(previous_id) if previous_id else None

    async def revisions(self, session_id: str, problem_id: str) -> list[SubmissionResult]:
        ids = await self.redis.lrange(revisions_key(session_id, problem_id), 0, -1)
        found = [await self.get(i) for i in ids]
        return [r for r in found if r is not None]

    async def save_progress(self, result: SubmissionResult) -> bool:
        done = await self._progress(
            keys=[record_key(result.submission_id), finished_key(result.submission_id)],
            args=[result.model_dump_json()])
        return bool(done)

    async def finish(self, result: SubmissionResult) -> bool:
        """Store the final result; True only for the first caller (exactly-once finish)."""
        done = await self._finish(
            keys=[record_key(result.submission_id), finished_key(result.submission_id)],
            args=[result.model_dump_json()])
        return bool(done)
