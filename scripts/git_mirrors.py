"""Reading files at a pinned commit from bare git mirrors, laid out ``ROOT/<owner>+<name>/repo``
as the fetch tool makes them (or ``ROOT/<owner>+<name>`` when that folder is the bare
repository): what the data-set scripts re-create their files from."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git_dir(mirrors: Path, repo: str) -> Path:
    """The bare repository of ``repo`` ("owner/name") under ``mirrors``."""
    folder = mirrors / repo.replace("/", "+")
    for candidate in (folder / "repo", folder):
        if (candidate / "HEAD").is_file():
            return candidate
    raise SystemExit(f"no git mirror of {repo} under {mirrors} (expected {folder / 'repo'})")


def git_show(mirrors: Path, repo: str, commit: str, path: str) -> bytes:
    """The bytes of ``path`` at ``commit``."""
    return subprocess.run(["git", f"--git-dir={git_dir(mirrors, repo)}", "show",
                           f"{commit}:{path}"], check=True, capture_output=True).stdout


def git_ls(mirrors: Path, repo: str, commit: str, under: str) -> list[str]:
    """The files under ``under`` at ``commit``, sorted."""
    out = subprocess.run(["git", f"--git-dir={git_dir(mirrors, repo)}", "ls-tree", "-r",
                          "--name-only", commit, under],
                         check=True, capture_output=True, text=True).stdout
    return sorted(out.split())
