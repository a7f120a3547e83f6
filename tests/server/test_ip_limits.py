"""Per-IP limits (requests, new sessions, open websockets) and the audio rate per websocket.

Refusals come in the contract's shapes: HTTP 429 with the error envelope and Retry-After, a
websocket `error` event with a code; what was accepted before a refusal still works.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from server.ip_limits import BucketTable, client_ip
from tests.server.support import RATINGS, client, create_session, send, until


def assert_rate_limited(r: Any, limit: str) -> None:
    assert r.status_code == 429, r.text
    body = r.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == "rate_limited" and body["error"]["message"]
    assert body["error"]["details"]["limit"] == limit
    assert int(r.headers["retry-after"]) >= 1


def test_client_ip_trusts_forwarded_for_only_when_told() -> None:
    scope = {"client": ("10.0.0.9", 5555),
             "headers": [(b"x-forwarded-for", b"1.2.3.4, 203.0.113.7")]}
    assert client_ip(scope, trust_proxy_headers=False) == "10.0.0.9"
    # The last hop is the one the (trusted) proxy wrote; earlier ones are the client's claim.
    assert client_ip(scope, trust_proxy_headers=True) == "203.0.113.7"
    assert client_ip({"client": ("10.0.0.9", 1), "headers": []}, True) == "10.0.0.9"


def test_bucket_table_refills_and_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [0.0]
    table = BucketTable(rate=1.0, burst=2, now=lambda: clock[0])
    assert table.take("a") and table.take("a") and not table.take("a")
    assert table.retry_after_s("a") == 1
    assert table.take("b")  # another address has its own budget
    clock[0] += 1.0
    assert table.take("a")
    monkeypatch.setattr("server.ip_limits.MAX_TRACKED_IPS", 3)
    clock[0] += 100.0  # every bucket is full again: forgotten when the table fills
    for ip in ("c", "d", "e"):
        assert table.take(ip)
    assert len(table.buckets) <= 3


def test_http_requests_per_ip(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path, ip_requests_per_s=0.01, ip_requests_burst=5,
                trust_proxy_headers=True) as c:
        for _ in range(5):
            assert c.get("/healthz").status_code == 200
        assert_rate_limited(c.get("/healthz"), "requests")
        assert_rate_limited(c.get("/healthz"), "requests")
        # Another client address (as the trusted proxy reports it) is not affected.
        other = {"X-Forwarded-For": "198.51.100.20"}
        assert c.get("/healthz", headers=other).status_code == 200


def test_forwarded_for_is_ignored_without_a_trusted_proxy(redis_url: str,
                                                          tmp_path: Path) -> None:
    with client(redis_url, tmp_path, ip_requests_per_s=0.01, ip_requests_burst=3) as c:
        for n in range(3):
            assert c.get("/healthz",
                         headers={"X-Forwarded-For": f"192.0.2.{n}"}).status_code == 200
        # Made-up addresses do not buy a fresh budget.
        assert_rate_limited(c.get("/healthz",
                                  headers={"X-Forwarded-For": "192.0.2.99"}), "requests")


def test_new_sessions_per_ip(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path, ip_sessions_per_s=0.01, ip_sessions_burst=2) as c:
        made = [create_session(c) for _ in range(2)]
        body = {"candidate_id": "cand-1", "role": "backend", "mode": "text",
                "self_ratings": RATINGS}
        assert_rate_limited(c.post("/api/sessions", json=body), "sessions")
        # The sessions made before the refusal are intact and reachable.
        for s in made:
            r = c.get(f"/api/sessions/{s['session_id']}",
                      headers={"Authorization": f"Bearer {s['token']}"})
            assert r.status_code == 200


def test_open_websockets_per_ip(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path, ip_max_websockets=1) as c:
        s = create_session(c)
        url = f"/ws/sessions/{s['session_id']}?token={s['token']}"
        with c.websocket_connect(url) as first:
            send(first, {"type": "start"})
            until(first, "question")
            with c.websocket_connect(url) as second:
                err = second.receive_json()
                assert err["type"] == "error" and err["code"] == "rate_limited"
                assert err["seq"] == 0 and "connections" in err["message"]
                with pytest.raises(WebSocketDisconnect) as closed:
                    second.receive_json()
                assert closed.value.code == 1013
            # The first connection is untouched.
            send(first, {"type": "answer", "text": "I am not sure."})
            until(first, "feedback")
        # Closed: the slot is free again.
        with c.websocket_connect(url) as again:
            send(again, {"type": "resume", "after_seq": 0})
            assert again.receive_json()["seq"] == 1


@pytest.mark.slow
def test_audio_faster_than_real_time_is_dropped(redis_url: str, tmp_path: Path) -> None:
    # Half a second of burst: a client blasting 100 ms frames is cut off after ~5 of them.
    with client(redis_url, tmp_path, audio_burst_s=0.5, audio_rate_factor=1.5) as c:
        s = create_session(c, mode="voice", max_questions=2)
        with c.websocket_connect(f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
            send(ws, {"type": "audio_config", "sample_rate": 16000, "encoding": "pcm_s16le"})
            frame = bytes(3200)  # 100 ms of 16 kHz PCM16 silence
            for _ in range(30):
                ws.send_bytes(frame)
            got = until(ws, "error", limit=500)
            err = got[-1]
            assert err["code"] == "audio_rate_limited", err
            assert err["seq"] == 0 and "real time" in err["message"]
            # At most one notice a second, not one per dropped frame; the socket lives on.
            time.sleep(1.1)
            send(ws, {"type": "start"})
            after = until(ws, "question", limit=500)
            notices = [e for e in got + after
                       if e.get("type") == "error" and e["code"] == "audio_rate_limited"]
            assert len(notices) == 1, notices
