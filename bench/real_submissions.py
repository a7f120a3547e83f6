"""The real-submissions set: publicly published, human-written solutions to bank problems
(CSES tasks with the same input and output format; TheAlgorithms functions with a driver
appended), for measuring the judge and the complexity fit on programs that are not our own
(issue 22).

Layout, under ``tests/data/real_submissions/``:

- ``<problem>/<language>/<name>.<ext>``: the programs, byte for byte as published, or for
  TheAlgorithms with one-line edits and an appended driver (kept out of git: see the
  ``.gitignore`` there; ``scripts/make_real_submissions.py`` re-creates them);
- ``labels.tsv``: one row per program: ``file problem language expected known_class note``,
  ``expected`` being the verdict read from the code against the bank's constraints (AC, WA, RE,
  TLE, or CE for a program that does not compile as published), ``known_class`` its growth
  in the problem's ``measure`` parameter and, for RE only, ``crash``: what the interviewer
  must name and the program's lines that are right, ``<named>@<line>[,<line>]`` ("a
  RecursionError@12"; C, C++ and Go may list the recursion's call and its function line);
- ``SOURCES.md``: a table row per program (repository @ commit, path, licence, author, sha256);
  ``LICENSES/`` with each repository's licence text is re-created with the programs (not in
  git either).

``load()`` returns the labelled rows after ``validate()`` finds nothing wrong; nothing here
runs a program.
"""

from __future__ import annotations

import csv
import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bench.crash_programs import parse_crash
from judge.languages import EXECUTORS, LANGUAGES
from judge.problems import default_bank_dir

ROOT = Path(__file__).resolve().parent.parent
SET_DIR = ROOT / "tests" / "data" / "real_submissions"
LABELS = "labels.tsv"
SOURCES = "SOURCES.md"
LICENCE_DIR = "LICENSES"
COLUMNS = ("file", "problem", "language", "expected", "known_class", "note", "crash")
EXPECTED = ("AC", "WA", "RE", "TLE", "CE")
# Classes a label may give (issue 22's list; all are judge.problems.ComplexityClass values).
KNOWN_CLASSES = ("1", "log n", "n", "n log n", "n^2", "2^n")
# The licences a program may carry (SPDX ids, as the licence column starts): permissive ones,
# and GPL-3.0 (TheAlgorithms/C and TheAlgorithms/JavaScript). The programs are only re-created
# from their repositories and run here, never committed or distributed, so a copyleft licence
# is no bar (SOURCES.md). Shared by the real-crashes set (bench/real_crashes.py).
LICENCES = ("MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "CC0-1.0", "Unlicense",
            "GPL-3.0")
# The source file's extension per judge language: main.py -> .py, Main.java -> .java, ...
EXTENSION = {lang: Path(ex.source_name).suffix for lang, ex in EXECUTORS.items()}
METADATA = frozenset({LABELS, SOURCES, LICENCE_DIR, "ruff.toml", ".gitignore"})
_REPOSITORY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class RealSubmissionsError(ValueError):
    """The set is inconsistent; the message lists every fault found."""


@dataclass(frozen=True)
class Submission:
    """One labelled program (a row of labels.tsv)."""

    file: str  # relative to the set: <problem>/<language>/<name>.<ext>
    problem: str
    language: str
    expected: str  # AC, WA, RE, TLE or CE
    known_class: str
    note: str
    crash: str = ""  # RE only: "<what must be named>@<line>[,<line>]"

    def path(self, root: Path = SET_DIR) -> Path:
        return root / self.file

    def crash_label(self) -> tuple[str, tuple[int, ...]] | None:
        """(what must be named, the right lines) of an RE row; None when there is none or
        it does not parse."""
        return parse_crash(self.crash)


@dataclass(frozen=True)
class Source:
    """Where one program comes from (a row of SOURCES.md's file table)."""

    file: str
    repository: str  # owner/name on GitHub
    commit: str
    path: str  # inside the repository
    licence: str  # SPDX id first, e.g. "MIT (LICENSES/owner__name.txt)"
    author: str
    sha256: str

    @property
    def licence_id(self) -> str:
        return self.licence.split()[0] if self.licence.strip() else ""

    @property
    def licence_file(self) -> str:
        owner, name = self.repository.split("/", 1)
        return f"{LICENCE_DIR}/{owner}__{name}.txt"


def read_labels(root: Path = SET_DIR) -> list[Submission]:
    """The rows of labels.tsv as written (``validate`` checks them)."""
    with (root / LABELS).open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))
    if not rows or tuple(rows[0]) != COLUMNS:
        raise RealSubmissionsError(f"{LABELS}: the header must be {' '.join(COLUMNS)} "
                                   "(tab-separated)")
    out: list[Submission] = []
    for number, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != len(COLUMNS):
            raise RealSubmissionsError(f"{LABELS}:{number}: {len(row)} columns, want "
                                       f"{len(COLUMNS)}")
        out.append(Submission(*(cell.strip() for cell in row)))
    return out


def read_sources(root: Path = SET_DIR) -> list[Source]:
    """The rows of SOURCES.md's table whose header starts ``| file |``."""
    rows: list[Source] = []
    in_table = False
    for number, line in enumerate((root / SOURCES).read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("|"):
            in_table = False
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[:1] == ["file"]:
            in_table = True
            continue
        if not in_table or set("".join(cells)) <= {"-", ":", " "}:
            continue
        if len(cells) != 6 or " @ " not in cells[1]:
            raise RealSubmissionsError(f"{SOURCES}:{number}: want | file | owner/name @ commit "
                                       "| path | licence | author | sha256 |")
        repository, commit = (part.strip() for part in cells[1].split(" @ ", 1))
        rows.append(Source(cells[0], repository, commit, cells[2], cells[3], cells[4],
                           cells[5]))
    return rows


def bank_problem_ids(bank_dir: Path | None = None) -> set[str]:
    problems = (bank_dir or default_bank_dir()) / "problems"
    return {p.parent.name for p in problems.glob("*/problem.yaml")}


def files_on_disk(root: Path = SET_DIR) -> set[str]:
    """The program files present under the set, relative to it (metadata, dot files and
    caches excluded)."""
    found: set[str] = set()
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        hidden = any(part.startswith(".") or part == "__pycache__" for part in rel.parts)
        if path.is_file() and rel.parts[0] not in METADATA and not hidden:
            found.add(rel.as_posix())
    return found


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _duplicates(names: Iterable[str]) -> list[str]:
    return sorted(name for name, count in Counter(names).items() if count > 1)


def validate(root: Path = SET_DIR, bank_dir: Path | None = None,
             check_files: bool = True) -> list[str]:
    """Every fault in the set, as sentences (empty: consistent). ``check_files=False`` skips
    what needs the programs on disk (presence, unlabelled files, sha256)."""
    faults: list[str] = []
    try:
        labels = read_labels(root)
        sources = read_sources(root)
    except (OSError, RealSubmissionsError) as exc:
        return [str(exc)]
    problems = bank_problem_ids(bank_dir)
    faults += [f"{LABELS}: {f} is labelled twice" for f in _duplicates(s.file for s in labels)]
    faults += [f"{SOURCES}: {f} has two rows" for f in _duplicates(s.file for s in sources)]
    for s in labels:
        where = f"{LABELS}: {s.file}"
        parts = s.file.split("/")
        if len(parts) != 3 or parts[:2] != [s.problem, s.language]:
            faults.append(f"{where}: the file must be {s.problem}/{s.language}/<name>")
        if s.problem not in problems:
            faults.append(f"{where}: no bank problem {s.problem!r}")
        if s.language not in LANGUAGES:
            faults.append(f"{where}: language {s.language!r} is not one of {LANGUAGES}")
        elif not s.file.endswith(EXTENSION[s.language]):
            faults.append(f"{where}: a {s.language} file must end {EXTENSION[s.language]}")
        if s.expected not in EXPECTED:
            faults.append(f"{where}: expected {s.expected!r} is not one of {EXPECTED}")
        if s.known_class not in KNOWN_CLASSES:
            faults.append(f"{where}: known_class {s.known_class!r} is not one of "
                          f"{KNOWN_CLASSES}")
        if not s.note:
            faults.append(f"{where}: the note is empty")
        if s.expected == "RE" and s.crash_label() is None:
            faults.append(f"{where}: an RE row needs crash = <named>@<line>[,<line>]")
        if s.expected != "RE" and s.crash:
            faults.append(f"{where}: only an RE row has a crash label")
    labelled = {s.file for s in labels}
    by_file = {s.file: s for s in sources}
    faults += [f"{SOURCES}: no row for {f}" for f in sorted(labelled - set(by_file))]
    faults += [f"{SOURCES}: {f} is not labelled" for f in sorted(set(by_file) - labelled)]
    for src in sources:
        faults += source_faults(src, root, check_files)
    if check_files:
        present = files_on_disk(root)
        faults += [f"{f}: labelled but missing" for f in sorted(labelled - present)]
        faults += [f"{f}: on disk but not labelled" for f in sorted(present - labelled)]
        for src in sources:
            path = root / src.file
            if path.is_file() and _SHA256.match(src.sha256) and sha256_of(path) != src.sha256:
                faults.append(f"{src.file}: sha256 differs from {SOURCES} (edited?)")
    return faults


def source_faults(src: Source, root: Path, check_files: bool) -> list[str]:
    """What is wrong with one SOURCES.md row (this set's, or the real crashes'): where it
    comes from, its licence (and, with ``check_files``, the licence text beside the
    programs), its author and its sha256."""
    where = f"{SOURCES}: {src.file}"
    if not _REPOSITORY.match(src.repository):
        return [f"{where}: repository {src.repository!r} is not owner/name"]
    faults = []
    if not _COMMIT.match(src.commit):
        faults.append(f"{where}: commit {src.commit!r} is not 40 hex digits")
    if not src.path:
        faults.append(f"{where}: no path in the repository")
    if src.licence_id not in LICENCES:
        faults.append(f"{where}: licence {src.licence!r} is not one of {LICENCES}")
    elif check_files and not (root / src.licence_file).is_file():
        # Re-created with the programs (kept out of git with them).
        faults.append(f"{where}: no licence text {src.licence_file}")
    if not src.author:
        faults.append(f"{where}: no author")
    if not _SHA256.match(src.sha256):
        faults.append(f"{where}: sha256 {src.sha256!r} is not 64 hex digits")
    return faults


def load(root: Path = SET_DIR, bank_dir: Path | None = None,
         check_files: bool = True) -> list[Submission]:
    """The labelled programs; RealSubmissionsError lists every fault when the set is not
    consistent (see ``validate``)."""
    faults = validate(root, bank_dir, check_files)
    if faults:
        raise RealSubmissionsError("real submissions set:\n" + "\n".join(faults))
    return read_labels(root)
