"""Everything the server sends matches the published event schema: live events, the replay
after ``resume``, the NDJSON timeline and ``GET /api/schema/events`` — with a real judge, so
a failing sample's evidence (the candidate's output and traceback) is checked as sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.events import events_json_schema, parse_event
from tests.conftest import ROOT
from tests.server.support import client, create_session, send, until

pytestmark = pytest.mark.slow

CRASH = "import sys\nprint('partial output')\nsys.stdout.flush()\nprint(1 // 0)\n"
SAMPLE_ONLY = ("input", "expected", "actual", "stderr", "error", "checker_message")


def strict(events: list[dict[str, Any]]) -> None:
    for event in events:
        parse_event(event)  # raises on a field or value the schema does not declare


def test_live_replayed_and_exported_events_match_the_schema(redis_url: str,
                                                           tmp_path: Path) -> None:
    with client(redis_url, tmp_path, judge_enabled=True, judge_backend="bwrap",
                judge_in_process_worker=True) as c:
        assert c.get("/api/schema/events").json() == events_json_schema()
        s = create_session(c, rounds=["coding"])
        url = f"/ws/sessions/{s['session_id']}?token={s['token']}"
        with c.websocket_connect(url) as ws:
            send(ws, {"type": "start"})
            live = until(ws, "question")
            task = next(e for e in live if e["type"] == "coding_task")
            pid = task["problem_id"]
            send(ws, {"type": "code_change", "problem_id": pid, "language": "python",
                      "code": CRASH})
            send(ws, {"type": "submit", "problem_id": pid, "language": "python",
                      "code": CRASH, "kind": "run"})
            live += until(ws, "judge_result", limit=200)
            result = live[-1]
            live += until(ws, "feedback")
            send(ws, {"type": "answer", "text": "x" * 10})
            live += until(ws, "feedback")
            send(ws, {"type": "end"})
            live += until(ws, "session_end")
        strict(live)
        assert {"coding_task", "code_change", "submission_queued", "judge_case",
                "judge_result", "feedback", "state", "session_end"} <= {e["type"] for e in live}

        # The evidence a candidate needs: their output and the traceback of the crash.
        assert result["verdict"] == "RE"
        failing = next(x for x in result["cases"] if x["verdict"] != "AC")
        assert failing["kind"] == "sample"
        assert failing["actual"].strip() == "partial output"
        assert "Traceback (most recent call last)" in failing["stderr"]
        assert "ZeroDivisionError" in failing["stderr"]
        assert failing["expected"] and failing["input"] is not None

        # A reconnect replays the recording through the same models.
        with c.websocket_connect(url) as ws:
            send(ws, {"type": "resume", "after_seq": 0})
            replay = until(ws, "session_end", limit=500)
        strict(replay)
        assert [e["seq"] for e in replay] == list(range(1, len(replay) + 1))

        lines = c.get(f"/api/sessions/{s['session_id']}/events",
                      headers={"Authorization": f"Bearer {s['token']}"}).text.splitlines()
        strict([json.loads(line) for line in lines])


def leaky(reference: str, sample_inputs: list[str]) -> str:
    """Solves the samples with the reference; on any other (hidden) input prints the input
    to stdout and stderr and crashes, as a candidate fishing for hidden tests would."""
    return (f"import os, sys\ndata = sys.stdin.read()\n"
            f"if data not in {sample_inputs!r}:\n"
            "    print('LEAK' + data)\n"
            "    sys.stderr.write('LEAK' + data)\n"
            "    raise RuntimeError('LEAK' + data)\n"
            # A sample: its input again on fd 0, whichever way the reference reads it.
            "r, w = os.pipe()\nos.write(w, data.encode())\nos.close(w)\nos.dup2(r, 0)\n"
            "sys.stdin = open(0, closefd=False)\n"
            f"exec(compile({reference!r}, 'reference.py', 'exec'), {{'__name__': '__main__'}})\n")


def test_a_submit_keeps_hidden_evidence_off_the_wire(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path, judge_enabled=True, judge_backend="bwrap",
                judge_in_process_worker=True) as c:
        s = create_session(c, rounds=["coding"])
        with c.websocket_connect(f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            task = next(e for e in until(ws, "question") if e["type"] == "coding_task")
            pid = task["problem_id"]
            reference = (ROOT / "bank" / "problems" / pid / "solutions" / "reference.py")
            code = leaky(reference.read_text(), [x["input"] for x in task["samples"]])
            send(ws, {"type": "submit", "problem_id": pid, "language": "python",
                      "code": code, "kind": "submit"})
            got = until(ws, "judge_result", limit=300)
        strict(got)
        result = got[-1]
        assert result["verdict"] == "RE"
        assert all(x["verdict"] == "AC" for x in result["cases"] if x["kind"] == "sample")
        hidden = [x for x in result["cases"] if x["kind"] != "sample"]
        assert hidden and hidden[0]["verdict"] == "RE", "the hidden tier ran and crashed"
        for case in hidden:
            assert not set(SAMPLE_ONLY) & set(case), case
        # Only the candidate's own code (echoed in the result) may name it.
        assert "LEAK" not in json.dumps([{k: v for k, v in e.items() if k != "code"}
                                         for e in got])
