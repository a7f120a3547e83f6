"""The one-way dependency rule (architecture.md), checked on the import statements:
server → realtime → agents / judge / audio → store → core, with agents, judge and audio
not importing each other."""

from __future__ import annotations

import ast

import pytest

from tests.conftest import ROOT

PACKAGES = ("server", "realtime", "agents", "judge", "audio", "store", "core")
MAY_IMPORT = {
    "core": set(),
    "store": {"core"},
    "audio": {"store", "core"},
    "agents": {"store", "core"},
    "judge": {"store", "core"},
    "realtime": {"agents", "judge", "audio", "store", "core"},
    "server": {"realtime", "agents", "judge", "audio", "store", "core"},
}


def imported_packages(package: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in (ROOT / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top in PACKAGES and top != package:
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_dependencies_point_one_way(package: str) -> None:
    wrong = {dep: files for dep, files in imported_packages(package).items()
             if dep not in MAY_IMPORT[package]}
    assert wrong == {}, f"{package} imports upward or sideways: {wrong}"
