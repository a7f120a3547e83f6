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

Also ``viva export`` (a .tar.gz of that folder) and ``viva import`` (back into the data dir,
``server.archive_import``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import tarfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from store.recordings import RecordingStore, valid_session_id

ARCHIVE_MARK = "archive.json"
FORMAT_VERSION = 1


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


# Served with every report page: an archive is a file someone may have imported, so its HTML
# runs no script, loads nothing and cannot be framed, and no response is content-sniffed.
REPORT_PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
                               "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
}


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def stored_token_digest(meta: Mapping[str, str]) -> str | None:
    """The token hash of a live session, from its Redis meta hash (None: it has no token)."""
    if meta.get("token_sha256"):
        return meta["token_sha256"]
    token = meta.get("token")
    return token_digest(token) if token else None


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
