"""Hostile and malformed input: clear errors in the contract's shape; nothing accepted lost."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import free_port
from tests.server.support import RATINGS, client, create_session, send, until


def assert_envelope(body: dict, code: str) -> None:
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]


@pytest.mark.parametrize("body", [
    {},
    {"candidate_id": "x", "role": "r", "mode": "telepathy", "self_ratings": RATINGS},
    {"candidate_id": "x", "role": "r", "mode": "text",
     "self_ratings": {"algorithms": 9, "engineering": 3, "projects": 3}},
    {"candidate_id": "x", "role": "r", "mode": "text", "self_ratings": RATINGS,
     "rounds": ["karaoke"]},
    {"candidate_id": "x", "role": "r", "mode": "text", "self_ratings": RATINGS,
     "max_questions": "many"},
    {"candidate_id": "bad id with spaces", "role": "r", "self_ratings": RATINGS},
    {"candidate_id": "x", "role": "r", "self_ratings": RATINGS, "unexpected": 1},
])
def test_invalid_session_bodies(redis_url: str, tmp_path: Path, body: dict) -> None:
    with client(redis_url, tmp_path) as c:
        r = c.post("/api/sessions", json=body)
        assert r.status_code == 422
        assert_envelope(r.json(), "invalid_input")


def test_malformed_http_json_and_auth(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        r = c.post("/api/sessions", content=b"{not json",
                   headers={"content-type": "application/json"})
        assert r.status_code == 422
        assert_envelope(r.json(), "invalid_input")
        s = create_session(c)
        sid = s["session_id"]
        assert_envelope(c.get(f"/api/sessions/{sid}").json(), "unauthorized")
        r = c.get(f"/api/sessions/{sid}", headers={"Authorization": "Bearer wrong"})
        assert r.status_code == 403
        assert_envelope(r.json(), "forbidden")
        other = create_session(c, candidate_id="someone-else")
        r = c.get(f"/api/sessions/{sid}", headers={"Authorization":
                                                   f"Bearer {other['token']}"})
        assert r.status_code == 403
        r = c.get("/api/sessions/nope", headers={"Authorization": f"Bearer {s['token']}"})
        assert r.status_code == 404
        assert_envelope(r.json(), "not_found")
        # The reviewer token opens any session.
        r = c.get(f"/api/sessions/{sid}",
                  headers={"Authorization": "Bearer reviewer-secret-xyz"})
        assert r.status_code == 200
        assert_envelope(c.get("/no/such/path").json(), "not_found")


def test_websocket_refuses_bad_frames_and_keeps_the_interview(redis_url: str,
                                                              tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        s = create_session(c)
        with c.websocket_connect(f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            first = until(ws, "question")[-1]
            until(ws, "state")
            cases = [
                ("{oops", "malformed_json"),
                ("[1, 2, 3]", "invalid_message"),
                (json.dumps({"type": 7}), "invalid_message"),
                (json.dumps({"type": "launch_missiles"}), "unknown_type"),
                (json.dumps({"type": "answer", "text": 42}), "invalid_message"),
                (json.dumps({"type": "answer"}), "invalid_message"),
                (json.dumps({"type": "resume", "after_seq": -3}), "invalid_message"),
                (json.dumps({"type": "answer", "text": "x" * 300_000}), "too_large"),
                (json.dumps({"type": "submit", "problem_id": "p", "language": "cobol",
                             "code": "x"}), "invalid_message"),
            ]
            for frame, code in cases:
                ws.send_text(frame)
                err = until(ws, "error")[-1]
                assert err["code"] == code, (frame[:40], err)
                assert err["message"] and err["seq"] > 0
            # Refused binary frames: one unrecorded notice (seq 0) a second, for all of them
            # (tests/server/test_event_floods.py floods them).
            ws.send_bytes(b"\x00\x01" * 10)
            notice = until(ws, "error")[-1]
            assert notice["code"] == "audio_before_config" and notice["seq"] == 0
            ws.send_bytes(b"\x00" * 100_000)  # too_large, in the same second: no notice
            # The connection survived; the open question is still the one to answer.
            send(ws, {"type": "answer", "text": "I'm not sure"})
            got = until(ws, "feedback")
            final = [e for e in got if e["type"] == "transcript_final"]
            assert final and final[0]["turn_id"] == first["turn_id"]
            until(ws, "state")
            # Answering twice to the same turn is refused, not silently merged.
            send(ws, {"type": "resume", "after_seq": 0})
            replay = until(ws, "feedback")
            assert replay[0]["seq"] == 1


def test_websocket_rejects_wrong_token(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        s = create_session(c)
        with c.websocket_connect(f"/ws/sessions/{s['session_id']}?token=nope") as ws:
            err = ws.receive_json()
            assert err["type"] == "error" and err["code"] == "forbidden"


def test_dead_redis_gives_503_and_health_degrades(tmp_path: Path) -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"
    with client(dead, tmp_path) as c:
        r = c.post("/api/sessions", json={"candidate_id": "x", "role": "r",
                                          "self_ratings": RATINGS})
        assert r.status_code == 503
        assert_envelope(r.json(), "dependency_down")
        h = c.get("/healthz")
        assert h.status_code == 503 and h.json()["status"] == "degraded"
        for _ in range(100):  # the event reader reports the outage too, once it tried
            if c.get("/healthz").json()["event_reader"].startswith("down: "):
                break
            time.sleep(0.02)
        assert c.get("/healthz").json()["event_reader"].startswith("down: ")


def test_health_reports_parts(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        body = c.get("/healthz").json()
        assert body["redis"] == "ok" and body["llm"].startswith("ok rubric")
        for _ in range(100):
            if body["event_reader"] == "ok":
                break
            time.sleep(0.02)
            body = c.get("/healthz").json()
        assert body["event_reader"] == "ok"
        assert body["judge_backend"] in ("docker", "bwrap", "none")


def test_redis_dies_mid_session_then_returns(tmp_path: Path) -> None:
    """A dead Redis: the socket survives with a clear error; after it returns, the
    interview continues and nothing accepted before is lost (AOF)."""
    from tests.conftest import RedisServer

    server = RedisServer(tmp_path / "r")
    (tmp_path / "r").mkdir()
    server.start()
    try:
        with client(server.url, tmp_path) as c:
            s = create_session(c)
            with c.websocket_connect(
                    f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
                send(ws, {"type": "start"})
                before = until(ws, "question") + until(ws, "state")
                server.stop()
                send(ws, {"type": "answer", "text": "a hash function maps keys to buckets"})
                err = until(ws, "error")[-1]
                assert err["code"] == "dependency_down" and err["seq"] == 0
                server.start()
                send(ws, {"type": "answer", "text": "I am not sure"})
                got = until(ws, "feedback")
                assert [e["type"] for e in got][0] == "transcript_final"
                until(ws, "state")
                send(ws, {"type": "resume", "after_seq": 0})
                replay = until(ws, "feedback")
                assert replay[: len(before)] == before
    finally:
        server.stop()


def test_a_huge_body_is_refused_with_413(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path, max_http_body_bytes=64 * 1024) as c:
        body = {"candidate_id": "x", "role": "r", "self_ratings": RATINGS,
                "resume_text": "y" * 200_000}
        r = c.post("/api/sessions", json=body)
        assert r.status_code == 413
        assert_envelope(r.json(), "too_large")

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
            yield b'{"candidate_id": "x", "resume_text": "'
            for _ in range(100):
                yield b"y" * 2000

        r = c.post("/api/sessions", content=chunks(),
                   headers={"content-type": "application/json"})
        assert r.status_code == 413
        assert_envelope(r.json(), "too_large")
        body["resume_text"] = "short"
        assert c.post("/api/sessions", json=body).status_code == 201
