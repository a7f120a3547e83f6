"""Shared fixtures: a real, private Redis server per test session."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis
import redis.asyncio as aioredis

from tests.split_guard import SplitGuard

ROOT = Path(__file__).resolve().parent.parent
# The public test split is for `viva bench grading --test` alone: the suite never reads it.
SPLIT_GUARD = SplitGuard().install()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if SPLIT_GUARD.reads:
        print(f"\nThe suite read the public test split: {sorted(set(SPLIT_GUARD.reads))}. "
              "Use tests/data/public_dev/ (dev) instead; the test split is read only by "
              "`viva bench grading --test`.")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """A real redis-server process on a private port with AOF, restartable."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            pytest.fail("redis-server is not installed: run `make test` (it installs it)")
        self.proc = subprocess.Popen(
            [exe, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.workdir),
             "--appendonly", "yes", "--save", "", "--protected-mode", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> Iterator[str]:
    """A clean database on the shared real server for each test."""
    client = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    client.close()
    yield redis_server.url


@pytest.fixture
async def aredis(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


@pytest.fixture(autouse=True)
def _offline_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # Models come from registry packages only; never from a hub at run time.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    _test_env()


def _test_env() -> None:
    os.environ.setdefault("VIVA_ENV", "test")
    # Outside development the reviewer token is required; servers the tests start inherit it.
    os.environ.setdefault("VIVA_REVIEWER_TOKEN", "reviewer-token-for-tests")


_test_env()  # now, too: test modules read these at import (e.g. the /metrics bearer header)
