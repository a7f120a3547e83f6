"""A candidate id is chosen, not proven (server/candidate_keys.py): the first session of an
id gets a candidate key; later sessions join the id's progress only with it. Without it a
session is created all the same, but reads nothing of the candidate's history (no progress,
no carried weak points) and adds nothing to it. Real Redis, the real app."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import redis

from tests.server.support import client, create_session
from tests.server.test_practice import WEAK, one_question


def create(c: Any, **body: Any) -> dict[str, Any]:
    payload = {"candidate_id": "ada", "role": "backend engineer", "mode": "text",
               "self_ratings": {"algorithms": 3, "engineering": 3, "projects": 3},
               "max_questions": 1, **body}
    r = c.post("/api/sessions", json=payload)
    assert r.status_code == 201, r.text
    return dict(r.json())


def test_only_the_key_holder_adds_to_and_reads_a_candidates_progress(
        redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        first = create(c)
        key = first["candidate_key"]
        assert key and first["joins_progress"] is True
        one_question(c, first, WEAK)  # ada has a weak point now
        second = create(c, candidate_key=key)
        assert second["joins_progress"] is True and second["candidate_key"] is None

        # Mallory types "ada": a session all the same, standing alone.
        for wrong in (None, "not-the-key", "é" * 10):
            body = {} if wrong is None else {"candidate_key": wrong}
            mallory = create(c, **body)
            assert mallory["joins_progress"] is False and mallory["candidate_key"] is None
            r = c.get("/api/candidates/ada/progress",
                      headers={"Authorization": f"Bearer {mallory['token']}"})
            assert r.status_code == 403 and first["session_id"] not in r.text
        # ... which carries none of ada's weak points into its interview or report.
        auth = {"Authorization": f"Bearer {mallory['token']}"}
        report = c.get(f"/api/sessions/{mallory['session_id']}/report", headers=auth).json()
        assert report["compared_with_earlier"] == []
        state = c.get(f"/api/sessions/{mallory['session_id']}", headers=auth)
        assert state.status_code == 200

        # Ada's own token lists her two sessions, not Mallory's.
        r = c.get("/api/candidates/ada/progress",
                  headers={"Authorization": f"Bearer {second['token']}"})
        assert r.status_code == 200, r.text
        listed = [s["session_id"] for s in r.json()["sessions"]]
        assert mallory["session_id"] not in listed and first["session_id"] in listed

        # Only the key's digest is stored.
        r2 = redis.Redis.from_url(redis_url, decode_responses=True)
        try:
            stored = r2.get("viva:candidate:ada:key")
        finally:
            r2.close()
        assert stored and key not in stored and len(stored) == 64


def test_a_practice_joins_where_its_first_attempt_is(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        create_session(c, candidate_id="ada", max_questions=1)  # ada's key: the helper keeps it
        alone = create(c)  # no key: stands alone
        qid = one_question(c, alone, WEAK)
        r = c.post(f"/api/sessions/{alone['session_id']}/practice", json={"question_id": qid},
                   headers={"Authorization": f"Bearer {alone['token']}"})
        assert r.status_code == 201, r.text
        assert r.json()["joins_progress"] is False
