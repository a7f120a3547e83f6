"""``viva import``: an exported archive (a .tar.gz or a folder) read into the data dir.

An archive carries the hash of the token that opens its session, so an import is a claim on
a session id. Everything is checked before a byte is written:

- exactly one ``<session_id>/`` folder, and its ``archive.json`` names that same id;
- only regular files: no links, devices, absolute or ``..`` paths (a directory is walked
  without following links; a link is refused by name, so nothing outside it is copied);
- at most ``MAX_IMPORT_BYTES`` unpacked, counted before reading;
- a session that is live in Redis or already archived here is never overwritten unless
  ``replace``; even then the stored token hash stays (a forged archive cannot bring its
  own token to someone else's session).

The files are written to a staging folder beside the target (the mark last) and swapped in.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import shutil
import stat
import tarfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from pydantic import ValidationError

from server.archived_session import ARCHIVE_MARK, ArchiveInfo, load_archive
from store.recordings import RecordingStore, valid_session_id

MAX_IMPORT_BYTES = 2 << 30  # 2 GiB unpacked: a 45-minute interview is a few MB


class ImportRefused(ValueError):
    """The archive was not imported; nothing was written. The message says why and what to do."""


@dataclass(frozen=True)
class LiveSession:
    """A session Redis still has: its token's hash (None when it has no token)."""
    token_sha256: str | None


LiveLookup = Callable[[str], "LiveSession | None"]


@dataclass(frozen=True)
class _Member:
    rel: PurePosixPath  # inside the session folder
    size: int
    open: Callable[[], IO[bytes]]


def _safe_rel(name: str) -> PurePosixPath:
    rel = PurePosixPath(name)
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        raise ImportRefused(f"unsafe path in archive: {name!r}")
    return rel


def _tar_members(tar: tarfile.TarFile) -> tuple[str, list[_Member]]:
    members: list[_Member] = []
    roots: set[str] = set()
    for m in tar.getmembers():
        rel = _safe_rel(m.name)
        roots.add(rel.parts[0])
        if m.isdir():
            continue
        if not m.isfile():
            kind = "link" if m.issym() or m.islnk() else "special file"
            raise ImportRefused(f"{m.name!r} is a {kind}: an archive holds regular files "
                                "only (re-export it with `viva export`)")
        if len(rel.parts) < 2:
            raise ImportRefused(f"{m.name!r} is outside the session folder")

        def opener(m: tarfile.TarInfo = m) -> IO[bytes]:
            handle = tar.extractfile(m)
            assert handle is not None  # a regular file
            return handle

        members.append(_Member(PurePosixPath(*rel.parts[1:]), m.size, opener))
    if len(roots) != 1:
        raise ImportRefused(f"an archive holds exactly one session folder, found "
                            f"{sorted(roots) or 'none'}")
    return roots.pop(), members


def _open_nofollow(path: Path) -> IO[bytes]:
    # a file swapped for a link after the walk is still not followed
    return os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb")


def _dir_members(source: Path) -> list[_Member]:
    """Every regular file under ``source``, walked without following links; a link (to a
    file or a folder) or a special file refuses the whole import, by name."""
    members: list[_Member] = []
    for top, dirs, files in os.walk(source, followlinks=False):
        for name in sorted(dirs + files):
            path = Path(top) / name
            info = path.lstat()
            rel = PurePosixPath(path.relative_to(source).as_posix())
            if stat.S_ISLNK(info.st_mode):
                raise ImportRefused(f"{rel} is a symbolic link (to {os.readlink(path)!r}): "
                                    "an archive folder holds regular files only")
            if stat.S_ISDIR(info.st_mode):
                continue
            if not stat.S_ISREG(info.st_mode):
                raise ImportRefused(f"{rel} is not a regular file")
            members.append(_Member(rel, info.st_size, functools.partial(_open_nofollow, path)))
    return members


def _info(session_id: str, members: list[_Member]) -> ArchiveInfo:
    mark = next((m for m in members if m.rel == PurePosixPath(ARCHIVE_MARK)), None)
    if mark is None:
        raise ImportRefused(f"no {ARCHIVE_MARK} in {session_id}/: not a Viva export")
    with mark.open() as handle:
        data = handle.read(1 << 20)
    try:
        info = ArchiveInfo.model_validate_json(data)
    except ValidationError as exc:
        raise ImportRefused(f"{session_id}/{ARCHIVE_MARK} is not a valid archive "
                            f"record: {exc.errors()[0]['msg']}") from exc
    if info.session_id != session_id:
        raise ImportRefused(f"{ARCHIVE_MARK} names session {info.session_id!r} but its "
                            f"folder is {session_id!r}: a forged or damaged archive")
    return info


def _existing_token(data_dir: Path, session_id: str, replace: bool,
                    live: LiveLookup | None) -> tuple[bool, str | None]:
    """Whether the session already exists here (live or archived), and its token hash."""
    running = live(session_id) if live is not None else None
    archived = load_archive(data_dir, session_id)
    exists = running is not None or archived is not None \
        or RecordingStore(data_dir).session_dir(session_id).exists()
    if exists and not replace:
        where = "live in Redis" if running is not None else f"in {data_dir}"
        raise ImportRefused(f"session {session_id} is already {where}; nothing was imported "
                            "(pass --replace to overwrite it: its token stays the same)")
    if running is not None:
        return exists, running.token_sha256
    return exists, archived.info.token_sha256 if archived is not None else None


def _stage(folder: Path, info: ArchiveInfo, members: list[_Member]) -> None:
    folder.mkdir(parents=True)
    for member in members:
        if member.rel == PurePosixPath(ARCHIVE_MARK):
            continue
        target = folder.joinpath(*member.rel.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        with member.open() as src, target.open("wb") as dst:
            left = member.size  # what was counted against the cap, no more
            while left > 0 and (chunk := src.read(min(left, 1 << 20))):
                dst.write(chunk)
                left -= len(chunk)
    # The mark is written last, so a half-imported folder never reads as whole.
    (folder / ARCHIVE_MARK).write_text(info.model_dump_json(indent=2))


def _swap_in(staged: Path, target: Path) -> None:
    old = None
    if target.exists():
        old = target.with_name(f".replaced-{target.name}-{secrets.token_hex(4)}")
        os.replace(target, old)
    os.replace(staged, target)
    if old is not None:
        shutil.rmtree(old)


@contextlib.contextmanager
def _opened(source: Path) -> Iterator[tuple[str, list[_Member]]]:
    """The archive's folder name and files, readable while the context lasts."""
    if source.is_symlink() and source.is_dir():
        raise ImportRefused(f"{source} is a symbolic link: name the folder itself")
    if source.is_dir():
        yield source.name, _dir_members(source)
        return
    try:
        tar = tarfile.open(source, "r:*")
    except tarfile.TarError as exc:
        raise ImportRefused(f"{source} is neither a folder nor a .tar.gz export: {exc}") from exc
    with tar:
        yield _tar_members(tar)


def import_archive(data_dir: Path, source: Path, *, replace: bool = False,
                   live: LiveLookup | None = None) -> str:
    """Read an exported archive into ``data_dir``; returns its session id. ``live`` says
    whether Redis has the session (``viva import`` asks Redis; None: not asked)."""
    with _opened(source) as (session_id, members):
        if not valid_session_id(session_id):
            raise ImportRefused(f"{session_id!r} is not a session id (the archive's folder "
                                "must be named by its session id)")
        total = sum(m.size for m in members)
        if total > MAX_IMPORT_BYTES:
            raise ImportRefused(f"archive too large: {total} bytes unpacked, at most "
                                f"{MAX_IMPORT_BYTES}")
        info = _info(session_id, members)
        existed, token_sha256 = _existing_token(data_dir, session_id, replace, live)
        if existed:  # --replace: the session keeps the token it had
            info = info.model_copy(update={"token_sha256": token_sha256})
        store = RecordingStore(data_dir)
        target = store.session_dir(session_id)
        staged = store.root / f".import-{session_id}-{secrets.token_hex(4)}"
        try:
            _stage(staged, info, members)
            _swap_in(staged, target)
        finally:
            if staged.exists():
                shutil.rmtree(staged)
    return session_id
