"""Reading files at a pinned commit from bare git mirrors, laid out ``ROOT/<owner>+<name>/repo``
as the fetch tool makes them (or ``ROOT/<owner>+<name>`` when that folder is the bare
repository, or ``ROOT/<owner>+<name>.git``): what the data-set and training scripts read their
sources from. ``show``, ``ls`` and ``head`` take a bare repository itself (a script given its
path); ``git_show`` and ``git_ls`` find it under a mirrors root first."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git_dir(mirrors: Path, repo: str) -> Path:
    """The bare repository of ``repo`` ("owner/name" or "owner+name") under ``mirrors``."""
    folder = mirrors / repo.replace("/", "+")
    for candidate in (folder / "repo", folder, folder.with_name(folder.name + ".git")):
        if (candidate / "HEAD").is_file():
            return candidate
    raise SystemExit(f"no git mirror of {repo.replace('+', '/')} under {mirrors} "
                     f"(expected {folder / 'repo'})")


def _git(git: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={git}", *args], check=True,
                          capture_output=True).stdout


def show(git: Path, rev: str, path: str) -> bytes:
    """The bytes of ``path`` at ``rev`` in the bare repository ``git``."""
    return _git(git, "show", f"{rev}:{path}")


def ls(git: Path, rev: str, under: str = "") -> list[str]:
    """The files (under ``under``, if given) at ``rev``, sorted."""
    return sorted(_git(git, "ls-tree", "-r", "--name-only", rev,
                       *([under] if under else [])).decode().split())


def head(git: Path) -> str:
    """The commit the mirror's HEAD names (what a script that reads HEAD records)."""
    return _git(git, "rev-parse", "HEAD").decode().strip()


def git_show(mirrors: Path, repo: str, commit: str, path: str) -> bytes:
    """The bytes of ``path`` at ``commit``."""
    return show(git_dir(mirrors, repo), commit, path)


def git_ls(mirrors: Path, repo: str, commit: str, under: str) -> list[str]:
    """The files under ``under`` at ``commit``, sorted."""
    return ls(git_dir(mirrors, repo), commit, under)
