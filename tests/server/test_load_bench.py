"""`viva bench load` drives real concurrent sessions and reports figures as JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.conftest import ROOT


def bench(redis_url: str, *args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "server.cli", "bench", "load", *args, "--json"], cwd=ROOT,
        capture_output=True, text=True, timeout=300,
        env={"PATH": "/usr/bin:/bin", "REDIS_URL": redis_url, "HOME": "/tmp"})
    assert out.returncode == 0, out.stderr[-2000:]
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.slow
def test_load_bench_json(redis_url: str) -> None:
    result = bench(redis_url, "--sessions", "3", "--questions", "2")
    assert result["bench"] == "load" and result["sessions"] == 3
    assert result["errors"] == 0 and result["completed"] == 3
    assert result["answers"] >= 6  # 2 main questions each, plus any follow-ups
    lat = result["answer_to_feedback_ms"]
    assert 0 < lat["p50"] <= lat["p95"]
    first = result["first_question_ms"]
    assert 0 < first["p50"] <= first["p95"]
    assert result["server_rss_mb"]["peak"] > 0 and result["redis_clients"]["peak"] >= 1


@pytest.mark.slow
def test_load_bench_idle_websockets(redis_url: str) -> None:
    result = bench(redis_url, "--idle", "12", "--hold", "0.5")
    assert result["mode"] == "idle" and result["errors"] == 0
    assert result["websockets_open"] == 12 == result["external_event_delivered"]
    assert result["server_ws_open_peak"] == 12


@pytest.mark.slow
def test_load_bench_recovers_from_a_redis_restart_under_load(redis_url: str) -> None:
    """Redis restarts while sockets are open (its own server, with an append-only file):
    requests answer again and every open socket gets events again, with no error."""
    result = bench(redis_url, "--idle", "30", "--hold", "0.5", "--redis-restart")
    restart = result["redis_restart"]
    assert restart["recovered_ms"] is not None, restart
    assert result["errors"] == 0 and result["external_event_delivered"] == 30
