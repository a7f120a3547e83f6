"""The coding round end to end over the websocket: a real judge (bubblewrap), the interviewer
speaking about the evidence, and the report anchored on test results."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.server.support import client, create_session, send, until

pytestmark = pytest.mark.slow


def test_coding_round_with_the_real_judge(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path, judge_enabled=True, judge_backend="bwrap",
                judge_in_process_worker=True) as c:
        assert c.get("/healthz").json()["judge_backend"] == "bwrap"
        s = create_session(c, rounds=["coding"])
        with c.websocket_connect(f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            got = until(ws, "question")
            task = next(e for e in got if e["type"] == "coding_task")
            assert got[-1]["phase"] == "coding"
            assert set(task["templates"]) == {"python", "c", "cpp", "java", "go", "javascript"}
            assert len(task["samples"]) >= 3
            pid = task["problem_id"]
            solutions = ROOT / "bank" / "problems" / pid / "solutions"

            send(ws, {"type": "code_change", "problem_id": pid, "language": "python",
                      "code": "print(1)"})
            send(ws, {"type": "submit", "problem_id": pid, "language": "python",
                      "code": (solutions / "wrong.py").read_text(), "kind": "submit"})
            got = until(ws, "judge_result", limit=200)
            result = got[-1]
            cases = [e for e in got if e["type"] == "judge_case"]
            assert result["verdict"] == "WA" and cases
            for case in cases:  # hidden evidence never reaches the candidate
                if case["kind"] != "sample":
                    assert "input" not in case and "expected" not in case
            for case in result["cases"]:
                if case["kind"] != "sample":
                    assert "input" not in case and "expected" not in case
            spoken = until(ws, "feedback")[-1]
            assert spoken["kind"] in ("guidance", "correction")
            assert f"of {result['total']}" in spoken["text"]

            send(ws, {"type": "submit", "problem_id": pid, "language": "python",
                      "code": (solutions / "reference.py").read_text(), "kind": "submit"})
            result = until(ws, "judge_result", limit=200)[-1]
            assert result["verdict"] == "AC" and result["passed"] == result["total"]
            assert result["revision"] == 2 and result["diff"]
            spoken = until(ws, "feedback")[-1]
            assert spoken["kind"] == "comment" and "complexity" in spoken["text"]

            # After the verdict (never before it) the judge times the accepted code.
            got = until(ws, "complexity_measured", limit=100)
            timing = got[-1]
            assert timing["submission_id"] == result["submission_id"]
            assert timing["seq"] > result["seq"] and timing["reference_class"]
            # A fast reference on some problems stays near the start-up time at the
            # largest n ("too_fast"): the talk then notes the claim without a check.
            assert timing["status"] in ("measured", "too_fast"), timing
            measured: bool = timing["status"] == "measured"
            assert len(timing["points"]) >= 3

            send(ws, {"type": "submit", "problem_id": "no-such-problem", "language": "python",
                      "code": "print(1)", "kind": "run"})
            assert until(ws, "error")[-1]["code"] == "unknown_problem"

            # The complexity talk: a claim is checked against the timing, then the round
            # (here the interview) wraps up.
            send(ws, {"type": "answer", "text": "I think it is O(2^n)."})
            if measured:
                said = [e["text"] for e in until(ws, "feedback") if e["type"] == "feedback"]
                assert said[0].startswith("You said exponential; your time "), said
                send(ws, {"type": "answer", "text": "The loop, I suppose."})
            got = until(ws, "session_end")
            said = [e["text"] for e in got if e["type"] == "feedback"]
            assert "That wraps up the coding round." in said
        report = c.get(f"/api/sessions/{s['session_id']}/report",
                       headers={"Authorization": f"Bearer {s['token']}"}).json()
        assert report["coding"]["final_verdict"] == "AC"
        assert report["coding"]["attempts"] == 2
        assert report["coding"]["score_parts"]["correctness"] == 1.0
        # 2^n was wrong (when there was a timing to check it against)
        complexity = report["coding"]["score_parts"]["complexity"]
        assert complexity == (0.0 if measured else None)
        assert report["overall_score"] == report["coding"]["score"] == (0.8 if measured else 1)


def test_concepts_then_coding(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path, judge_enabled=True, judge_backend="bwrap") as c:
        s = create_session(c, rounds=["concepts", "coding"], max_questions=1)
        with c.websocket_connect(f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            until(ws, "question")
            phases = []
            for _ in range(6):
                send(ws, {"type": "answer", "text": "I don't know."})
                got = until(ws, "state")
                phases += [e["phase"] for e in got if e["type"] == "question"]
                if any(e["type"] == "coding_task" for e in got):
                    break
            assert phases and phases[-1] == "coding"
            # Talking during the coding round is recorded, not graded.
            send(ws, {"type": "answer", "text": "I'll use a stack."})
            assert until(ws, "feedback")[-1]["kind"] == "comment"
