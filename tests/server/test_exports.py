"""The recording as exports: NDJSON timeline, WebVTT, JSON/HTML report, human review."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT
from tests.server.support import client, create_session, send, until


def test_timeline_transcript_report_and_review(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        s = create_session(c, max_questions=1)
        sid, auth = s["session_id"], {"Authorization": f"Bearer {s['token']}"}
        with c.websocket_connect(f"/ws/sessions/{sid}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            until(ws, "question")
            send(ws, {"type": "answer", "text": "It maps the key with a hash --> bucket."})
            until(ws, "feedback")
            send(ws, {"type": "end"})
            until(ws, "session_end")

        lines = c.get(f"/api/sessions/{sid}/events", headers=auth).text.splitlines()
        events = [json.loads(line) for line in lines]
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert all({"seq", "t_ms", "type"} <= set(e) for e in events)
        t = [e["t_ms"] for e in events]
        assert t == sorted(t)
        after = c.get(f"/api/sessions/{sid}/events?after_seq=3", headers=auth).text
        assert json.loads(after.splitlines()[0])["seq"] == 4

        vtt = c.get(f"/api/sessions/{sid}/transcript.vtt", headers=auth)
        assert vtt.headers["content-type"].startswith("text/vtt")
        body = vtt.text
        assert body.startswith("WEBVTT") and "<v Interviewer>" in body
        assert "<v Candidate>It maps the key with a hash → bucket." in body
        # One cue per utterance: what the interviewer said at once (the feedback on the
        # last answer and the closing words) is one line, not one per event.
        said = [e for e in events if e["type"] in ("question", "feedback", "transcript_final")]
        starts = [i for i, e in enumerate(said) if i == 0 or "transcript_final" in (
            e["type"], said[i - 1]["type"]) or e["t_ms"] - said[i - 1]["t_ms"] > 50]
        assert body.count("-->") == len(starts) < len(said)
        feedback, closing = [e["text"] for e in events if e["type"] == "feedback"]
        assert f"<v Interviewer>{feedback} {closing}" in body

        report = c.get(f"/api/sessions/{sid}/report", headers=auth).json()
        assert report["status"] == "ended" and report["turns"][0]["answer"]
        page = c.get(f"/sessions/{sid}/report", headers=auth)
        assert page.status_code == 200 and "Interview report" in page.text
        assert "<script" not in page.text  # candidate text is escaped, never markup

        review = {"overall_score": 0.55, "note": "Solid reasoning, rushed on collisions."}
        assert c.post(f"/api/sessions/{sid}/review", json=review,
                      headers=auth).status_code == 401  # a session token is not a reviewer
        ok = c.post(f"/api/sessions/{sid}/review", json=review,
                    headers={"Authorization": "Bearer reviewer-secret-xyz"})
        assert ok.status_code == 200
        report = c.get(f"/api/sessions/{sid}/report", headers=auth).json()
        assert report["review"]["note"] == review["note"]
        listing = c.get("/api/review/sessions",
                        headers={"Authorization": "Bearer reviewer-secret-xyz"}).json()
        assert any(row["session_id"] == sid for row in listing)

    out = subprocess.run([sys.executable, "-m", "server.cli", "report", sid, "--format", "vtt"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "REDIS_URL": redis_url, "HOME": "/tmp"})
    assert out.returncode == 0 and out.stdout.strip() == body.strip()
    missing = subprocess.run([sys.executable, "-m", "server.cli", "report", "nope"], cwd=ROOT,
                             capture_output=True, text=True, timeout=60,
                             env={"PATH": "/usr/bin:/bin", "REDIS_URL": redis_url})
    assert missing.returncode == 1 and "no session" in missing.stderr
