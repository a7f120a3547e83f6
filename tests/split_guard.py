"""The public test split stays out of ``make test`` and the default bench.

``SplitGuard`` is an audit hook (PEP 578) that records every file opened under a folder. The
pytest session installs one over ``tests/data/public/`` (``tests/conftest.py``) and fails if
anything opened it; ``python -m tests.split_guard ARGS...`` runs ``viva ARGS...`` under one and
prints the files it read from the test split as its last stderr line, so a test can check
that a command run in a subprocess (the default grading bench) never reads it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST_SPLIT = ROOT / "tests" / "data" / "public"
MARK = "test-split-reads:"


class SplitGuard:
    def __init__(self, folder: Path = TEST_SPLIT):
        self.prefix = os.path.abspath(folder) + os.sep
        self.reads: list[str] = []

    def hook(self, event: str, args: tuple[object, ...]) -> None:
        # Only "open" with a path: cheap string checks, as every import also opens files.
        if event != "open" or not args or not isinstance(args[0], (str, bytes, os.PathLike)):
            return
        path = os.path.abspath(os.fsdecode(args[0]))
        if path.startswith(self.prefix):
            self.reads.append(path)

    def install(self) -> SplitGuard:
        sys.addaudithook(self.hook)  # cannot be removed: one guard per process
        return self


def main(argv: list[str]) -> int:
    guard = SplitGuard().install()
    from server.cli import main as viva

    try:
        code = viva(argv)
    finally:
        print(MARK + json.dumps(sorted(set(guard.reads))), file=sys.stderr, flush=True)
    return int(code or 0)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
