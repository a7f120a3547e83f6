"""Tickets (issue 23): no token in a URL. A websocket or a page link carries a one-time
ticket bought over ``Authorization``; it opens one session once, within its TTL; a page link
redeems it into an HttpOnly, SameSite=Strict cookie and redirects to the clean URL. Real
Redis, the real app: every refusal is the contract's error shape."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from server.archived_session import token_digest
from tests.server.support import client, create_session, send, until


def ticket(c: TestClient, s: dict[str, Any], token: str | None = None) -> str:
    r = c.post(f"/api/sessions/{s['session_id']}/ticket",
               headers={"Authorization": f"Bearer {token or s['token']}"})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["expires_in_s"] > 0
    return str(body["ticket"])


def refused(c: TestClient, path: str, code: str = "unauthorized",
            headers: dict[str, str] | None = None) -> str:
    """The socket is refused with an unrecorded error and close code 1008; its message."""
    with c.websocket_connect(path, headers=dict(headers or {})) as ws:
        event = json.loads(ws.receive_text())
        assert event["type"] == "error" and event["code"] == code, event
        assert event["seq"] == 0
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 1008
        return str(event["message"])


def test_ws_url_holds_a_ticket_that_opens_its_session_once(redis_url: str,
                                                          tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        s = create_session(c)
        sid = s["session_id"]
        assert "ticket=" in s["ws_url"] and s["token"] not in s["ws_url"]
        path = s["ws_url"].split("testserver", 1)[1]
        with c.websocket_connect(path) as ws:
            send(ws, {"type": "start"})
            assert until(ws, "question")[-1]["text"]
        # A replayed URL (from a log, a history) opens nothing: the ticket was spent.
        assert "used or expired" in refused(c, path)
        # A fresh ticket reconnects.
        with c.websocket_connect(f"/ws/sessions/{sid}?ticket={ticket(c, s)}") as ws:
            send(ws, {"type": "resume", "after_seq": 0})
            assert until(ws, "question")

        # Another session's ticket is refused (and spent, so it cannot be tried again).
        other = create_session(c, candidate_id="cand-2")
        theirs = ticket(c, other)
        refused(c, f"/ws/sessions/{sid}?ticket={theirs}")
        refused(c, f"/ws/sessions/{other['session_id']}?ticket={theirs}")
        # Nonsense is refused unread.
        refused(c, f"/ws/sessions/{sid}?ticket=%C3%A9")
        refused(c, f"/ws/sessions/{sid}?ticket=" + "a" * 300)


def test_tickets_are_bought_with_the_session_token_and_stored_hashed(
        redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        s = create_session(c)
        other = create_session(c, candidate_id="cand-2")
        url = f"/api/sessions/{s['session_id']}/ticket"
        r = c.post(url)
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
        r = c.post(url, headers={"Authorization": f"Bearer {other['token']}"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
        assert c.post(f"{url}?token={s['token']}").status_code == 401  # never in a URL
        value = ticket(c, s)
        assert ticket(c, s, token="reviewer-secret-xyz") != value  # the reviewer may too

        # Redis holds digests only: neither the ticket nor the token is readable in it.
        r2 = redis.Redis.from_url(redis_url, decode_responses=True)
        try:
            dump = " ".join(k + " " + str(r2.type(k)) for k in r2.keys("*"))
            values = [str(r2.get(k)) for k in r2.keys("viva:ticket:*")]
            meta = r2.hgetall(f"viva:session:{s['session_id']}:meta")
        finally:
            r2.close()
        assert value not in dump and s["token"] not in dump
        assert not any(value in v or s["token"] in v for v in values)
        assert meta["token_sha256"] == token_digest(s["token"]) and "token" not in meta


def test_a_ticket_expires(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path, ticket_ttl_s=5) as c:
        s = create_session(c)
        value = ticket(c, s)
        r2 = redis.Redis.from_url(redis_url)
        try:
            [key] = r2.keys("viva:ticket:*")[-1:] or [None]
            assert key is not None and 0 < r2.pttl(key) <= 5000
            for k in r2.keys("viva:ticket:*"):
                r2.pexpire(k, 1)  # what five seconds would do, without waiting for them
        finally:
            r2.close()
        time.sleep(0.05)
        assert "used or expired" in refused(c, f"/ws/sessions/{s['session_id']}?ticket={value}")


def test_a_page_link_redeems_its_ticket_into_a_strict_http_only_cookie(
        redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        s = create_session(c)
        sid = s["session_id"]
        page = f"/sessions/{sid}/report"
        assert c.get(page).status_code in (401, 403)  # no credential: the no-access page
        value = ticket(c, s)
        r = c.get(f"{page}?ticket={value}&x=1", follow_redirects=False)
        assert r.status_code == 303
        assert r.headers["location"] == f"{page}?x=1"  # the clean URL, other parameters kept
        assert r.headers["cache-control"] == "no-store"
        cookie = r.headers["set-cookie"]
        assert cookie.startswith(f"viva_link_{sid}=")
        for flag in ("HttpOnly", "SameSite=Strict", "Path=/", "Max-Age="):
            assert flag in cookie, cookie
        assert value not in cookie  # the cookie is a value of its own, not the ticket
        # The cookie opens the page and the WebVTT file of this session, for reading only.
        assert c.get(page).status_code == 200
        assert c.get(f"/api/sessions/{sid}/transcript.vtt").status_code == 200
        r = c.post(f"/api/sessions/{sid}/ticket")
        assert r.status_code == 401  # a cookie never buys anything, nor writes

        # The spent ticket: an API URL says so; a page redirects without setting a cookie.
        r = c.get(f"/api/sessions/{sid}/transcript.vtt?ticket={value}", follow_redirects=False)
        assert r.status_code == 401 and "used or expired" in r.json()["error"]["message"]
        c.cookies.clear()
        r = c.get(f"{page}?ticket={value}", follow_redirects=False)
        assert r.status_code == 303 and "set-cookie" not in r.headers
        # The cookie of one session opens no other.
        other = create_session(c, candidate_id="cand-2")
        c.get(f"{page}?ticket={ticket(c, s)}")
        assert c.get(f"/api/sessions/{other['session_id']}/transcript.vtt").status_code == 401


def test_a_websocket_from_another_origin_is_refused(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path, allowed_origins=["https://viva.example.org"]) as c:
        s = create_session(c)
        sid = s["session_id"]
        message = refused(c, f"/ws/sessions/{sid}?ticket={ticket(c, s)}", code="forbidden",
                          headers={"Origin": "https://evil.example"})
        assert "VIVA_ALLOWED_ORIGINS" in message
        for origin in ("http://testserver", "https://viva.example.org"):
            with c.websocket_connect(f"/ws/sessions/{sid}?ticket={ticket(c, s)}",
                                     headers={"Origin": origin}) as ws:
                send(ws, {"type": "start"})
                assert until(ws, "question")


@pytest.mark.parametrize("env, opened", [("test", False), ("production", False),
                                         ("development", True)])
def test_api_docs_only_in_development(redis_url: str, tmp_path: Path, env: str,
                                      opened: bool) -> None:
    with client(redis_url, tmp_path, env=env) as c:
        for path in ("/docs", "/openapi.json"):
            assert (c.get(path).status_code == 200) is opened, (env, path)
