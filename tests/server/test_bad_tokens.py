"""Malformed, non-ASCII or over-long tokens are refused with 401, never a 500 (issue 23, item 1)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect

from tests.server.support import client, create_session

BAD_HEADERS = ["Bearer \u00e9".encode(), b"Bearer " + b"a" * 10_000, b"Bearer a\tb"]
BAD_QUERIES = ["%C3%A9", "a" * 10_000, "%00"]


def routes(sid: str) -> list[str]:
    return [f"/api/sessions/{sid}", f"/api/sessions/{sid}/report",
            f"/api/sessions/{sid}/events", f"/api/sessions/{sid}/audio",
            f"/api/sessions/{sid}/transcript.vtt", "/api/review/sessions"]


def test_bad_tokens_give_401_everywhere(redis_url: str, tmp_path: Path,
                                        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR), client(redis_url, tmp_path) as c:
        sid = create_session(c)["session_id"]
        for path in routes(sid):
            for header in BAD_HEADERS:
                r = c.get(path, headers=[(b"authorization", header)])
                assert r.status_code == 401, (path, header[:20], r.text[:200])
                assert r.json()["error"]["code"] == "unauthorized"
            for q in BAD_QUERIES:
                r = c.get(f"{path}?token={q}")
                assert r.status_code == 401, (path, q[:20], r.text[:200])
                assert r.json()["error"]["code"] == "unauthorized"
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


def test_bad_token_on_websocket_gets_error_and_1008(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        sid = create_session(c)["session_id"]
        for q in BAD_QUERIES:
            with c.websocket_connect(f"/ws/sessions/{sid}?token={q}") as ws:
                event = json.loads(ws.receive_text())
                assert event["type"] == "error" and event["code"] == "unauthorized"
                with pytest.raises(WebSocketDisconnect) as closed:
                    ws.receive_text()
                assert closed.value.code == 1008
