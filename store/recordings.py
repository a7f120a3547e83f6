"""Recorded audio on disk: one folder per session under ``VIVA_DATA_DIR/sessions``.

Layout of ``sessions/<id>/``: ``audio/<file>`` (one Ogg/Opus or WAV file per candidate turn or
interviewer utterance) and ``audio.jsonl``, one :class:`RecordingEntry` a line, appended as
each file is complete. The archive (``server.archive``) later adds the timeline, transcript,
report and code to the same folder. Lines are appended whole (one ``write`` on an O_APPEND
file), so a second writer (a reconnect served by another process) never interleaves them.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
FILE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
MANIFEST = "audio.jsonl"


class Segment(BaseModel):
    """A sentence of an interviewer utterance, in ms from the start of its file."""

    text: str
    start_ms: int
    end_ms: int


class RecordingEntry(BaseModel):
    turn_id: str
    speaker: Literal["candidate", "interviewer"]
    t_ms: int  # offset of the file's first sample on the session clock (the events' t_ms)
    duration_ms: int
    file: str
    content_type: str
    sample_rate: int
    # Candidate turns: speech_start / voiced_end / turn_end on the session clock.
    marks: dict[str, int] = Field(default_factory=dict)
    segments: list[Segment] = Field(default_factory=list)
    cut: bool = False  # the interviewer was interrupted (barge-in): the rest was not heard


def valid_session_id(session_id: str) -> bool:
    return bool(SESSION_ID.match(session_id))


class RecordingStore:
    """Files of recorded audio. Blocking I/O: call from a worker thread, not the event loop."""

    def __init__(self, data_dir: Path):
        self.root = data_dir / "sessions"

    def session_dir(self, session_id: str) -> Path:
        if not valid_session_id(session_id):
            raise ValueError(f"not a session id: {session_id!r}")
        return self.root / session_id

    def save(self, session_id: str, entry: RecordingEntry, data: bytes) -> RecordingEntry:
        """Write the file (atomically: a reader never sees half of it), then its manifest line."""
        if not FILE_NAME.match(entry.file):
            raise ValueError(f"not a recording file name: {entry.file!r}")
        folder = self.session_dir(session_id) / "audio"
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{entry.file}.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, folder / entry.file)
        line = (entry.model_dump_json() + "\n").encode()
        fd = os.open(self.session_dir(session_id) / MANIFEST,
                     os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
        return entry

    def entries(self, session_id: str) -> list[RecordingEntry]:
        """Every recording of the session in time order (empty if none)."""
        path = self.session_dir(session_id) / MANIFEST
        if not path.is_file():
            return []
        out: list[RecordingEntry] = []
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            entry = RecordingEntry.model_validate_json(line)
            if (self.session_dir(session_id) / "audio" / entry.file).is_file():
                out.append(entry)  # a file the retention pass deleted is not listed
        return sorted(out, key=lambda e: (e.t_ms, e.speaker))

    def file_path(self, session_id: str, name: str) -> Path | None:
        if not FILE_NAME.match(name) or name.startswith("."):
            return None
        path = self.session_dir(session_id) / "audio" / name
        # a link (an archive imported before imports refused them) is never followed
        return path if path.is_file() and not path.is_symlink() else None

    def prune(self, retention_days: float, now: float | None = None) -> int:
        """Delete audio folders older than ``retention_days`` (0 keeps everything).

        Only the audio goes: the timeline, transcript and report of an archived session stay.
        Returns how many sessions lost their audio."""
        if retention_days <= 0 or not self.root.is_dir():
            return 0
        cutoff = (now if now is not None else time.time()) - retention_days * 86400
        pruned = 0
        for folder in self.root.iterdir():
            audio = folder / "audio"
            if audio.is_dir() and audio.stat().st_mtime < cutoff:
                shutil.rmtree(audio, ignore_errors=True)
                pruned += 1
        return pruned
