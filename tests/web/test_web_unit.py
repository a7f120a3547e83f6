"""The web app's own checks: TypeScript type-check and the node unit tests of its pure modules
(compile-log parsing, playback timeline, websocket resume/de-duplication)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.conftest import ROOT

WEB = ROOT / "web"


def npm(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("npm")
    assert exe is not None, "npm is required: `make test` installs nodejs and npm"
    return subprocess.run([exe, *args], cwd=WEB, capture_output=True, text=True, timeout=300)


def test_typescript_typechecks(web_dist: Path) -> None:
    result = npm("run", "--silent", "typecheck")
    assert result.returncode == 0, result.stdout + result.stderr


def test_node_unit_tests_pass(web_dist: Path) -> None:
    result = npm("test", "--silent")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# fail 0" in result.stdout
