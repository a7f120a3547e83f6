"""A whole text interview over the real websocket, on real Redis."""

from __future__ import annotations

from pathlib import Path

from agents.feedback import feedback_kind
from agents.grading import grade
from agents.question_bank import Question, load_question_bank
from tests.server.support import client, create_session, send, until

BANK = load_question_bank()


def question_for(question_id: str) -> Question:
    for q in BANK.questions.values():
        if q.id == question_id or any(f.id == question_id for f in q.followups):
            return q
    raise AssertionError(f"unknown question id {question_id}")


def run_interview(redis_url: str, tmp_path: Path, answer_for, max_questions: int = 3):
    events = []
    with client(redis_url, tmp_path) as c:
        s = create_session(c, max_questions=max_questions)
        with c.websocket_connect(f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            got = until(ws, "question") + until(ws, "state")
            events += got
            for _ in range(30):
                q = [e for e in got if e["type"] == "question"][-1]
                send(ws, {"type": "answer", "text": answer_for(q)})
                got = until(ws, "state")
                events += got
                if any(e["type"] == "session_end" for e in got):
                    break
            else:
                raise AssertionError("the interview never ended")
        report = c.get(f"/api/sessions/{s['session_id']}/report",
                       headers={"Authorization": f"Bearer {s['token']}"}).json()
    return events, report


def test_good_answers_get_comments_and_follow_ups(redis_url: str, tmp_path: Path) -> None:
    events, report = run_interview(
        redis_url, tmp_path, lambda q: question_for(q["question_id"]).reference_answer)
    kinds = [e["kind"] for e in events if e["type"] == "feedback" and not e.get("final")]
    phases = [e["phase"] for e in events if e["type"] == "question"]
    assert phases[0] == "warmup"
    assert "followup" in phases, phases  # strong main answers are followed up
    assert kinds.count("comment") >= len(kinds) - 1, kinds
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert events[-1]["type"] == "state" and events[-1]["phase"] == "ended"
    assert any(e["type"] == "session_end" and e["report_url"].endswith("/report")
               for e in events)
    assert report["overall_score"] >= 0.7
    # Every scored point cites the candidate's own words.
    cited = [p for p in report["assessment_points"] if p["score"] > 0]
    assert cited and all(p["evidence"] and p["evidence"][0]["quote"] for p in cited)


def test_poor_answers_get_corrections_and_a_change_of_series(redis_url: str,
                                                             tmp_path: Path) -> None:
    events, report = run_interview(redis_url, tmp_path,
                                   lambda q: "Sorry, I don't know this one.", max_questions=4)
    feedback = [e for e in events if e["type"] == "feedback" and not e.get("final")]
    kinds = [e["kind"] for e in feedback]
    assert kinds and "correction" in kinds, kinds
    # "I don't know" first gets a hint and a smaller sub-question (a follow-up), then the
    # correction; a hint is the only guidance here, and only a hint leads to a follow-up.
    hints = [e for e in feedback if e["kind"] == "guidance"]
    assert all("Here is a hint" in e["text"] for e in hints)
    questions = [e for e in events if e["type"] == "question"]
    assert sum(q["phase"] == "followup" for q in questions) == len(hints)
    # Repeated low scores ease the difficulty.
    states = [e for e in events if e["type"] == "state"]
    assert states[-1]["difficulty"] == "easy"
    assert report["overall_score"] is not None and report["overall_score"] < 0.2
    assert report["weak_points"]


def partial(q: dict) -> str:
    """Exactly the concepts of the heaviest point, nothing else."""
    question = question_for(q["question_id"])
    points = sorted(question.assessment_points, key=lambda p: -p.weight)
    return "Well, " + ", and ".join(c.phrases[0] for c in points[0].concepts) + "."


def test_feedback_kind_follows_the_score(redis_url: str, tmp_path: Path) -> None:
    events, _ = run_interview(redis_url, tmp_path, partial, max_questions=3)
    feedback = [e for e in events if e["type"] == "feedback" and not e.get("final")]
    assert feedback
    for e in feedback:
        assert e["kind"] == feedback_kind(e["score"]), e


def test_partial_answers_get_guidance_across_the_bank() -> None:
    """Over every technical question: half the points → guidance, not praise or correction."""
    kinds = []
    for q in BANK.questions.values():
        if q.topic.value in ("projects", "behavioral"):
            continue
        g = grade(partial({"question_id": q.id}), q.assessment_points, q.misconceptions)
        kinds.append(feedback_kind(g.score))
    assert kinds.count("guidance") >= 0.5 * len(kinds), kinds


def test_no_question_is_asked_twice(redis_url: str, tmp_path: Path) -> None:
    events, _ = run_interview(
        redis_url, tmp_path, lambda q: question_for(q["question_id"]).reference_answer,
        max_questions=6)
    ids = [e["question_id"] for e in events if e["type"] == "question"]
    texts = [e["text"] for e in events if e["type"] == "question"]
    assert len(ids) == len(set(ids)) and len(texts) == len(set(texts))
