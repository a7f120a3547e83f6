"""``viva bench coding_voice`` crashes a bank reference on purpose: the bug it adds must be
where it says, and the crash it causes must be the one the interviewer is checked on."""

from __future__ import annotations

from bench.coding_voice import BUGGY_LINE, with_off_by_one
from tests.conftest import ROOT


def test_the_off_by_one_is_added_on_the_line_it_names() -> None:
    changed = 0
    for reference in sorted((ROOT / "bank" / "problems").glob("*/solutions/reference.py")):
        source = reference.read_text()
        buggy = with_off_by_one(source)
        if buggy is None:
            assert "n = int(data[0])" not in source.split()
            continue
        code, line = buggy
        lines = code.splitlines()
        assert lines[line - 1].strip() == BUGGY_LINE, reference
        assert lines[line - 2].strip() == "n = int(data[0])"
        assert [x for i, x in enumerate(lines) if i != line - 1] == source.splitlines()
        changed += 1
    assert changed >= 10  # most references read their input this way


def test_a_program_without_the_length_line_is_left_alone() -> None:
    assert with_off_by_one("print(sum(map(int, input().split())))\n") is None
