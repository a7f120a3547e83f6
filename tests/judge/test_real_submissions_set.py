"""The real-submissions set (tests/data/real_submissions) is consistent: labels, sources,
licences and the files on disk agree. Reads files only; nothing is compiled or run."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import get_args

import pytest

from bench.real_submissions import (
    EXPECTED,
    KNOWN_CLASSES,
    LABELS,
    SET_DIR,
    SOURCES,
    RealSubmissionsError,
    bank_problem_ids,
    files_on_disk,
    load,
    read_labels,
    read_sources,
    sha256_of,
    validate,
)
from judge.languages import LANGUAGES
from judge.problems import ComplexityClass

LABELLED = read_labels()
SOURCED = {s.file: s for s in read_sources()}
# The programs are kept out of git (see the set's .gitignore): a checkout without them still
# checks the metadata; the file checks run wherever they have been re-created.
PRESENT = files_on_disk()
needs_files = pytest.mark.skipif(
    not PRESENT, reason="submission files not re-created here (kept out of git; SOURCES.md)")


def test_the_set_validates_as_a_whole() -> None:
    assert validate(check_files=bool(PRESENT)) == []
    assert len(load(check_files=bool(PRESENT))) == len(LABELLED)


def test_size_and_spread() -> None:
    assert len(LABELLED) >= 30
    assert len({s.problem for s in LABELLED}) >= 8
    # Every judge language: CSES solutions for C++, Python and Java, TheAlgorithms functions
    # with a driver for Go, C and JavaScript (SOURCES.md).
    assert {s.language for s in LABELLED} == set(LANGUAGES)
    # A label may say CE: a published program that does not compile is a real submission too.
    assert "CE" in EXPECTED


def test_every_problem_is_in_the_bank_and_every_language_is_the_judges() -> None:
    bank = bank_problem_ids()
    assert {s.problem for s in LABELLED} <= bank
    assert {s.language for s in LABELLED} <= set(LANGUAGES)
    for s in LABELLED:
        assert s.file.split("/")[:2] == [s.problem, s.language], s.file


def test_a_crash_label_gives_what_is_named_and_the_right_lines() -> None:
    row = LABELLED[0]
    assert replace(row, crash="a RecursionError@12").crash_label() == ("a RecursionError",
                                                                       (12,))
    assert replace(row, crash="a panic, index out of range@7,9").crash_label() == (
        "a panic, index out of range", (7, 9))
    for bad in ("", "a segmentation fault", "@3", "a segmentation fault@x", "a crash@0"):
        assert replace(row, crash=bad).crash_label() is None, bad


def test_labels_use_the_allowed_verdicts_and_classes() -> None:
    assert set(KNOWN_CLASSES) <= set(get_args(ComplexityClass))
    for s in LABELLED:
        assert s.expected in EXPECTED, s
        assert s.known_class in KNOWN_CLASSES, s
        assert s.note, s


def test_sources_name_every_file_with_a_licence() -> None:
    assert set(SOURCED) == {s.file for s in LABELLED}
    for src in SOURCED.values():
        assert src.licence_id, src
        # The licence texts come back with the programs (neither is in git).
        assert not PRESENT or (SET_DIR / src.licence_file).is_file(), src.licence_file
        assert src.repository.count("/") == 1 and len(src.commit) == 40, src


@needs_files
def test_every_labelled_file_exists_and_every_file_is_labelled() -> None:
    assert {s.file for s in LABELLED} == PRESENT


@needs_files
def test_files_are_byte_for_byte_what_the_sources_record() -> None:
    changed = [f for f, src in SOURCED.items() if sha256_of(SET_DIR / f) != src.sha256]
    assert changed == []


def _copy_metadata(tmp: Path) -> None:
    for name in (LABELS, SOURCES):
        (tmp / name).write_bytes((SET_DIR / name).read_bytes())
    (tmp / "LICENSES").mkdir()
    for src in SOURCED.values():
        text = SET_DIR / src.licence_file  # re-created with the programs, not in git
        if text.is_file():
            (tmp / src.licence_file).write_bytes(text.read_bytes())


def test_validate_reports_what_is_wrong(tmp_path: Path) -> None:
    _copy_metadata(tmp_path)
    first = LABELLED[0]
    rows = (tmp_path / LABELS).read_text().splitlines()
    bad = first.file.replace(first.problem, "no-such-problem", 1)
    rows.append("\t".join([bad, "no-such-problem", "cobol", "OK", "n^3", "", ""]))
    crash = first.file.replace(".", "_re.", 1)
    rows.append("\t".join([crash, first.problem, first.language, "RE", "n", "x", "a crash@"]))
    rows.append("\t".join([first.file.replace(".", "_wa.", 1), first.problem,
                            first.language, "WA", "n", "x", "a crash@3"]))
    (tmp_path / LABELS).write_text("\n".join(rows) + "\n")
    (tmp_path / "stray.txt").write_text("x")
    faults = "\n".join(validate(tmp_path))
    for words in ("no bank problem 'no-such-problem'", "language 'cobol'", "expected 'OK'",
                  "known_class 'n^3'", "note is empty", f"{SOURCES}: no row for {bad}",
                  f"{first.file}: labelled but missing", "stray.txt: on disk but not labelled",
                  f"{crash}: an RE row needs crash", "only an RE row has a crash label"):
        assert words in faults
    with pytest.raises(RealSubmissionsError):
        load(tmp_path)
    assert validate(tmp_path, check_files=False) != []
