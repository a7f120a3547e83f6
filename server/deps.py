"""Request-scoped dependencies: settings, Redis, the engine, and who is asking."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Annotated

import redis.asyncio as aioredis
from fastapi import Depends, Request

from agents.engine import InterviewEngine
from server.archived_session import load_archive, stored_token_digest, token_digest
from server.errors import Forbidden, NotFound, Unauthorized
from server.settings import Settings
from server.tickets import Grant, cookie_name, link_grant
from store import keys


def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_redis(request: Request) -> aioredis.Redis:
    client: aioredis.Redis = request.app.state.redis
    return client


def get_engine(request: Request) -> InterviewEngine:
    engine: InterviewEngine = request.app.state.engine
    return engine


SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
RedisDep = Annotated[aioredis.Redis, Depends(get_redis)]
EngineDep = Annotated[InterviewEngine, Depends(get_engine)]


@dataclass(frozen=True)
class Access:
    session_id: str | None
    reviewer: bool


def header_token(authorization: str | None) -> str | None:
    """The value of an ``Authorization: Bearer`` header (the only place a token may travel)."""
    header = authorization or ""
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return None


URL_TOKEN_REFUSED = ("a token is never accepted in a URL (it would end up in logs and "
                     "history): send `Authorization: Bearer <token>`, or put a one-time "
                     "ticket from POST /api/sessions/{id}/ticket in the URL as ?ticket=")


def bearer(request: Request) -> str | None:
    token = header_token(request.headers.get("authorization"))
    if token is None and "token" in request.query_params:
        raise Unauthorized(URL_TOKEN_REFUSED)
    return token


# Issued tokens are token_urlsafe(24); anything longer or outside printable ASCII is
# refused before comparing (hmac.compare_digest raises TypeError on non-ASCII str).
MAX_TOKEN_LEN = 256


def well_formed(token: str | None) -> bool:
    return token is not None and 0 < len(token) <= MAX_TOKEN_LEN and token.isascii() \
        and token.isprintable() and " " not in token


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))


def is_reviewer(settings: Settings, token: str | None) -> bool:
    return token is not None and well_formed(token) and _same(token, settings.reviewer_token)


async def check_session_token(redis: aioredis.Redis, settings: Settings, session_id: str,
                              token: str | None) -> Access:
    """Who may touch ``session_id``: its own token, or the reviewer token."""
    if token is None:
        raise Unauthorized("a bearer token is required (Authorization: Bearer <token>)")
    if not well_formed(token):
        raise Unauthorized("malformed token: send the token the session was created with")
    if is_reviewer(settings, token):
        if not await redis.exists(keys.session_state(session_id)) and \
                load_archive(settings.data_dir, session_id) is None:
            raise NotFound(f"no session {session_id!r}")
        return Access(session_id, True)
    stored = stored_token_digest(await redis.hgetall(keys.session_meta(session_id)))
    if stored is None:
        # Its Redis keys expired: the archive keeps the token's hash.
        archived = load_archive(settings.data_dir, session_id)
        if archived is None:
            raise NotFound(f"no session {session_id!r}")
        if not archived.token_matches(token):
            raise Forbidden("this token does not belong to that session")
        return Access(session_id, False)
    if not _same(stored, token_digest(token)):
        raise Forbidden("this token does not belong to that session")
    return Access(session_id, False)


async def access_for(request: Request, session_id: str) -> Access:
    """Used by routes (and the judge's): the caller's access to ``session_id``.

    A bearer header first; for a page a browser loads by URL (GET), the link cookie a
    ticket was redeemed into (server/tickets.py). Cookies open nothing that writes: a
    state-changing request always carries the header, so a cross-site form cannot."""
    token = bearer(request)
    if token is None:
        grant = await link_cookie_grant(request, session_id)
        if grant is not None:
            return Access(session_id, grant.reviewer)
    return await check_session_token(request.app.state.redis, request.app.state.settings,
                                     session_id, token)


async def link_cookie_grant(request: Request, session_id: str) -> Grant | None:
    """The grant of ``session_id``'s link cookie, for a page a browser loads by URL (GET or
    HEAD only: a cookie opens nothing that writes)."""
    if request.method not in ("GET", "HEAD"):
        return None
    return await link_grant(request.app.state.redis,
                            request.cookies.get(cookie_name(session_id)), session_id)


def require_reviewer(request: Request) -> Access:
    if not is_reviewer(request.app.state.settings, bearer(request)):
        raise Unauthorized("the reviewer token is required")
    return Access(None, True)
