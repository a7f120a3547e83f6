"""`viva bench load` drives real concurrent sessions and reports figures as JSON."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.mark.slow
def test_load_bench_json(redis_url: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "server.cli", "bench", "load", "--sessions", "3",
         "--questions", "2", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={"PATH": "/usr/bin:/bin", "REDIS_URL": redis_url, "HOME": "/tmp"})
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["bench"] == "load" and result["sessions"] == 3
    assert result["answers"] >= 6  # 2 main questions each, plus any follow-ups
    lat = result["answer_to_feedback_ms"]
    assert 0 < lat["p50"] <= lat["p95"]
