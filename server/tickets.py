"""Credentials that may travel in a URL without being a token.

A session (or reviewer) token never goes into a URL: URLs end up in access logs, browser
history and Referer headers. Where a URL is all a client can send (a websocket handshake
from a browser, a plain link to the HTML report or the WebVTT file), it carries a
**ticket** instead: a random value from ``POST /api/sessions/{id}/ticket``, good for one
use within ``ticket_ttl_s`` and for that session only. A page link redeems its ticket
into an HttpOnly, SameSite=Strict **link cookie** and is redirected to the same URL
without it, so the address bar, history and logs keep a clean URL.

Only SHA-256 digests are stored in Redis, like the session tokens themselves: a copy of
the database opens nothing.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, urlencode

import redis.asyncio as aioredis
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from server.archived_session import token_digest
from server.errors import error_body
from store import keys

TICKET_PARAM = "ticket"
# Issued values are token_urlsafe(24): 32 characters. Anything else is refused unread.
_VALUE = re.compile(r"^[A-Za-z0-9_-]{16,128}$")
_COOKIE_SAFE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True)
class Grant:
    """What a ticket or a link cookie opens: one session, as its candidate or a reviewer."""

    session_id: str
    reviewer: bool

    def dumps(self) -> str:
        return json.dumps({"session_id": self.session_id, "reviewer": self.reviewer})

    @classmethod
    def loads(cls, raw: str | bytes) -> Grant | None:
        try:
            data = json.loads(raw)
            return cls(session_id=str(data["session_id"]), reviewer=bool(data["reviewer"]))
        except (ValueError, KeyError, TypeError):
            return None



def well_formed(value: str | None) -> bool:
    return value is not None and _VALUE.match(value) is not None


async def issue_ticket(redis: aioredis.Redis, grant: Grant, ttl_s: int) -> str:
    value = secrets.token_urlsafe(24)
    await redis.set(keys.ticket(token_digest(value)), grant.dumps(), ex=ttl_s)
    return value


async def redeem_ticket(redis: aioredis.Redis, value: str | None,
                        session_id: str | None = None) -> Grant | None:
    """The ticket's grant, once: GETDEL makes a second use (or a replayed URL) fail. With
    ``session_id``, a ticket for another session is refused (and spent)."""
    if not well_formed(value):
        return None
    assert value is not None
    raw = await redis.getdel(keys.ticket(token_digest(value)))
    grant = Grant.loads(raw) if raw is not None else None
    if grant is None or (session_id is not None and grant.session_id != session_id):
        return None
    return grant


def cookie_name(session_id: str) -> str:
    """One link cookie per session, so links to two interviews do not displace each other."""
    safe = session_id if _COOKIE_SAFE.match(session_id) else token_digest(session_id)[:32]
    return f"viva_link_{safe}"


async def open_link(redis: aioredis.Redis, grant: Grant, ttl_s: int) -> str:
    """A link cookie's value for ``grant`` (stored by digest, expiring with the cookie)."""
    value = secrets.token_urlsafe(24)
    await redis.set(keys.link(token_digest(value)), grant.dumps(), ex=ttl_s)
    return value


async def link_grant(redis: aioredis.Redis, value: str | None, session_id: str) -> Grant | None:
    if not well_formed(value):
        return None
    assert value is not None
    raw = await redis.get(keys.link(token_digest(value)))
    grant = Grant.loads(raw) if raw is not None else None
    return grant if grant is not None and grant.session_id == session_id else None


def link_cookie(name: str, value: str, max_age_s: int, secure: bool) -> str:
    """HttpOnly (no script reads it), SameSite=Strict (no other site's request carries it)."""
    flags = f"; Path=/; Max-Age={max_age_s}; HttpOnly; SameSite=Strict"
    return f"{name}={value}{flags}{'; Secure' if secure else ''}"


def _without_ticket(query: bytes) -> str:
    kept = [(k, v) for k, v in parse_qsl(query.decode("latin-1"), keep_blank_values=True)
            if k != TICKET_PARAM]
    return urlencode(kept)


class TicketLinks:
    """Redeems ``?ticket=`` on a page link (GET) into a link cookie, then redirects (303) to
    the same URL without the ticket. A spent or unknown ticket on an API URL is a 401; on a
    page it redirects all the same, and the page says what credential it is missing."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD") \
                or b"ticket=" not in scope.get("query_string", b""):
            await self.app(scope, receive, send)
            return
        query: bytes = scope["query_string"]
        values = [v for k, v in parse_qsl(query.decode("latin-1")) if k == TICKET_PARAM]
        if not values:
            await self.app(scope, receive, send)
            return
        state = scope["app"].state
        path: str = scope.get("root_path", "") + scope["path"]
        grant = await redeem_ticket(state.redis, values[0])
        headers: list[tuple[bytes, bytes]] = []
        if grant is None and path.startswith("/api/"):
            refused = JSONResponse(error_body(
                "unauthorized", "this ticket is unknown, used or expired: ask for a new one "
                "(POST /api/sessions/{id}/ticket with the session token)"), status_code=401)
            await refused(scope, receive, send)
            return
        if grant is not None:
            settings = state.settings
            ttl = int(settings.link_cookie_hours * 3600)
            value = await open_link(state.redis, grant, ttl)
            secure = scope.get("scheme") == "https" or _forwarded_https(scope)
            cookie = link_cookie(cookie_name(grant.session_id), value, ttl, secure)
            headers.append((b"set-cookie", cookie.encode("latin-1")))
        rest = _without_ticket(query)
        location = quote(path) + (f"?{rest}" if rest else "")
        headers += [(b"location", location.encode("latin-1")),
                    (b"cache-control", b"no-store"), (b"referrer-policy", b"no-referrer"),
                    (b"content-length", b"0")]
        await send({"type": "http.response.start", "status": 303, "headers": headers})
        await send({"type": "http.response.body", "body": b""})


def _forwarded_https(scope: Scope) -> bool:
    for name, value in scope.get("headers", []):
        if name == b"x-forwarded-proto":
            return bool(value.split(b",")[0].strip() == b"https")
    return False

