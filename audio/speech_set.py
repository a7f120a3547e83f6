"""A folder of real recorded speech clips with their reference transcripts.

The folder holds 16 kHz mono PCM16 WAV files and a ``transcripts.tsv`` with the header
``file	text	source	licence`` and optionally a ``pauses`` column: a comma-separated list of
``at_s:dur_s`` (where in the file an inserted thinking pause starts, and how long it is).
Optional columns (a turn set such as ``tests/data/turns/`` has them): ``speaker`` (a
corpus-qualified id, e.g. ``vctk:p238``), ``end`` (``finished`` or ``cut``: whether the clip ends
at the end of an utterance or mid-sentence), ``fillers`` (filler words in ``text``) and
``pause_kind`` (``natural``, ``inserted`` or empty).
``tests/data/real_speech/`` (made by ``scripts/make_real_speech_set.py``) is such a set, with
``plain/`` and ``paused/`` subfolders.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

TRANSCRIPTS = "transcripts.tsv"
REQUIRED_COLUMNS = ("file", "text", "source", "licence")
REPO_SET = Path(__file__).resolve().parent.parent / "tests" / "data" / "real_speech"
TURN_SET = REPO_SET.parent / "turns"
ENDS = ("finished", "cut")
PAUSE_KINDS = ("", "natural", "inserted")


@dataclass(frozen=True)
class SpeechClip:
    """One recorded clip: its WAV path, what is said in it, and where it came from."""

    path: Path
    text: str
    source: str
    licence: str
    pauses: list[tuple[float, float]] = field(default_factory=list)
    speaker: str = ""
    end: str = ""
    fillers: int = 0
    pause_kind: str = ""

    @property
    def name(self) -> str:
        return self.path.name


def parse_pauses(value: str) -> list[tuple[float, float]]:
    """``"2.31:1.40,5.02:2.10"`` → ``[(2.31, 1.4), (5.02, 2.1)]``; empty → ``[]``."""
    pauses: list[tuple[float, float]] = []
    for item in value.split(","):
        item = item.strip()
        if not item:
            continue
        at_s, sep, dur_s = item.partition(":")
        if not sep:
            raise ValueError(f"a pause must be at_s:dur_s, got {item!r}")
        start, length = float(at_s), float(dur_s)
        if start < 0 or length <= 0:
            raise ValueError(f"a pause needs at_s >= 0 and dur_s > 0, got {item!r}")
        pauses.append((start, length))
    return pauses


def format_pauses(pauses: list[tuple[float, float]]) -> str:
    return ",".join(f"{start:.3f}:{length:.3f}" for start, length in pauses)


def load_speech_set(directory: str | Path) -> list[SpeechClip]:
    """The clips listed in ``directory/transcripts.tsv``, in file order."""
    folder = Path(directory)
    table = folder / TRANSCRIPTS
    with table.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{table}: missing columns {', '.join(missing)}")
        clips = []
        for row in reader:
            clips.append(SpeechClip(
                path=folder / row["file"],
                text=row["text"].strip(),
                source=row["source"].strip(),
                licence=row["licence"].strip(),
                pauses=parse_pauses(row.get("pauses") or ""),
                speaker=(row.get("speaker") or "").strip(),
                end=_choice(row.get("end"), ("",) + ENDS, table, "end"),
                fillers=int((row.get("fillers") or "0").strip() or 0),
                pause_kind=_choice(row.get("pause_kind"), PAUSE_KINDS, table, "pause_kind"),
            ))
    return clips


def _choice(value: str | None, allowed: tuple[str, ...], table: Path, column: str) -> str:
    text = (value or "").strip()
    if text not in allowed:
        raise ValueError(f"{table}: {column} must be one of {allowed}, got {text!r}")
    return text
