"""`make run`'s Redis (scripts/start-redis.sh): its own server on a free port under
VIVA_DATA_DIR, reused when it is provably the one it started, and never a server it did not
start, even one answering on the port it used before."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.conftest import RedisServer

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "start-redis.sh"


def start(data_dir: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "VIVA_REDIS_PORT")}
    return subprocess.run(["bash", str(SCRIPT)], env={**env, "VIVA_DATA_DIR": str(data_dir),
                                                      **extra},
                          capture_output=True, text=True, timeout=60)


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def stop_ours(data_dir: Path) -> None:
    pidfile = data_dir / "redis" / "redis.pid"
    if pidfile.exists():
        try:
            os.kill(int(pidfile.read_text()), signal.SIGTERM)
        except (ProcessLookupError, ValueError):
            pass


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "var"
    stop_ours(tmp_path / "var")


@pytest.fixture
def stranger(tmp_path: Path) -> Iterator[RedisServer]:
    """A Redis this script did not start, holding somebody's data."""
    (tmp_path / "stranger").mkdir()
    server = RedisServer(tmp_path / "stranger")
    server.start()
    redis.Redis(port=server.port).set("theirs", "1")
    yield server
    server.stop()


def test_make_run_starts_its_own_redis_and_reuses_only_its_own(
        data_dir: Path, stranger: RedisServer) -> None:
    first = start(data_dir)
    assert first.returncode == 0, first.stderr
    url = first.stdout.strip().splitlines()[-1]
    assert url.startswith("redis://127.0.0.1:") and port_of(url) != stranger.port
    ours = redis.Redis(port=port_of(url), decode_responses=True)
    assert ours.config_get("dir")["dir"] == str((data_dir / "redis").resolve())
    assert ours.get("theirs") is None
    ours.set("mine", "1")

    again = start(data_dir)  # the same server, provably ours: reused, data kept
    assert again.returncode == 0 and again.stdout.strip().splitlines()[-1] == url
    assert "reusing" in again.stderr

    # Ours stops; somebody else's server then takes the port it had. Not adopted.
    pid = int((data_dir / "redis" / "redis.pid").read_text())
    os.kill(pid, signal.SIGTERM)
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    (data_dir.parent / "squatter").mkdir()
    squatter = RedisServer(data_dir.parent / "squatter")
    squatter.port = port_of(url)
    squatter.start()
    try:
        third = start(data_dir)
        assert third.returncode == 0, third.stderr
        url3 = third.stdout.strip().splitlines()[-1]
        assert port_of(url3) != port_of(url)
        # a fresh server of ours, on our data directory: what was written before is back
        assert redis.Redis(port=port_of(url3), decode_responses=True).get("mine") == "1"
    finally:
        squatter.stop()


def test_a_pinned_port_held_by_another_server_is_refused(
        data_dir: Path, stranger: RedisServer) -> None:
    refused = start(data_dir, VIVA_REDIS_PORT=str(stranger.port))
    assert refused.returncode != 0
    assert "did not start" in refused.stderr and "REDIS_URL" in refused.stderr
    assert not (data_dir / "redis" / "port").exists()
