"""The report a person reads, from a real text interview (real Redis, the bank, the grader):
each answer quoted once with a link to the moment it was given, covered and missed points as
sentences, one next step per question, names and never ids; the bank's model answer only once
the interview has ended, never while it is live; the reviewer's list says what state a
session is in."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from agents.question_bank import load_question_bank
from tests.server.support import answer_until_end, client, create_session, send, until

REVIEWER = {"Authorization": "Bearer reviewer-secret-xyz"}
ANSWERS = ["It keeps the rows sorted in a separate tree structure, so lookups skip a full "
           "scan, but every insert has to update it too.",
           "I am not sure, maybe it is about making the writes durable on disk."]


def visible_text(page: str) -> str:
    body = re.sub(r"<style.*?</style>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def test_report_question_by_question_with_model_answers_only_after_the_end(
        redis_url: str, tmp_path: Path) -> None:
    bank = load_question_bank()
    with client(redis_url, tmp_path) as c:
        s = create_session(c, max_questions=2)
        sid, auth = s["session_id"], {"Authorization": f"Bearer {s['token']}"}
        asked: list[str] = []
        with c.websocket_connect(f"/ws/sessions/{sid}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            asked.append(until(ws, "question")[-1]["question_id"])
            send(ws, {"type": "answer", "text": ANSWERS[0]})
            got = until(ws, "feedback")
            # Live: the report holds no model answer, and its page shows none.
            live = c.get(f"/api/sessions/{sid}/report", headers=auth).json()
            assert live["progress"] == "in progress"
            assert all(q["reference_answer"] is None and q["missed_points"] == []
                       and q["missed"] == [] for q in live["questions"])
            live_page = visible_text(c.get(f"/sessions/{sid}/report", headers=auth).text)
            for qid in asked:
                reference = " ".join(bank.get(qid).reference_answer.split())
                assert reference[:60] not in live_page
            assert "Model answer" not in live_page
            listing = c.get("/api/review/sessions", headers=REVIEWER).json()
            assert [r["status"] for r in listing if r["session_id"] == sid] == ["in progress"]
            for _ in range(5):  # the next question (a follow-up or a new one)
                if got[-1]["type"] == "question":
                    break
                got.append(ws.receive_json())
            answer_until_end(ws, ANSWERS[1:], waiting=True)

        events = [json.loads(line) for line in
                  c.get(f"/api/sessions/{sid}/events", headers=auth).text.splitlines()]
        finals = {e["turn_id"]: e for e in events if e["type"] == "transcript_final"}
        report = c.get(f"/api/sessions/{sid}/report", headers=auth).json()
        assert report["progress"] == "finished"
        assert report["questions"], "no question in the report"
        for q in report["questions"]:
            question = bank.get(q["question_id"])
            assert q["reference_answer"] == question.reference_answer  # once it has ended
            assert q["next_step"] and q["covered"] + q["missed"]
            assert all(line.startswith("You ") for line in q["covered"] + q["missed"])
            for ex in q["exchanges"]:
                if ex["answer"]:  # typed: the moment it was sent
                    assert ex["answer_t_ms"] == finals[ex["turn_id"]]["t_ms"]

        page = c.get(f"/sessions/{sid}/report", headers=auth).text
        text = visible_text(page)
        for answer in ANSWERS:
            assert text.count(answer) == 1, f"quoted {text.count(answer)} times: {answer}"
        assert text.count("Next step:") == len(report["questions"])
        assert "Model answer" in text
        # Names, never ids: no question or point id, no "topic:" key, no snake_case topic.
        for q in report["questions"]:
            question = bank.get(q["question_id"])
            assert question.id not in text
            for point in question.assessment_points:
                assert f"{question.id}/{point.id}" not in text
        assert "topic:" not in text and not re.search(r"\b[a-z]+_[a-z]+\b", text)
        # Each answer's link opens playback where that answer was given.
        moments = re.findall(r"data-t='(\d+)' data-turn='([0-9a-f]+)' href='/playback/"
                             rf"{sid}\?t=(\d+)'", page)
        assert len(moments) == len(finals)
        for data_t, turn, t in moments:
            assert int(t) == int(data_t) == finals[turn]["t_ms"]
