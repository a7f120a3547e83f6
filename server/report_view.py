"""The report as served: the engine's report with what only the server knows added — where
each answer begins in the recordings, the coding problem's title and the code's revisions —
so the JSON, the HTML page, playback and the reviewer page all give the same moments."""

from __future__ import annotations

from typing import Any

from agents.names import language_name, verdict_name
from agents.summary import Report
from store.recordings import RecordingEntry

SPOKEN_WITHIN_MS = 15_000  # a spoken answer's final follows the end of its recording
TYPED_AFTER_MS = 5_000  # a final this long after the turn's last recording was typed


def _typed(e: dict[str, Any]) -> bool:
    """A typed answer: the recogniser's finals carry a confidence (or are amendments)."""
    return "confidence" not in e and not e.get("amended")


def spoken_clip(e: dict[str, Any], clips: list[RecordingEntry],
                used: set[int] | None = None) -> int | None:
    """Index in ``clips`` (candidate recordings) of the recording a ``transcript_final``
    transcribes: the latest of its turn that ended just before it; None for a typed answer
    (or one with no recording)."""
    t = int(e["t_ms"])
    match = None
    for i, clip in enumerate(clips):
        ends = clip.t_ms + clip.duration_ms
        if (used is None or i not in used) and clip.turn_id == e.get("turn_id") and \
                t - SPOKEN_WITHIN_MS <= ends <= t + 50:
            match = i
    if match is not None and _typed(e) and \
            clips[match].t_ms + clips[match].duration_ms < t - TYPED_AFTER_MS:
        return None
    return match


def answer_starts(events: list[dict[str, Any]], recordings: list[RecordingEntry],
                  ) -> dict[str, int]:
    """turn_id → where its answer begins: the start of the recording of its first final
    (an answer continued after a pause begins there too), or the moment it was typed."""
    clips = [r for r in recordings if r.speaker == "candidate"]
    starts: dict[str, int] = {}
    for e in events:
        if e.get("type") != "transcript_final" or not e.get("turn_id"):
            continue
        turn = str(e["turn_id"])
        if turn in starts:
            continue
        match = spoken_clip(e, clips)
        starts[turn] = clips[match].t_ms if match is not None else int(e["t_ms"])
    return starts


def revision_rows(revisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The code's revisions for people: when, which language, how long, what the tests said."""
    rows = []
    for rev in revisions:
        rows.append({
            "n": rev["n"], "t_ms": rev["t_ms"], "language": language_name(rev.get("language")),
            "lines": len(str(rev.get("code", "")).splitlines()),
            "verdicts": [{"verdict": verdict_name(s.get("verdict")), "code": s.get("verdict"),
                          "passed": s.get("passed"), "total": s.get("total")}
                         for s in rev.get("submissions", [])]})
    return rows


def report_view(report: Report, events: list[dict[str, Any]],
                recordings: list[RecordingEntry], revisions: list[dict[str, Any]],
                ) -> Report:
    """A copy of ``report`` with the answers placed on the recordings and the coding part
    named (problem title, languages, verdicts in words) with its revisions."""
    out = report.model_copy(deep=True)
    starts = answer_starts(events, recordings)
    for q in out.questions:
        for ex in q.exchanges:
            if ex.turn_id in starts:
                ex.answer_t_ms = starts[ex.turn_id]
    if out.coding:
        problem = out.coding.get("problem_id")
        title = next((str(e.get("title")) for e in events
                      if e.get("type") == "coding_task" and e.get("problem_id") == problem
                      and e.get("title")), None)
        out.coding["title"] = title or "the coding problem"
        out.coding["final_verdict_name"] = verdict_name(out.coding.get("final_verdict"))
        out.coding["revisions"] = revision_rows(revisions)
    return out
