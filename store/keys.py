"""Redis key names in one place, so every process agrees on them."""

PREFIX = "viva"


def session_state(session_id: str) -> str:
    return f"{PREFIX}:session:{session_id}:state"


def session_events(session_id: str) -> str:
    return f"{PREFIX}:session:{session_id}:events"


def session_seq(session_id: str) -> str:
    return f"{PREFIX}:session:{session_id}:seq"


def session_meta(session_id: str) -> str:
    return f"{PREFIX}:session:{session_id}:meta"


def candidate_profile(candidate_id: str) -> str:
    return f"{PREFIX}:candidate:{candidate_id}:profile"


SESSIONS_INDEX = f"{PREFIX}:sessions"


def session_review(session_id: str) -> str:
    """A reviewer's override of the report (hash: overall_score, note, reviewer)."""
    return f"{PREFIX}:session:{session_id}:review"


def fanout_wake(reader_id: str) -> str:
    """A list the process's event reader blocks on, so a new subscription wakes it."""
    return f"{PREFIX}:fanout:{reader_id}:wake"


# The judge's keys keep their historical ``judge:`` prefix, so queued jobs and stored
# submissions survive an upgrade.
JUDGE_JOBS = "judge:jobs"  # the job queue (a Redis Stream)
JUDGE_WORKERS_GROUP = "judge-workers"  # its consumer group
JUDGE_WORKER_BEATS = "judge:workers"  # sorted set: worker (consumer) name -> last beat, ms


def judge_submission(submission_id: str) -> str:
    return f"judge:sub:{submission_id}"


def judge_submission_finished(submission_id: str) -> str:
    """Set once, by the first finisher (exactly-once finish)."""
    return f"judge:sub:{submission_id}:finished"


def judge_revisions(session_id: str, problem_id: str) -> str:
    """The submission ids of one session's problem, in revision order."""
    return f"judge:revs:{session_id}:{problem_id}"


def ticket(digest: str) -> str:
    """A one-time ticket, by the SHA-256 of its value (the value itself is never stored)."""
    return f"{PREFIX}:ticket:{digest}"


def link(digest: str) -> str:
    """A page link's cookie, by the SHA-256 of its value: the grant it opened."""
    return f"{PREFIX}:link:{digest}"


def candidate_key(candidate_id: str) -> str:
    """The SHA-256 of the candidate key (server/candidate_keys.py); no TTL, like the index."""
    return f"{PREFIX}:candidate:{candidate_id}:key"


def candidate_sessions(candidate_id: str) -> str:
    """Sorted set: the candidate's session ids, scored by creation time (epoch seconds). It has
    no TTL, so the candidate's progress outlives the sessions' own keys (the archive then has
    their reports)."""
    return f"{PREFIX}:candidate:{candidate_id}:sessions"
