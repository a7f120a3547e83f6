"""``scripts/git_mirrors.py``: how every data-set and training script reads a pinned file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from git_mirrors import git_dir, git_ls, git_show, head, ls, show  # noqa: E402


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture
def mirrors(tmp_path: Path) -> tuple[Path, str, str]:
    """A mirrors root holding owner/name as the fetch tool lays it out, with two commits."""
    work = tmp_path / "work"
    (work / "data").mkdir(parents=True)
    _git("init", "-q", cwd=work)
    (work / "data" / "a.txt").write_text("first\n")
    _git("add", ".", cwd=work)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one", cwd=work)
    first = _git("rev-parse", "HEAD", cwd=work)
    (work / "data" / "a.txt").write_text("second\n")
    (work / "top.txt").write_text("top\n")
    _git("add", ".", cwd=work)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "two", cwd=work)
    root = tmp_path / "mirrors"
    _git("clone", "-q", "--bare", str(work), str(root / "owner+name" / "repo"), cwd=tmp_path)
    return root, first, _git("rev-parse", "HEAD", cwd=work)


def test_a_file_is_read_at_the_commit_asked_for(mirrors: tuple[Path, str, str]) -> None:
    root, first, last = mirrors
    assert git_show(root, "owner/name", first, "data/a.txt") == b"first\n"
    assert git_show(root, "owner/name", last, "data/a.txt") == b"second\n"
    bare = git_dir(root, "owner+name")  # both spellings find the same mirror
    assert bare == git_dir(root, "owner/name")
    assert show(bare, "HEAD", "data/a.txt") == b"second\n"
    assert head(bare) == last


def test_listing_is_sorted_and_can_be_limited_to_a_folder(
        mirrors: tuple[Path, str, str]) -> None:
    root, first, last = mirrors
    bare = git_dir(root, "owner/name")
    assert ls(bare, "HEAD") == ["data/a.txt", "top.txt"]
    assert git_ls(root, "owner/name", first, "data") == ["data/a.txt"]
    assert ls(bare, first) == ["data/a.txt"]


def test_a_missing_mirror_says_where_it_was_looked_for(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no git mirror of owner/name"):
        git_dir(tmp_path, "owner+name")
