"""The real-crashes set: published programs written by people (student submissions, a bug
benchmark's programs) that crash at run time, each with the input that makes it crash and
what the interviewer must name: the exception (or signal) and the program's own line
(issue 22's crash goal on code that is not our own; ``bench/crash_programs.py`` holds ours).

Layout, under ``tests/data/real_crashes/``:

- ``<language>/<name>.<ext>``: the programs, and ``inputs/<name>.in``: their inputs (both
  kept out of git with the licence texts; ``scripts/make_real_crashes.py`` re-creates them
  from the repositories named in SOURCES.md);
- ``labels.tsv``: ``file language input crash note``, ``crash`` being
  ``<what must be named>@<line>[,<line>]`` (``bench.crash_programs.parse_crash``);
- ``SOURCES.md``: a table row per program (repository @ commit, path, licence, author,
  sha256), read by ``bench.real_submissions.read_sources``.

``load()`` returns the rows after ``validate()`` finds nothing wrong; nothing here runs a
program.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from bench.crash_programs import parse_crash
from bench.real_submissions import (
    EXTENSION,
    SOURCES,
    RealSubmissionsError,
    read_sources,
    sha256_of,
    source_faults,
)
from judge.languages import LANGUAGES

ROOT = Path(__file__).resolve().parent.parent
SET_DIR = ROOT / "tests" / "data" / "real_crashes"
LABELS = "labels.tsv"
COLUMNS = ("file", "language", "input", "crash", "note")


@dataclass(frozen=True)
class RealCrash:
    """One labelled program (a row of labels.tsv)."""

    file: str  # <language>/<name>.<ext>, relative to the set
    language: str
    input: str  # inputs/<name>.in, relative to the set
    crash: str  # "<what must be named>@<line>[,<line>]"
    note: str  # why it crashes, read from the code

    def label(self) -> tuple[str, tuple[int, ...]] | None:
        return parse_crash(self.crash)


def read_labels(root: Path = SET_DIR) -> list[RealCrash]:
    with (root / LABELS).open(newline="", encoding="utf-8") as fh:
        rows = [row for row in csv.reader(fh, delimiter="\t") if row]
    if not rows or tuple(rows[0]) != COLUMNS:
        raise RealSubmissionsError(f"{LABELS}: the header must be {' '.join(COLUMNS)} "
                                   "(tab-separated)")
    out = []
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(COLUMNS):
            raise RealSubmissionsError(f"{LABELS}:{number}: {len(row)} columns, want "
                                       f"{len(COLUMNS)}")
        out.append(RealCrash(*(cell.strip() for cell in row)))
    return out


def validate(root: Path = SET_DIR, check_files: bool = True) -> list[str]:
    """Every fault in the set, as sentences (empty: consistent). ``check_files=False`` skips
    what needs the re-created files."""
    try:
        rows = read_labels(root)
        sources = {s.file: s for s in read_sources(root)}
    except (OSError, RealSubmissionsError) as exc:
        return [str(exc)]
    faults: list[str] = []
    seen: set[str] = set()
    for r in rows:
        where = f"{LABELS}: {r.file}"
        if r.file in seen:
            faults.append(f"{where} is labelled twice")
        seen.add(r.file)
        if r.language not in LANGUAGES:
            faults.append(f"{where}: language {r.language!r} is not one of {LANGUAGES}")
        elif r.file.split("/")[0] != r.language or not r.file.endswith(EXTENSION[r.language]):
            faults.append(f"{where}: the file must be {r.language}/<name>"
                          f"{EXTENSION[r.language]}")
        if not r.input.startswith("inputs/"):
            faults.append(f"{where}: the input must be inputs/<name>")
        if r.label() is None:
            faults.append(f"{where}: crash must be <named>@<line>[,<line>], not {r.crash!r}")
        if not r.note:
            faults.append(f"{where}: the note is empty")
        src = sources.get(r.file)
        if src is None:
            faults.append(f"{SOURCES}: no row for {r.file}")
            continue
        faults += source_faults(src, root, check_files)
        if not check_files:
            continue
        program, given = root / r.file, root / r.input
        if not program.is_file() or not given.is_file():
            faults.append(f"{r.file}: the program or its input is missing (re-create them: "
                          "scripts/make_real_crashes.py)")
            continue
        if sha256_of(program) != src.sha256:
            faults.append(f"{r.file}: sha256 differs from {SOURCES} (edited?)")
        label = r.label()
        lines = len(program.read_text(encoding="utf-8", errors="replace").splitlines())
        if label is not None and max(label[1]) > lines:
            faults.append(f"{where}: line {max(label[1])} is past the program's {lines}")
    faults += [f"{SOURCES}: {f} is not labelled" for f in sorted(set(sources) - seen)]
    return faults


def files_present(root: Path = SET_DIR) -> bool:
    """Whether the programs have been re-created here (they are not in git)."""
    return any((root / lang).is_dir() for lang in LANGUAGES)


def load(root: Path = SET_DIR, check_files: bool = True) -> list[RealCrash]:
    faults = validate(root, check_files)
    if faults:
        raise RealSubmissionsError("real crashes set:\n" + "\n".join(faults))
    return read_labels(root)
