"""What the data-set scripts share (``make_real_crashes.py``, ``make_real_submissions.py``):
a repository at a pinned commit with its licence (``Repo``), a file made from the repository's
bytes by one-line edits (``Edit``) and an appended driver, the licence texts written beside the
programs, and the sha256 check of every re-created file against the set's SOURCES.md.

The files are read from bare git mirrors laid out ``ROOT/<owner>+<name>/repo``
(``git_mirrors.py``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from git_mirrors import git_show as mirror_show

LICENCE_DIR = "LICENSES"


@dataclass(frozen=True)
class Repo:
    name: str  # owner/name on GitHub
    commit: str  # of the licence text, and of each program that names no commit of its own
    licence: str  # SPDX id
    licence_path: str  # the licence text inside the repository
    author: str  # for a program whose author the repository does not name

    @property
    def licence_file(self) -> str:
        owner, name = self.name.split("/", 1)
        return f"{LICENCE_DIR}/{owner}__{name}.txt"


@dataclass(frozen=True)
class Edit:
    """One line of the original replaced by one line (so every line keeps its number)."""

    line: int  # 1-based
    old: str  # the line as the repository has it (checked)
    new: str


def go_main(*packages: str) -> str:
    """A Go library file's ``package`` line made a program's: ``package main`` with the
    imports its driver needs, on the same line (Go allows an import declaration there, before
    the file's own imports): 'package main; import "fmt"', or with several packages
    'package main; import ("bufio"; "fmt"; "os")'."""
    names = "; ".join(f'"{p}"' for p in packages)
    return f"package main; import {names if len(packages) == 1 else f'({names})'}"


def git_show(mirrors: Path, repo: Repo, path: str, commit: str = "") -> bytes:
    """The bytes of ``path`` at ``commit`` (the repository's own commit when none)."""
    return mirror_show(mirrors, repo.name, commit or repo.commit, path)


def apply_edits(code: bytes, edits: Iterable[Edit], where: str) -> bytes:
    """``code`` with each edit's line replaced (the old line is checked first; ``where``
    names the file in the error)."""
    edits = tuple(edits)
    if not edits:
        return code
    lines = code.split(b"\n")
    for edit in edits:
        if lines[edit.line - 1].decode() != edit.old:
            raise SystemExit(f"{where}:{edit.line} is not {edit.old!r}")
        lines[edit.line - 1] = edit.new.encode()
    return b"\n".join(lines)


def made_program(code: bytes, edits: Iterable[Edit], driver: str, where: str) -> bytes:
    """The program as a set holds it: the repository's bytes with its edits (a line for a
    line), then the driver, if any, appended after them."""
    return apply_edits(code, edits, where) + driver.encode()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_licences(mirrors: Path, out: Path, repos: Iterable[Repo]) -> None:
    """Each repository's licence text, as ``out/LICENSES/<owner>__<name>.txt``."""
    for repo in repos:
        target = out / repo.licence_file
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(git_show(mirrors, repo, repo.licence_path))


def write_program(out: Path, file: str, code: bytes) -> None:
    (out / file).parent.mkdir(parents=True, exist_ok=True)
    (out / file).write_bytes(code)


def digest_faults(made: Mapping[str, bytes], expected: Mapping[str, str],
                  script: str) -> list[str]:
    """Every re-created file whose sha256 is not SOURCES.md's (``expected``: file -> sha256),
    every file without a row and every row that ``script`` does not make."""
    faults = []
    for file, code in made.items():
        if file not in expected:
            faults.append(f"{file}: no row in SOURCES.md")
        elif sha256(code) != expected[file]:
            faults.append(f"{file}: sha256 {sha256(code)} differs from SOURCES.md's "
                          f"{expected[file]}")
    faults += [f"SOURCES.md: {f} is not made by {script}"
               for f in sorted(set(expected) - set(made))]
    return faults
