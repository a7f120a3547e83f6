"""Progress across interviews (issue 25, item 7) over HTTP on real Redis, the bank and the
grader: two interviews and one practice of one candidate are listed with scores per topic and
weak points over time; another candidate's token sees nothing; no reference answer leaks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.names import topic_name
from agents.question_bank import load_question_bank
from server.archived_session import load_archive
from server.routes.progress import ProgressSession, _focus, build_progress
from tests.server.support import answer_until_end, client, create_session, send
from tests.server.test_practice import WEAK, one_question


def test_progress_lists_interviews_and_practice(redis_url: str, tmp_path: Path) -> None:
    bank = load_question_bank()
    with client(redis_url, tmp_path) as c:
        first = create_session(c, candidate_id="ada", max_questions=1)
        qid = one_question(c, first, WEAK)
        second = create_session(c, candidate_id="ada", max_questions=1)
        one_question(c, second, WEAK)
        auth = {"Authorization": f"Bearer {first['token']}"}
        r = c.post(f"/api/sessions/{first['session_id']}/practice",
                   json={"question_id": qid}, headers=auth)
        assert r.status_code == 201, r.text
        practice = r.json()
        assert one_question(c, practice, None) == qid  # the model answer: an improvement
        other = create_session(c, candidate_id="grace", max_questions=1)

        url = "/api/candidates/ada/progress"
        assert c.get(url).status_code == 401
        r = c.get(url, headers={"Authorization": f"Bearer {other['token']}"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
        assert first["session_id"] not in r.text
        assert c.get(url, headers={"Authorization": "Bearer é".encode()}).status_code == 401

        # Any of ada's tokens opens it (the practice's too), and the reviewer's.
        r = c.get(url, headers={"Authorization": f"Bearer {practice['token']}"})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body == c.get(url, headers={
            "Authorization": "Bearer reviewer-secret-xyz"}).json()
        assert body["candidate_id"] == "ada"
        sessions = body["sessions"]
        assert [s["session_id"] for s in sessions] == [
            first["session_id"], second["session_id"], practice["session_id"]]
        assert [s["kind"] for s in sessions] == ["interview", "interview", "practice"]
        topic = bank.get(qid).topic
        for s in sessions:
            assert list(s["topics"]) and all(" " in t or t[:1].isupper() for t in s["topics"])
            assert s["overall_score"] is not None
        assert topic_name(topic) in sessions[2]["topics"]
        assert sessions[2]["topics"][topic_name(topic)] > sessions[0]["topics"][
            topic_name(topic)]
        statuses = {w["key"]: w["status"] for w in body["weak_points"]}
        assert statuses and set(statuses.values()) <= {"improved", "still weak", "new"}
        # The practice answered the first question's points: those weak points improved.
        assert any(k.startswith(qid + "/") and v == "improved" for k, v in statuses.items())
        assert all(w["text"] and "/" not in w["text"].split(" (on")[0]
                   for w in body["weak_points"])
        assert body["suggested_focus"]["reason"]

        # No reference answer of any question asked leaks, in JSON or printable HTML.
        html = c.get(url + ".html", headers=auth)
        assert html.status_code == 200 and "<script" not in html.text
        assert "default-src 'none'" in html.headers["content-security-policy"]
        ref = bank.get(qid).reference_answer
        assert ref[:40] not in r.text and ref[:40] not in html.text
        assert "reference_answer" not in r.text

        # The printable page refuses as a page (a browser follows links to it), not JSON;
        # a link ticket of one of ada's sessions opens it, and opens nothing of grace's.
        bare = c.get(url + ".html")
        assert bare.status_code == 401 and "text/html" in bare.headers["content-type"]
        assert "not open to this browser" in bare.text and '"error"' not in bare.text
        wrong = c.get(url + ".html", headers={"Authorization": f"Bearer {other['token']}"})
        assert wrong.status_code == 403 and first["session_id"] not in wrong.text
        ticket = c.post(f"/api/sessions/{second['session_id']}/ticket", headers={
            "Authorization": f"Bearer {second['token']}"}).json()["ticket"]
        opened = c.get(url + ".html", params={"ticket": ticket})  # 303, cookie, clean URL
        assert opened.status_code == 200 and "Progress of ada" in opened.text
        assert "ticket=" not in str(opened.url)
        assert c.get("/api/candidates/grace/progress.html").status_code == 401
        c.cookies.clear()

        # grace's page shows only grace.
        gr = c.get("/api/candidates/grace/progress",
                   headers={"Authorization": f"Bearer {other['token']}"}).json()
        assert [s["session_id"] for s in gr["sessions"]] == [other["session_id"]]


def test_progress_outlives_the_redis_keys(redis_url: str, tmp_path: Path) -> None:
    """Once a finished session's Redis keys are gone, the archive gives its scores and its
    token still opens the candidate's progress."""
    import redis as sync_redis

    with client(redis_url, tmp_path) as c:
        s = create_session(c, candidate_id="lin", max_questions=1)
        one_question(c, s, WEAK)
        auth = {"Authorization": f"Bearer {s['token']}"}
        live = c.get("/api/candidates/lin/progress", headers=auth).json()
        app: Any = c.app

        async def archive() -> None:
            # The end of the session already asked for its archive: let that finish first.
            await app.state.archiver.settle()
            if load_archive(tmp_path, s["session_id"]) is None:
                assert await app.state.archiver.archive(s["session_id"]) is not None
            assert load_archive(tmp_path, s["session_id"]) is not None

        assert c.portal is not None
        c.portal.call(archive)
        store = sync_redis.Redis.from_url(redis_url)
        for k in store.scan_iter(f"viva:session:{s['session_id']}:*"):
            store.delete(k)
        assert c.get(f"/api/sessions/{s['session_id']}/report", headers=auth).status_code == 200
        after = c.get("/api/candidates/lin/progress", headers=auth)
        assert after.status_code == 200, after.text
        assert after.json()["sessions"] == live["sessions"]


def _session(sid: str, topics: dict[str, float]) -> ProgressSession:
    return ProgressSession(session_id=sid, started_at="2026-01-01T10:00:00Z", kind="interview",
                           status="finished", overall_score=None, reviewed=False,
                           topics=topics)


def test_weak_points_over_time_improved_still_weak_and_new() -> None:
    bank = load_question_bank()
    q1, q2, q3 = list(bank.questions)[:3]

    def report(asked: list[str], weak: list[str]) -> dict[str, Any]:
        return {"status": "ended", "overall_score": 0.5, "weak_point_keys": weak,
                "questions": [{"question_id": q, "topic": "databases", "score": 0.5}
                              for q in asked]}

    p1, p2 = bank.get(q1).assessment_points[0].id, bank.get(q2).assessment_points[0].id
    rows = [("a", 1.0, report([q1, q2], [f"{q1}/{p1}", f"{q2}/{p2}"])),
            # q1 asked again: weak again; q2 asked again: answered this time.
            ("b", 2.0, report([q1, q2], [f"{q1}/{p1}"])),
            ("c", 3.0, report([q3], [f"topic:{bank.get(q3).topic}"]))]
    progress = build_progress("ada", rows, bank)
    statuses = {w.key: w.status for w in progress.weak_points}
    assert statuses == {f"{q1}/{p1}": "still weak", f"{q2}/{p2}": "improved",
                        f"topic:{bank.get(q3).topic}": "new"}
    assert [w.status for w in progress.weak_points] == ["still weak", "new", "improved"]
    still = progress.weak_points[0]
    assert (still.first_seen, still.last_seen) == ("a", "b")
    assert bank.get(q1).text in still.text  # words, not the key
    # Only what is still weak is offered as the next focus's points.
    assert progress.suggested_focus.points == [w.text for w in progress.weak_points[:2]]


def test_suggested_focus_is_the_weakest_latest_topic_and_says_when_none_is_weak() -> None:
    older = _session("a", {"Databases": 0.3, "Concurrency": 0.6})
    newer = _session("b", {"Databases": 0.9})  # databases improved: its latest score counts
    focus = _focus([older, newer], [])
    assert focus.topic == "Concurrency" and "lowest latest score (60 out of 100)" in focus.reason
    assert focus.topic_key == "concurrency"  # what POST /api/sessions takes as focus_topic
    strong = _focus([_session("c", {"Databases": 0.95, "Concurrency": 0.85})], [])
    assert strong.topic == "Concurrency"
    assert "scored 85 or more" in strong.reason and "lowest latest" not in strong.reason
    full = _focus([_session("d", {"Databases": 1.0})], [])
    assert "scored 100 in" in full.reason and "or more" not in full.reason
    assert "lowest" not in full.reason and "harder level" in full.reason
    assert _focus([], []).topic is None


def test_an_interview_focused_on_a_topic_starts_there_and_returns_to_it(
        redis_url: str, tmp_path: Path) -> None:
    bank = load_question_bank()
    with client(redis_url, tmp_path) as c:
        r = c.post("/api/sessions", json={
            "candidate_id": "ada", "role": "backend engineer", "mode": "text",
            "self_ratings": {"algorithms": 3, "engineering": 3, "projects": 3},
            "focus_topic": "no_such_topic"})
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_input"

        def main_topics(focus: str | None) -> list[str]:
            s = create_session(c, max_questions=5, **({"focus_topic": focus} if focus else {}))
            with c.websocket_connect(f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
                send(ws, {"type": "start"})
                # Model answers: no streak of misses sends the interview off the topic.
                events = answer_until_end(
                    ws, [], max_answers=16,
                    reply=lambda q: model_answer(bank, q["question_id"]))
            asked = [e for e in until_questions(events) if e["phase"] == "initial"]
            return [bank.get(e["question_id"]).topic.value for e in asked]

        plain = main_topics(None)
        focused = main_topics("concurrency")
        assert focused and focused[0] == "concurrency", focused
        assert plain[0] != "concurrency", plain  # so the focus, not the plan, chose it
        assert focused.count("concurrency") > plain.count("concurrency"), (focused, plain)


def until_questions(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "question"]


def model_answer(bank: Any, question_id: str) -> str:
    """The bank's reference answer (a follow-up has none of its own: a fair partial one)."""
    if question_id in bank.questions:
        return str(bank.get(question_id).reference_answer)
    return "It trades some memory for speed in the common case, and I would measure it."
