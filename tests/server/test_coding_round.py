"""The coding round end to end over the websocket: a real judge (bubblewrap), the interviewer
speaking about the evidence, and the report anchored on test results."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from judge.problems import ProblemRegistry
from server.app import create_app
from tests.conftest import ROOT
from tests.server.support import client, create_session, make_settings, send, until

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
        # The talk ("O(2^n)", "the loop") explained none of the problem's points: approach
        # is graded, and low (agents/approach.py).
        parts = report["coding"]["score_parts"]
        assert parts["approach"] is not None and parts["approach"] < 0.5
        weights = {"correctness": 0.6, "approach": 0.25, "complexity": 0.15}
        present = {k: w for k, w in weights.items() if parts[k] is not None}
        expected = sum(w * parts[k] for k, w in present.items()) / sum(present.values())
        assert report["overall_score"] == report["coding"]["score"]
        assert report["coding"]["score"] == pytest.approx(expected, abs=0.001)


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


class SteppedClock:
    """The idle hint's clock (``agents.coding_hints.IdleClock``), moved by the test: the
    connection's idle check runs only when ``step`` lets it, at the time the test set, so no
    test waits for 90 s or races the wall clock."""

    def __init__(self) -> None:
        self.t = 0.0
        self._go = threading.Semaphore(0)
        self._waiting = threading.Semaphore(0)  # 1 while the check waits for a step

    def now(self) -> float:
        return self.t

    async def tick(self) -> None:
        self._waiting.release()
        # Waited for in short turns, so a closing connection cancels the wait at once.
        while not await asyncio.to_thread(self._go.acquire, True, 0.05):
            pass

    def step(self, advance_s: float) -> None:
        """Move time on by ``advance_s``, then run one check; returns once it is done (what
        it said is recorded and sent by then)."""
        self.t += advance_s
        assert self._waiting.acquire(timeout=30), "the idle check never waited for a tick"
        self._go.release()
        assert self._waiting.acquire(timeout=30), "the idle check did not finish"
        self._waiting.release()


def feedback_texts(c: TestClient, s: dict[str, Any]) -> list[str]:
    r = c.get(f"/api/sessions/{s['session_id']}/events",
              headers={"Authorization": f"Bearer {s['token']}"})
    events = [json.loads(line) for line in r.text.splitlines()]
    return [e["text"] for e in events if e["type"] == "feedback"]


def test_a_hint_after_silence_never_while_typing(redis_url: str, tmp_path: Path) -> None:
    clock = SteppedClock()
    settings = make_settings(redis_url, tmp_path, judge_enabled=True, judge_backend="bwrap",
                             judge_in_process_worker=False, coding_hint_idle_s=90)
    with TestClient(create_app(settings, idle_clock=clock)) as c:
        s = create_session(c, rounds=["coding"])
        with c.websocket_connect(f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            task = next(e for e in until(ws, "question") if e["type"] == "coding_task")
            pid = task["problem_id"]
            problem = ProblemRegistry.from_bank(ROOT / "bank").get(pid)
            assert problem is not None and len(problem.hints) >= 2
            ladder = problem.hints
            assert not any(h in json.dumps(task) for h in ladder)

            # Typing holds it off: an edit every 60 s for five minutes, a check before each.
            for _ in range(5):
                clock.step(60)
                send(ws, {"type": "code_change", "problem_id": pid, "language": "python",
                          "code": f"n = int(input())  # {clock.t}"})
                got = until(ws, "code_change")
                assert not [e for e in got if e["type"] == "feedback"], got
            clock.step(89)  # 89 s of silence: not yet
            assert feedback_texts(c, s) == []
            clock.step(2)  # 91 s: the first hint, unasked
            said = until(ws, "feedback")[-1]
            assert said["text"] == ("You have been quiet for a while, so here is a hint. "
                                    + ladder[0])
            assert said["kind"] == "guidance"
            clock.step(300)  # still silent: one offer per silence
            assert len(feedback_texts(c, s)) == 1
            send(ws, {"type": "code_change", "problem_id": pid, "language": "python",
                      "code": "n = int(input())\nprint(n)"})
            until(ws, "code_change")
            clock.step(91)  # a new silence after the edit: the next hint
            said = until(ws, "feedback")[-1]
            assert said["text"].endswith("here is another hint. " + ladder[1])

            # Asked for: the next one each time, then plainly no more.
            for hint in ladder[2:]:
                send(ws, {"type": "answer", "text": "Can I get a hint?"})
                assert until(ws, "feedback")[-1]["text"] == f"Here is another hint. {hint}"
            send(ws, {"type": "answer", "text": "Any more hints?"})
            assert until(ws, "feedback")[-1]["text"].startswith("I have no more hints")
            clock.step(600)  # the ladder is used up: silence brings nothing more
            texts = feedback_texts(c, s)
            assert len(texts) == len(ladder) + 1
            assert sum(h in t for t in texts for h in ladder) == len(ladder)  # none repeated
            send(ws, {"type": "end"})
            until(ws, "session_end")
        auth = {"Authorization": f"Bearer {s['token']}"}
        report = c.get(f"/api/sessions/{s['session_id']}/report", headers=auth).json()
        assert report["coding"]["hints_used"] == len(ladder)
        assert len(report["coding"]["hint_t_ms"]) == len(ladder)
        assert report["coding"]["score_parts"]["hints_used"] == len(ladder)
        page = c.get(f"/sessions/{s['session_id']}/report", headers=auth).text
        assert f"Hints used: {len(ladder)} (at " in page
