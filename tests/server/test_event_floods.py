"""Event floods (issue 23, item 3): refused binary frames write nothing to the session's
stream and get at most one unrecorded notice a second; a full interview stays far below the
stream's cap and is never trimmed."""

from __future__ import annotations

import json
import time
from pathlib import Path

import redis

from store import keys
from store.events import MAX_EVENTS
from tests.server.support import client, create_session, send, until


def _stream_length(redis_url: str, sid: str) -> int:
    r = redis.Redis.from_url(redis_url)
    try:
        return int(r.xlen(keys.session_events(sid)))
    finally:
        r.close()


def _event(ws) -> dict:
    """The next JSON event (a voice session also sends the question's audio as bytes)."""
    while True:
        message = ws.receive()
        if message.get("text") is not None:
            return json.loads(message["text"])
        assert message["type"] != "websocket.close", message


def _notices_until_feedback(ws) -> tuple[list[dict], list[dict]]:
    notices: list[dict] = []
    got: list[dict] = []
    while True:
        event = _event(ws)
        got.append(event)
        if event["type"] == "error" and event["seq"] == 0:
            notices.append(event)
        if event["type"] == "feedback":
            return notices, got


def test_a_binary_flood_records_nothing(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        s = create_session(c, mode="voice", max_questions=2)
        sid = s["session_id"]
        with c.websocket_connect(f"/ws/sessions/{sid}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            while _event(ws)["type"] != "question":
                pass
            started = time.monotonic()
            for i in range(1500):  # before audio_config, then oversize
                ws.send_bytes(b"\x00\x01" * 10 if i % 2 else b"\x00" * 40_000)
            send(ws, {"type": "audio_config", "sample_rate": 16000, "encoding": "pcm_s16le"})
            for _ in range(1500):  # odd length
                ws.send_bytes(b"\x01\x02\x03")
            before = _stream_length(redis_url, sid)
            send(ws, {"type": "answer", "text": "I'm not sure"})
            notices, got = _notices_until_feedback(ws)
            elapsed = time.monotonic() - started
        recorded = [e for e in got if e["seq"] > 0]
        assert not [e for e in recorded if e["type"] == "error"], recorded
        # at most one notice a second, for all kinds of refusal together
        assert 1 <= len(notices) <= int(elapsed) + 1, (len(notices), elapsed)
        assert {n["code"] for n in notices} <= {"too_large", "audio_before_config",
                                                 "bad_audio_frame"}
        # the stream grew by the answer's own events, not by 3000 refusals
        assert _stream_length(redis_url, sid) - before <= len(recorded) + 5


def test_a_full_interview_stays_far_below_the_cap(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        s = create_session(c, max_questions=30)  # the most the API allows
        sid = s["session_id"]
        with c.websocket_connect(f"/ws/sessions/{sid}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            got = until(ws, "question")
            for _ in range(200):
                send(ws, {"type": "answer", "text": "A hash map stores key value pairs in "
                          "buckets chosen by the hash of the key, so lookups are O(1)."})
                got = until(ws, "feedback", limit=100)
                while not any(e["type"] in ("question", "session_end") for e in got):
                    got += [ws.receive_json()]
                if any(e["type"] == "session_end" for e in got):
                    break
            else:
                raise AssertionError("the interview never ended")
        length = _stream_length(redis_url, sid)
        r = redis.Redis.from_url(redis_url)
        last_seq = int(r.get(keys.session_seq(sid)) or 0)
        r.close()
        assert length == last_seq  # nothing trimmed
        assert length * 20 < MAX_EVENTS, length
