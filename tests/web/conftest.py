"""Fixtures for the web tests: an up-to-date build, Playwright, JS-error capture."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Playwright, sync_playwright

from tests.conftest import ROOT
from tests.web.harness import JsErrors

WEB = ROOT / "web"
_LOADED_AT = time.time()  # screenshots newer than this were made by this run


@pytest.fixture(scope="session")
def web_dist() -> Path:
    """Runs the idempotent web setup (npm ci when stale, build when sources are newer)."""
    result = subprocess.run(["bash", str(ROOT / "scripts" / "setup-web.sh")], cwd=ROOT,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"web build failed:\n{result.stdout}\n{result.stderr}"
    dist = WEB / "dist"
    assert (dist / "index.html").is_file() and (dist / "assets" / "main.js").is_file()
    return dist


@pytest.fixture(scope="module")
def playwright_driver() -> Iterator[Playwright]:
    # Module scope: the sync driver is stopped before async tests elsewhere run.
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture
def js_errors() -> Iterator[JsErrors]:
    errors = JsErrors()
    yield errors
    errors.assert_none()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Lists the screenshots the browser tests saved, so they are found from the test output."""
    from tests.web.harness import SCREENSHOTS

    shots = sorted(p for p in SCREENSHOTS.glob("*.png") if p.stat().st_mtime >= _LOADED_AT) \
        if SCREENSHOTS.is_dir() else []
    if shots:
        terminalreporter.section("web screenshots")
        for path in shots:
            terminalreporter.write_line(str(path))
