"""The real-crashes set (tests/data/real_crashes) is consistent: labels, sources, licences
and, where they have been re-created, the programs and inputs agree. Nothing is run here
(``viva bench coding --real`` runs them in the sandbox)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.code_evidence import fault_words
from bench.crash_programs import names_crash, parse_crash, sites_in
from bench.real_crashes import LABELS, SET_DIR, files_present, load, read_labels, validate
from bench.real_submissions import SOURCES, read_sources
from judge.languages import LANGUAGES

ROWS = read_labels()
PRESENT = files_present()


def test_the_set_validates_and_is_big_enough() -> None:
    assert validate(check_files=PRESENT) == []
    assert len(load(check_files=PRESENT)) == len(ROWS)
    assert len(ROWS) >= 25
    assert len({r.language for r in ROWS}) >= 6  # every judge language
    assert {r.language for r in ROWS} <= set(LANGUAGES)


def test_every_row_names_something_at_a_line_and_says_why() -> None:
    for r in ROWS:
        label = r.label()
        assert label is not None, r.file
        assert label[0].startswith(("a ", "an ")), r.crash  # spoken as "with a ..."
        assert r.note, r.file
    assert {s.file for s in read_sources(SET_DIR)} == {r.file for r in ROWS}


def test_crash_labels_parse_and_quote_their_lines() -> None:
    assert parse_crash("a RecursionError@12") == ("a RecursionError", (12,))
    assert parse_crash("a panic, index out of range@7,9") == ("a panic, index out of range",
                                                              (7, 9))
    for bad in ("", "a segmentation fault", "@3", "a segmentation fault@x", "a crash@0"):
        assert parse_crash(bad) is None, bad
    code = "int main() {\n  int *p = 0;\n  return *p;\n}\n"
    assert sites_in(code, (3, 9)) == ((3, "return *p;"),)


def test_a_long_crashing_line_is_matched_as_the_interviewer_quotes_it() -> None:
    # The interviewer cuts a quoted line to 60 characters; the check once compared the whole
    # line, so a real crash on a long line (TheAlgorithms' Go binary search) was a miss.
    code = "x = 1\nreturn binarySearch(array, target, lowIndex, highIndex-1, depth + 1)\n"
    words = fault_words({"kind": "exception", "name": "E", "line": 2}, code)
    said = f"Sample 1 crashes with {words}."
    assert "…`." in said
    assert names_crash(said, "an E", sites_in(code, (2,)))
    assert not names_crash(said, "an E", sites_in(code, (1,)))


def test_validate_reports_what_is_wrong(tmp_path: Path) -> None:
    # One SOURCES.md row with a short commit and a licence that is not allowed.
    sources = (SET_DIR / SOURCES).read_text(encoding="utf-8").replace(
        "| python/gcd.py | jkoppel/QuixBugs @ 4257f44b0ff1181dedaedee6a447e133219fcebf | "
        "python_programs/gcd.py | MIT (",
        "| python/gcd.py | jkoppel/QuixBugs @ 4257f44 | python_programs/gcd.py | WTFPL (", 1)
    (tmp_path / SOURCES).write_text(sources, encoding="utf-8")
    rows = (SET_DIR / LABELS).read_text(encoding="utf-8").splitlines()
    rows.append("\t".join(["cobol/x.cbl", "cobol", "x.in", "a crash", ""]))
    (tmp_path / LABELS).write_text("\n".join(rows) + "\n", encoding="utf-8")
    faults = "\n".join(validate(tmp_path))
    for words in ("language 'cobol'", "the input must be inputs/", "crash must be",
                  "the note is empty", f"{SOURCES}: no row for cobol/x.cbl",
                  f"{ROWS[0].file}: the program or its input is missing",
                  "python/gcd.py: commit '4257f44' is not 40 hex digits",
                  "python/gcd.py: licence 'WTFPL"):
        assert words in faults
    assert "program or its input is missing" not in "\n".join(
        validate(tmp_path, check_files=False))


@pytest.mark.skipif(not PRESENT, reason="programs not re-created here (not in git)")
def test_each_labelled_line_is_a_line_of_code() -> None:
    for r in ROWS:
        label = r.label()
        assert label is not None
        code = (SET_DIR / r.file).read_text(encoding="utf-8", errors="replace")
        assert all(text for _, text in sites_in(code, label[1])), r.file
