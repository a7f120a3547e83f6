"""Redis clients for an app process: a waiting pool for requests, one connection for reading.

redis-py's default asyncio pool raises ``MaxConnectionsError`` as soon as its 100 connections
are busy, and the app used to report that as "Redis is unreachable". Request traffic here goes
through a pool that *waits* (up to ``timeout``) for a free connection, and when even that is
not enough it raises :class:`PoolExhausted`, which names the real cause: this process is
overloaded, Redis is fine. Blocking reads never use this pool (see ``store.event_fanout``).
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import redis.asyncio as aioredis
import redis.exceptions
from redis.asyncio.connection import BlockingConnectionPool


class PoolExhausted(redis.exceptions.MaxConnectionsError):
    """Every connection of this process's pool stayed busy for the whole wait."""

    def __init__(self, size: int, timeout: float | None):
        super().__init__(f"all {size} Redis connections of this process stayed busy for "
                         f"{timeout} s: the server is overloaded (Redis itself answers)")
        self.size, self.timeout = size, timeout


class WaitingConnectionPool(BlockingConnectionPool):
    """A ``BlockingConnectionPool`` whose timeout raises :class:`PoolExhausted`."""

    async def get_connection(self, command_name: Any = None, *keys: Any,
                             **options: Any) -> Any:
        try:
            return await super().get_connection()
        except redis.exceptions.ConnectionError as exc:
            # BlockingConnectionPool reports its own wait timing out as a plain
            # ConnectionError caused by asyncio.TimeoutError; a failed connect is different.
            if isinstance(exc.__cause__, asyncio.TimeoutError) and not isinstance(
                    exc, redis.exceptions.MaxConnectionsError):
                raise PoolExhausted(self.max_connections, self.timeout) from exc
            raise

    def stats(self) -> dict[str, int]:
        """Connections in use, idle, and the cap (for /metrics)."""
        return {"in_use": len(self._in_use_connections),
                "idle": len(self._available_connections), "max": self.max_connections}


def request_client(url: str, *, size: int, timeout: float) -> aioredis.Redis:
    """The shared client for request traffic (``decode_responses=True``)."""
    pool = WaitingConnectionPool.from_url(url, max_connections=size, timeout=timeout,
                                          decode_responses=True, health_check_interval=10)
    return aioredis.Redis.from_pool(pool)


def reader_client(url: str) -> aioredis.Redis:
    """A client with exactly one connection, for the process's blocking stream reader.

    No socket timeout (redis-py 8 defaults to 5 s, which races a 5 s ``XREAD BLOCK`` and
    fails it as "Timeout reading"; and a task cancelled while reading under that timeout
    could hang instead of stopping). TCP keepalive surfaces a silently dropped peer.
    """
    opts = {socket.TCP_KEEPIDLE: 10, socket.TCP_KEEPINTVL: 5, socket.TCP_KEEPCNT: 3}
    return aioredis.Redis.from_url(url, decode_responses=True, single_connection_client=True,
                                   socket_timeout=None, socket_connect_timeout=5,
                                   socket_keepalive=True, socket_keepalive_options=opts)


def describe_redis_error(exc: BaseException) -> tuple[str, str]:
    """(error code, message) for a Redis failure, naming the real cause."""
    if isinstance(exc, PoolExhausted):
        return "server_busy", (f"The server is overloaded: {exc}. Retry in a moment.")
    text = str(exc)
    if "max number of clients" in text.lower():
        return "dependency_down", ("Redis refused the connection: it has reached its "
                                   "maxclients limit. Raise maxclients or add capacity.")
    if isinstance(exc, redis.exceptions.TimeoutError):
        return "dependency_down", f"Redis did not answer in time ({text}); retry shortly."
    return "dependency_down", f"Redis is unreachable ({text}); check REDIS_URL and retry."
