"""A session's archive folder, read back: what stays viewable once its Redis keys are gone.

``VIVA_DATA_DIR/sessions/<id>/``::

    archive.json      ArchiveInfo (written last: its presence means the archive is whole)
    events.ndjson     the timeline, one event a line, in seq order
    transcript.vtt    WebVTT, cue times on the saved audio
    report.json       the report (agents.summary.Report)
    report.html       the printable report
    code/             revisions.json + one file per recorded editor state
    audio.jsonl       one RecordingEntry a line (store.recordings)
    audio/            the recordings

Also ``viva export`` (a .tar.gz of that folder) and ``viva import`` (back into the data dir).
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import tarfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from store.recordings import RecordingStore, valid_session_id

ARCHIVE_MARK = "archive.json"
FORMAT_VERSION = 1
MAX_IMPORT_BYTES = 2 << 30  # 2 GiB unpacked: a 45-minute interview is a few MB


class ArchiveInfo(BaseModel):
    format_version: int = FORMAT_VERSION
    session_id: str
    candidate_id: str
    role: str
    mode: str
    status: str
    ended_reason: str | None = None
    token_sha256: str | None  # the session token's hash: the archive keeps who may open it
    archived_at: str
    last_seq: int
    events: int
    recordings: int
    overall_score: float | None = None  # as graded
    reviewed_score: float | None = None  # a reviewer's override, when there is one
    flags: list[str] = []


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class ArchivedSession:
    def __init__(self, folder: Path, info: ArchiveInfo):
        self.folder = folder
        self.info = info

    def token_matches(self, token: str) -> bool:
        stored = self.info.token_sha256
        return stored is not None and hmac.compare_digest(stored, token_digest(token))

    def events(self) -> list[dict[str, Any]]:
        path = self.folder / "events.ndjson"
        if not path.is_file():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def events_ndjson(self) -> str:
        path = self.folder / "events.ndjson"
        return path.read_text() if path.is_file() else ""

    def report(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.folder / "report.json").read_text())
        return data

    def report_html(self) -> str:
        return (self.folder / "report.html").read_text()

    def transcript_vtt(self) -> str:
        return (self.folder / "transcript.vtt").read_text()

    def public_state(self) -> dict[str, Any]:
        """What ``GET /api/sessions/{id}`` says of a live session, rebuilt from the timeline:
        the last ``state`` event, each turn's last graded feedback (an amended answer is graded
        again) and the coding task, if one was set."""
        state: dict[str, Any] = {}
        question_of: dict[str, str] = {}
        scored: dict[str, dict[str, object]] = {}
        problem_id = None
        for e in self.events():
            kind = e.get("type")
            if kind == "state":
                state = e
            elif kind == "question":
                question_of[e["turn_id"]] = e["question_id"]
            elif kind == "coding_task":
                problem_id = e["problem_id"]
            elif kind == "feedback" and e.get("turn_id") and e.get("score") is not None:
                scored[e["turn_id"]] = {"turn_id": e["turn_id"],
                                        "question_id": question_of.get(e["turn_id"]),
                                        "score": e["score"], "feedback_kind": e["kind"]}
        return {"session_id": self.info.session_id, "candidate_id": self.info.candidate_id,
                "role": self.info.role, "mode": self.info.mode,
                "phase": state.get("phase") or "ended",
                "difficulty": state.get("difficulty") or self.report().get("difficulty", ""),
                "current_question": None,
                "questions_asked": state.get("questions_asked") or 0,
                "answered": state.get("answered") or len(scored),
                "max_questions": state.get("max_questions") or 0,
                "scores": list(scored.values()), "coding_problem_id": problem_id}


def load_archive(data_dir: Path, session_id: str) -> ArchivedSession | None:
    """The archived session, or None when there is no whole archive of it."""
    if not valid_session_id(session_id):
        return None
    folder = RecordingStore(data_dir).session_dir(session_id)
    mark = folder / ARCHIVE_MARK
    if not mark.is_file():
        return None
    return ArchivedSession(folder, ArchiveInfo.model_validate_json(mark.read_text()))


def list_archives(data_dir: Path) -> list[ArchiveInfo]:
    root = RecordingStore(data_dir).root
    if not root.is_dir():
        return []
    out = []
    for mark in root.glob(f"*/{ARCHIVE_MARK}"):
        try:
            out.append(ArchiveInfo.model_validate_json(mark.read_text()))
        except ValueError:
            continue  # a damaged archive is skipped, not fatal to the list
    return sorted(out, key=lambda i: i.archived_at)


def export_archive(data_dir: Path, session_id: str, dest: Path) -> Path:
    """Write the archive as ``dest`` (a .tar.gz, or a folder when ``dest`` is a directory
    path not ending in .tar.gz). Returns what was written."""
    archived = load_archive(data_dir, session_id)
    if archived is None:
        raise FileNotFoundError(f"session {session_id} has no archive in {data_dir}")
    if dest.name.endswith((".tar.gz", ".tgz")):
        dest.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(dest, "w:gz") as tar:
            tar.add(archived.folder, arcname=session_id)
        return dest
    import shutil

    target = dest / session_id
    shutil.copytree(archived.folder, target, dirs_exist_ok=True)
    return target


def import_archive(data_dir: Path, source: Path) -> str:
    """Read an exported archive (a .tar.gz or a folder) into ``data_dir``; returns its id.

    Only regular files under one ``<session_id>/`` folder are taken: no links, no absolute or
    ``..`` paths (a crafted archive cannot write outside the data dir)."""
    store = RecordingStore(data_dir)
    if source.is_dir():
        info = ArchiveInfo.model_validate_json((source / ARCHIVE_MARK).read_text())
        import shutil

        shutil.copytree(source, store.session_dir(info.session_id), dirs_exist_ok=True)
        return info.session_id
    with tarfile.open(source, "r:*") as tar:
        members = [m for m in tar.getmembers() if m.isfile()]
        roots = {Path(m.name).parts[0] for m in members if Path(m.name).parts}
        if len(roots) != 1:
            raise ValueError("an archive holds exactly one session folder")
        session_id = roots.pop()
        folder = store.session_dir(session_id)  # validates the id
        if sum(m.size for m in members) > MAX_IMPORT_BYTES:
            raise ValueError("archive too large")
        mark = next((m for m in members if m.name == f"{session_id}/{ARCHIVE_MARK}"), None)
        if mark is None:
            raise ValueError(f"no {ARCHIVE_MARK} in the archive: not a Viva export")
        for member in members:
            rel = Path(member.name)
            if rel.is_absolute() or ".." in rel.parts:
                raise ValueError(f"unsafe path in archive: {member.name}")
            target = folder.joinpath(*rel.parts[1:])
            target.parent.mkdir(parents=True, exist_ok=True)
            extracted = tar.extractfile(member)
            if extracted is None:
                continue
            # The mark is written last, so a half-imported folder never reads as whole.
            if member is not mark:
                target.write_bytes(extracted.read())
        mark_file = tar.extractfile(mark)
        assert mark_file is not None
        data = io.BytesIO(mark_file.read()).getvalue()
        ArchiveInfo.model_validate_json(data)
        (folder / ARCHIVE_MARK).write_bytes(data)
    return session_id
