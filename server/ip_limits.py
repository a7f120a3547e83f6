"""Per-client-IP limits: HTTP request rate, session creation rate, open websockets.

An ASGI middleware in front of everything, so a refused request costs no Redis round trip.
State is per process (in memory): with N app processes a client gets N times the budget,
which is the point of a cheap first line; a global limit belongs in the proxy.

Refusals use the contract's shapes: HTTP 429 ``{"error": {"code": "rate_limited", ...}}``
with ``Retry-After``; a websocket is accepted, sent one ``error`` event and closed with 1013
(try again later), so a browser sees why instead of a bare failed handshake.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from core.events import ErrorEvent, wire
from server.rate_limit import TokenBucket

CLOSE_TRY_LATER = 1013
MAX_TRACKED_IPS = 10_000  # beyond this, buckets that are full again are forgotten


def client_ip(scope: Scope, trust_proxy_headers: bool) -> str:
    """The caller's address; behind a trusted proxy, the last X-Forwarded-For hop."""
    if trust_proxy_headers:
        for name, value in scope.get("headers") or []:
            if name == b"x-forwarded-for":
                hops = [h.strip() for h in value.decode("latin-1").split(",") if h.strip()]
                if hops:
                    return hops[-1]
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class BucketTable:
    """One token bucket per key, created full on first use; bounded in size."""

    def __init__(self, rate: float, burst: float, now: Callable[[], float] = time.monotonic):
        self.rate, self.burst, self._now = rate, burst, now
        self.buckets: dict[str, TokenBucket] = {}

    def take(self, key: str) -> bool:
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= MAX_TRACKED_IPS:
                self._forget_idle()
            bucket = self.buckets[key] = TokenBucket(self.rate, self.burst, self._now)
        return bucket.take()

    def retry_after_s(self, key: str) -> int:
        bucket = self.buckets.get(key)
        missing = 1.0 - (bucket.tokens if bucket else 1.0)
        return max(1, math.ceil(missing / self.rate)) if self.rate > 0 else 60

    def _forget_idle(self) -> None:
        now = self._now()
        for key, b in list(self.buckets.items()):
            # A bucket that would be full by now carries no information: drop it.
            if b.tokens + (now - b.stamp) * b.rate >= b.burst:
                del self.buckets[key]
        if len(self.buckets) >= MAX_TRACKED_IPS:  # a flood of distinct addresses
            self.buckets.clear()


class ClientIpLimits:
    def __init__(self, app: ASGIApp, settings: Any,
                 now: Callable[[], float] = time.monotonic):
        self.app = app
        self.trust = bool(settings.trust_proxy_headers)
        self.requests = BucketTable(settings.ip_requests_per_s, settings.ip_requests_burst, now)
        self.sessions = BucketTable(settings.ip_sessions_per_s, settings.ip_sessions_burst, now)
        self.max_websockets = int(settings.ip_max_websockets)
        self.open_websockets: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        ip = client_ip(scope, self.trust)
        creates = scope["method"] == "POST" and scope["path"].rstrip("/") == "/api/sessions"
        for table, limit, what in ((self.requests, "requests", "requests"),
                                   *([(self.sessions, "sessions", "new sessions")]
                                     if creates else [])):
            if not table.take(ip):
                await _refuse_http(send, table.retry_after_s(ip),
                                   f"too many {what} from {ip}: at most {table.rate:g} a "
                                   f"second (bursts of {table.burst:g})", limit)
                return
        await self.app(scope, receive, send)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        ip = client_ip(scope, self.trust)
        if self.open_websockets.get(ip, 0) >= self.max_websockets:
            message = await receive()  # websocket.connect
            if message["type"] != "websocket.connect":
                return
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.send", "text": json.dumps(wire(ErrorEvent(
                code="rate_limited", seq=0,
                message=f"too many open connections from {ip}: at most "
                        f"{self.max_websockets}; close one and retry")))})
            await send({"type": "websocket.close", "code": CLOSE_TRY_LATER})
            return
        self.open_websockets[ip] = self.open_websockets.get(ip, 0) + 1
        try:
            await self.app(scope, receive, send)
        finally:
            left = self.open_websockets.get(ip, 1) - 1
            if left > 0:
                self.open_websockets[ip] = left
            else:
                self.open_websockets.pop(ip, None)


async def _refuse_http(send: Send, retry_after: int, message: str, limit: str) -> None:
    body = json.dumps({"error": {"code": "rate_limited", "message": message,
                                 "details": {"limit": limit, "scope": "ip",
                                             "retry_after_s": retry_after}}}).encode()
    await send({"type": "http.response.start", "status": 429,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"retry-after", str(retry_after).encode())]})
    await send({"type": "http.response.body", "body": body})
