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
