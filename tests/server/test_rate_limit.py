"""Per-connection rate limit on websocket messages: a flood is dropped, the socket lives."""

from __future__ import annotations

import json
import time
from pathlib import Path

from server.rate_limit import TokenBucket
from tests.server.support import client, create_session, send


def test_token_bucket_bursts_then_refills() -> None:
    now = [0.0]
    bucket = TokenBucket(rate=2, burst=3, now=lambda: now[0])
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    now[0] = 0.5  # one token back
    assert bucket.take() and not bucket.take()
    now[0] = 100.0  # never more than the burst
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]


def test_a_message_flood_is_dropped_and_the_socket_survives(redis_url: str,
                                                           tmp_path: Path) -> None:
    with client(redis_url, tmp_path, ws_messages_per_s=20, ws_messages_burst=10) as c:
        s = create_session(c)
        with c.websocket_connect(f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
            t0 = time.monotonic()
            for i in range(60):
                ws.send_text(json.dumps({"type": f"flood-{i}"}))
            time.sleep(0.5)  # let the bucket refill (20 a second)
            send(ws, {"type": "after-the-flood"})
            got = []
            while True:
                event = ws.receive_json()
                got.append(event)
                if "after-the-flood" in event.get("message", ""):
                    break
            elapsed = time.monotonic() - t0
    floods = [e for e in got if "flood-" in e.get("message", "")]
    limited = [e for e in got if e.get("code") == "rate_limited"]
    # The burst and what trickled in meanwhile were handled; the rest was dropped.
    assert 10 <= len(floods) <= 10 + 20 * elapsed < 60, (len(floods), elapsed)
    assert all(e["code"] == "unknown_type" and e["seq"] > 0 for e in floods)
    # At most one notice a second, and none recorded in the session's stream.
    assert 1 <= len(limited) <= 1 + elapsed and all(e["seq"] == 0 for e in limited)
    assert "at most 20 a second" in limited[0]["message"]
    assert got[-1]["code"] == "unknown_type"
