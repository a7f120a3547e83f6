"""The event stream as exports: NDJSON timeline, WebVTT transcript, HTML report."""

from __future__ import annotations

import html
import json
from collections.abc import AsyncIterator
from typing import Any

from server.report_html import render_report_html
from server.report_view import _typed, spoken_clip
from store.events import EventLog
from store.recordings import RecordingEntry


async def events_ndjson(log: EventLog, session_id: str, after_seq: int = 0,
                        page: int = 500) -> AsyncIterator[str]:
    cursor = after_seq
    while True:
        batch = await log.range(session_id, cursor, count=page)
        if not batch:
            return
        for event in batch:
            yield json.dumps(event, separators=(",", ":")) + "\n"
        cursor = batch[-1]["seq"]


def _ts(ms: int) -> str:
    h, rem = divmod(max(0, ms), 3_600_000)
    m, rem = divmod(rem, 60_000)
    s, ms_ = divmod(rem, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{ms_:03d}"


def _cue_text(text: str) -> str:
    # WebVTT forbids "-->" in cue text and a blank line ends a cue.
    return " ".join(text.replace("-->", "→").split())


# A cue as exported: start, end, voice, text, and marks ("superseded": taken back when the
# answer went on after a pause; "cut": the candidate spoke over it, the rest was not heard).
Cue = tuple[int, int, str, str, tuple[str, ...]]
SAME_UTTERANCE_MS = 50  # interviewer events this close were said as one utterance


def superseded_spans(events: list[dict[str, Any]]) -> tuple[set[int], list[tuple[int, int]]]:
    """Seqs an amended answer took back, and the spans of time their reply was being said
    (from the first taken-back event to the amendment)."""
    at = {e["seq"]: int(e["t_ms"]) for e in events if "seq" in e}
    seqs: set[int] = set()
    spans = []
    for e in events:
        if e.get("type") != "answer_amended":
            continue
        taken = [int(q) for q in e.get("supersedes", []) if q in at]
        seqs.update(taken)
        if taken:
            spans.append((min(at[q] for q in taken) - SAME_UTTERANCE_MS, int(e["t_ms"])))
    return seqs, spans


def _text_cue_end(start: int, text: str, next_start: int | None) -> int:
    default_end = start + max(1500, 360 * len(text.split()))
    end = default_end if next_start is None else min(default_end, next_start)
    return max(start + 500, end)


def _event_cues(events: list[dict[str, Any]], kinds: tuple[str, ...]) -> list[Cue]:
    """Cues timed on the events alone (nothing was recorded): the interviewer's events said
    together (feedback and the next question) are one utterance, one cue."""
    superseded, _ = superseded_spans(events)
    said = [e for e in events if e.get("type") in kinds and str(e.get("text", "")).strip()]
    merged: list[tuple[int, str, str, tuple[str, ...]]] = []
    for e in said:
        voice = "Candidate" if e["type"] == "transcript_final" else "Interviewer"
        marks: tuple[str, ...] = ("superseded",) if e.get("seq") in superseded else ()
        text = str(e["text"]).strip()
        if merged and voice == "Interviewer" and merged[-1][2] == voice and \
                merged[-1][3] == marks and int(e["t_ms"]) - merged[-1][0] <= SAME_UTTERANCE_MS:
            merged[-1] = (merged[-1][0], f"{merged[-1][1]} {text}", voice, marks)
            continue
        merged.append((int(e["t_ms"]), text, voice, marks))
    cues: list[Cue] = []
    for i, (start, text, voice, marks) in enumerate(merged):
        nxt = merged[i + 1][0] if i + 1 < len(merged) else None
        cues.append((start, _text_cue_end(start, text, nxt), voice, text, marks))
    return cues


def _audio_cues(events: list[dict[str, Any]], recordings: list[RecordingEntry]) -> list[Cue]:
    """Cues on the saved audio: each interviewer utterance (one recording) as one cue where
    it sounds, each spoken answer over the recording of its turn, each typed answer at the
    moment it was sent."""
    _, spans = superseded_spans(events)
    cues: list[Cue] = []
    for r in recordings:
        if r.speaker != "interviewer":
            continue
        heard = [seg for seg in r.segments if seg.start_ms < r.duration_ms] or r.segments
        if not heard:
            continue
        begin = r.t_ms + heard[0].start_ms
        end = r.t_ms + min(max(seg.end_ms for seg in heard), max(r.duration_ms, 1))
        marks = tuple(m for m, on in (
            ("cut", r.cut), ("superseded", any(a <= r.t_ms <= b for a, b in spans))) if on)
        cues.append((begin, max(end, begin + 1), "Interviewer",
                     " ".join(seg.text.strip() for seg in heard), marks))
    clips = [r for r in recordings if r.speaker == "candidate"]
    used: set[int] = set()
    by_turn: dict[str, int] = {}  # turn_id -> index of its cue (an amended answer extends it)
    typed: list[dict[str, Any]] = []
    for e in events:
        if e.get("type") != "transcript_final" or not str(e.get("text", "")).strip():
            continue
        match = spoken_clip(e, clips, used)
        if match is None:
            if _typed(e):
                typed.append(e)  # no recording of its own: it was typed
            continue
        used.add(match)
        clip = clips[match]
        start, end = clip.t_ms, clip.t_ms + clip.duration_ms
        earlier = by_turn.get(str(e["turn_id"])) if e.get("amended") else None
        if earlier is not None:
            start = cues[earlier][0]
            cues[earlier] = (start, end, "Candidate", str(e["text"]), ())
            continue
        by_turn[str(e["turn_id"])] = len(cues)
        cues.append((start, end, "Candidate", str(e["text"]), ()))
    if not any(r.speaker == "interviewer" for r in recordings):
        cues += _event_cues(events, ("question", "feedback"))
    starts = sorted(c[0] for c in cues)
    for e in typed:  # typed while the interview was spoken: where it was sent
        t = int(e["t_ms"])
        nxt = next((s for s in starts if s > t), None)
        cues.append((t, _text_cue_end(t, str(e["text"]), nxt), "Candidate", str(e["text"]),
                     ("typed",)))
    return sorted(cues)


MARK_WORDS = {"superseded": "[answer continued]", "cut": "[cut off]"}


def webvtt(events: list[dict[str, Any]],
           recordings: list[RecordingEntry] | None = None) -> str:
    """Interviewer and candidate speech as voice-tagged cues: on the recorded audio when there
    is some (a voice interview), else at the events' times. A taken-back or cut utterance
    keeps its words inside a ``<c.superseded>`` / ``<c.cut>`` class span, followed by
    "[answer continued]" / "[cut off]" for a plain reader."""
    cues = (_audio_cues(events, recordings) if recordings
            else _event_cues(events, ("question", "feedback", "transcript_final")))
    lines = ["WEBVTT", ""]
    for i, (start, end, voice, text, marks) in enumerate(cues):
        body = html.escape(_cue_text(text), quote=False)
        for mark in marks:
            words = f" {MARK_WORDS[mark]}" if mark in MARK_WORDS else ""
            body = f"<c.{mark}>{body}</c>{words}"
        lines += [str(i + 1), f"{_ts(start)} --> {_ts(end)}", f"<v {voice}>{body}", ""]
    return "\n".join(lines)


def code_revisions(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every distinct state of the code in order (the editor's ``code_change`` states, and
    submitted code the editor did not record), each with the submissions judged on it."""
    out: list[dict[str, Any]] = []

    def add(e: dict[str, Any], code: str, source: str) -> dict[str, Any]:
        rev = {"n": len(out) + 1, "seq": e["seq"], "t_ms": e["t_ms"],
               "problem_id": e.get("problem_id"), "language": e.get("language"),
               "code": code, "source": source, "submissions": []}
        out.append(rev)
        return rev

    for e in events:
        code = e.get("code")
        if not isinstance(code, str):
            continue
        if e.get("type") == "code_change":
            if not out or out[-1]["code"] != code or out[-1]["language"] != e.get("language"):
                add(e, code, "editor")
        elif e.get("type") == "judge_result":
            same = [r for r in out if r["code"] == code and r["language"] == e.get("language")]
            rev = same[-1] if same else add(e, code, "submitted")
            rev["submissions"].append({
                "submission_id": e.get("submission_id"), "seq": e["seq"], "t_ms": e["t_ms"],
                "verdict": e.get("verdict"), "passed": e.get("passed"),
                "total": e.get("total"), "revision": e.get("revision")})
    return out


__all__ = ["code_revisions", "events_ndjson", "render_report_html", "webvtt"]
