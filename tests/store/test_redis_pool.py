"""The request pool waits for a free connection, and its errors name the real cause."""

from __future__ import annotations

import asyncio
import time

import pytest
import redis.exceptions

from store.redis_pool import PoolExhausted, describe_redis_error, request_client
from tests.conftest import free_port


async def test_a_busy_pool_waits_instead_of_failing(redis_url: str) -> None:
    client = request_client(redis_url, size=1, timeout=5)
    try:
        holder = asyncio.create_task(client.blpop(["nothing-here"], timeout=0.5))
        await asyncio.sleep(0.1)  # the only connection is now blocked in BLPOP
        t0 = time.perf_counter()
        assert await client.ping()
        waited = time.perf_counter() - t0
        assert await holder is None
        assert waited >= 0.2  # it really queued behind the blocked command
    finally:
        await client.aclose()


async def test_an_exhausted_pool_says_so(redis_url: str) -> None:
    client = request_client(redis_url, size=1, timeout=0.2)
    try:
        holder = asyncio.create_task(client.blpop(["nothing-here"], timeout=1))
        await asyncio.sleep(0.1)
        with pytest.raises(PoolExhausted) as info:
            await client.ping()
        code, message = describe_redis_error(info.value)
        assert code == "server_busy"
        assert "1 Redis connections" in message and "overloaded" in message
        await holder
        assert await client.ping()  # and it recovers once the connection is free
    finally:
        await client.aclose()


async def test_redis_down_is_not_called_busy() -> None:
    client = request_client(f"redis://127.0.0.1:{free_port()}/0", size=4, timeout=0.5)
    try:
        with pytest.raises(redis.exceptions.ConnectionError) as info:
            await client.ping()
        assert not isinstance(info.value, PoolExhausted)
        code, message = describe_redis_error(info.value)
        assert code == "dependency_down" and "unreachable" in message
    finally:
        await client.aclose()
