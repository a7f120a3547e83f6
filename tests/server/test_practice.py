""""Try this one again" over HTTP and the websocket (real Redis, the bank, the grader): a
finished interview's question is asked again in a practice session, graded the same way; the
practice report sets both attempts side by side and links the first, which stays as it was.
Only the interview's own token (or the reviewer) may start one, only once it has ended, and
only for a question it asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from agents.question_bank import load_question_bank
from tests.server.support import answer_until_end, client, create_session, send, until

WEAK = "It is something to do with data, I think."  # weak; not "I don't know" (a hint)


def one_question(c: TestClient, s: dict[str, Any], answer: str | None) -> str:
    """Starts the session, answers its one question (``None``: the bank's model answer),
    waits for the end; the question's id."""
    bank = load_question_bank()
    with c.websocket_connect(f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
        send(ws, {"type": "start"})
        qid: str = until(ws, "question")[-1]["question_id"]
        answer_until_end(ws, [answer or bank.get(qid).reference_answer], waiting=True)
    return qid


def test_practice_asks_the_same_question_and_compares(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        first = create_session(c, max_questions=1)
        sid, auth = first["session_id"], {"Authorization": f"Bearer {first['token']}"}
        other = create_session(c, candidate_id="someone-else", max_questions=1)
        url = f"/api/sessions/{sid}/practice"

        # Not before the interview has ended (its questions are still being asked).
        r = c.post(url, json={"question_id": "x"}, headers=auth)
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_ended"
        qid = one_question(c, first, WEAK)
        before = c.get(f"/api/sessions/{sid}/report", headers=auth).json()

        # Another session's token may not; a question the interview did not ask is refused.
        r = c.post(url, json={"question_id": qid},
                   headers={"Authorization": f"Bearer {other['token']}"})
        assert r.status_code == 403, r.text
        assert c.post(url, json={"question_id": qid}).status_code == 401
        r = c.post(url, json={"question_id": "no-such-question"}, headers=auth)
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_input"
        assert c.post(url, json={"question_id": qid, "extra": 1}, headers=auth
                      ).status_code == 422

        r = c.post(url, json={"question_id": qid, "mode": "text"}, headers=auth)
        assert r.status_code == 201, r.text
        practice = r.json()
        assert practice["session_id"] != sid
        assert one_question(c, practice, None) == qid  # the same question, and only it
        pauth = {"Authorization": f"Bearer {practice['token']}"}
        report = c.get(f"/api/sessions/{practice['session_id']}/report", headers=pauth).json()
        assert report["practice_of"] == sid
        assert [q["question_id"] for q in report["questions"]] == [qid]
        compared = report["practice"]
        assert compared["of"] == sid and compared["question_id"] == qid
        assert compared["before"]["answer"] == WEAK
        assert compared["before"]["score"] == before["questions"][0]["score"]
        assert compared["after"]["score"] > compared["before"]["score"]
        # The practice token opens the practice, not the first attempt.
        assert c.get(f"/api/sessions/{sid}/report", headers=pauth).status_code == 403

        # The first attempt stays as it was.
        after = c.get(f"/api/sessions/{sid}/report", headers=auth).json()
        assert after["questions"] == before["questions"]
        assert after["overall_score"] == before["overall_score"]
        page = c.get(f"/sessions/{practice['session_id']}/report", headers=pauth).text
        assert f"href='/playback/{sid}'" in page and "practice-before" in page
