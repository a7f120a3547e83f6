"""The event stream as exports: NDJSON timeline, WebVTT transcript, HTML report."""

from __future__ import annotations

import html
import json
from collections.abc import AsyncIterator
from typing import Any

from agents.summary import Note, Report, clock
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


SENTENCE_ENDS = (".", "!", "?", ":", ";", "…", "\"", "”")


def _event_cues(events: list[dict[str, Any]], kinds: tuple[str, ...]
                ) -> list[tuple[int, int, str, str]]:
    """Cues timed on the events alone (a text interview: nothing was spoken)."""
    spoken = [e for e in events if e.get("type") in kinds and str(e.get("text", "")).strip()]
    cues = []
    for i, e in enumerate(spoken):
        start = int(e["t_ms"])
        default_end = start + max(1500, 60 * len(str(e["text"]).split()) * 6)
        nxt = spoken[i + 1]["t_ms"] if i + 1 < len(spoken) else default_end
        end = max(start + 500, min(default_end, int(nxt)))
        voice = "Candidate" if e["type"] == "transcript_final" else "Interviewer"
        cues.append((start, end, voice, str(e["text"])))
    return cues


def _audio_cues(events: list[dict[str, Any]], recordings: list[RecordingEntry]
                ) -> list[tuple[int, int, str, str]]:
    """Cues on the saved audio: each interviewer sentence where it sits in its file, each
    candidate answer over the recording of its turn."""
    cues: list[tuple[int, int, str, str]] = []
    for r in recordings:
        if r.speaker != "interviewer":
            continue
        for s in r.segments:
            begin, end = r.t_ms + s.start_ms, r.t_ms + s.end_ms
            # Speech is synthesized in short pieces (the first one early); a cue is a
            # sentence, so a piece that ends mid-sentence is joined to the next.
            if cues and cues[-1][2] == "Interviewer" and cues[-1][1] == begin and \
                    not cues[-1][3].rstrip().endswith(SENTENCE_ENDS):
                begin = cues[-1][0]
                cues[-1] = (begin, end, "Interviewer", f"{cues[-1][3]} {s.text}")
                continue
            cues.append((begin, end, "Interviewer", s.text))
    clips = [r for r in recordings if r.speaker == "candidate"]
    used: set[int] = set()
    by_turn: dict[str, int] = {}  # turn_id -> index of its cue (an amended answer extends it)
    for e in events:
        if e.get("type") != "transcript_final" or not str(e.get("text", "")).strip():
            continue
        # The clip of this answer: the latest of its turn that ended before the final.
        match = None
        for i, clip in enumerate(clips):
            if i not in used and clip.turn_id == e.get("turn_id") and \
                    clip.t_ms + clip.duration_ms <= int(e["t_ms"]) + 50:
                match = i
        if match is None:
            continue
        used.add(match)
        clip = clips[match]
        start, end = clip.t_ms, clip.t_ms + clip.duration_ms
        earlier = by_turn.get(str(e["turn_id"])) if e.get("amended") else None
        if earlier is not None:
            start = cues[earlier][0]
            cues[earlier] = (start, end, "Candidate", str(e["text"]))
            continue
        by_turn[str(e["turn_id"])] = len(cues)
        cues.append((start, end, "Candidate", str(e["text"])))
    if not any(r.speaker == "interviewer" for r in recordings):
        cues += _event_cues(events, ("question", "feedback"))
    return sorted(cues)


def webvtt(events: list[dict[str, Any]],
           recordings: list[RecordingEntry] | None = None) -> str:
    """Interviewer and candidate speech as voice-tagged cues: on the recorded audio when there
    is some (a voice interview), else at the events' times."""
    cues = (_audio_cues(events, recordings) if recordings
            else _event_cues(events, ("question", "feedback", "transcript_final")))
    lines = ["WEBVTT", ""]
    for i, (start, end, voice, text) in enumerate(cues):
        lines += [str(i + 1), f"{_ts(start)} --> {_ts(end)}",
                  f"<v {voice}>{html.escape(_cue_text(text), quote=False)}", ""]
    return "\n".join(lines)


def _moment(session_id: str, t_ms: int | None, turn_id: str | None = None) -> str:
    """The playback page at that moment (it asks for the token if the browser has none);
    with the turn, playback starts at the beginning of the answer stamped at ``t_ms``."""
    turn = f"&amp;turn={html.escape(turn_id)}" if turn_id else ""
    return f"/playback/{html.escape(session_id)}?t={max(0, int(t_ms or 0))}{turn}"


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


def _notes_html(notes: list[Note], empty: str, session_id: str) -> str:
    """Each strength or weak point as a sentence, with the quote it rests on and its time."""
    esc = html.escape
    if not notes:
        return f"<p>{esc(empty)}</p>"
    items = "".join(
        f"<li>{esc(n.sentence)} <a href='{_moment(session_id, n.t_ms, n.turn_id)}'>"
        f"{clock(n.t_ms)}</a>"
        + (f" “{esc(n.quote)}”" if n.quote else "") + "</li>" for n in notes)
    return f"<ul>{items}</ul>"


def _revisions_html(session_id: str, revisions: list[dict[str, Any]]) -> str:
    """Each editor state with what the judge said after it: how failing tests were met."""
    if not revisions:
        return ""
    esc = html.escape
    rows = []
    for rev in revisions:
        verdicts = ", ".join(f"{esc(str(s.get('verdict')))} {s.get('passed')}/{s.get('total')}"
                             for s in rev.get("submissions", [])) or "not run"
        lines = len(str(rev.get("code", "")).splitlines()) if "code" in rev else None
        rows.append(f"<tr><td>{rev['n']}</td><td><a href='{_moment(session_id, rev['t_ms'])}'>"
                    f"{clock(rev['t_ms'])}</a></td><td>{esc(str(rev.get('language')))}</td>"
                    f"<td>{'' if lines is None else lines}</td><td>{verdicts}</td></tr>")
    return ("<h2>Code revisions</h2><table><tr><th>#</th><th>At</th><th>Language</th>"
            f"<th>Lines</th><th>Tests after it</th></tr>{''.join(rows)}</table>")


def _earlier_html(report: Report) -> str:
    """Weak points carried in from the candidate's earlier interviews, and how they went."""
    if not report.compared_with_earlier:
        return ""
    items = []
    for c in report.compared_with_earlier:
        how = c.status + (f" ({c.score:.2f})" if c.score is not None else "")
        items.append(f"<li>{html.escape(c.point or c.key)}: {html.escape(how)}</li>")
    return ("<h2>Compared with earlier interviews</h2><ul>" + "".join(items) + "</ul>")


def render_report_html(report: Report, revisions: list[dict[str, Any]] | None = None) -> str:
    esc = html.escape
    def notes(items: list[Note], empty: str) -> str:
        return _notes_html(items, empty, report.session_id)

    score = "—" if report.overall_score is None else f"{round(report.overall_score * 100)}/100"
    rows = []
    for p in report.assessment_points:
        quotes = "".join(
            f"<li><a href='{_moment(report.session_id, q['t_ms'], str(q['turn_id']))}'>"
            f"{clock(q['t_ms'])}</a>"
            f" “{esc(str(q['quote']))}”</li>" for q in p.evidence[:3])
        cited = quotes or "<li>nothing the candidate said shows it</li>"
        rows.append(f"<tr><td>{esc(p.question or p.question_id)}</td>"
                    f"<td>{esc(p.sentence or p.point)}</td>"
                    f"<td>{p.score:.2f}</td><td><ul>{cited}</ul></td></tr>")
    turns = []
    for t in report.turns:
        turns.append(
            f"<article id='turn-{esc(t.turn_id)}'><h3>{esc(t.phase)}: {esc(t.question)}</h3>"
            f"<p><b>Answer:</b> {esc(t.answer or '—')}</p>"
            f"<p><b>Score:</b> {'—' if t.score is None else f'{t.score:.2f}'} "
            f"<b>Feedback ({esc(t.feedback_kind or '—')}):</b> {esc(t.feedback or '—')}</p>"
            + (f"<p class='flag'>Flags: {esc(', '.join(t.flags))}</p>" if t.flags else "")
            + "</article>")
    coding = ""
    if report.coding:
        coding = (f"<h2>Coding</h2><p>Problem {esc(str(report.coding.get('problem_id')))}: "
                  f"{report.coding.get('attempts')} attempts, final verdict "
                  f"{esc(str(report.coding.get('final_verdict')))}</p>")
    review = ""
    if report.review:
        r = report.review
        who = " ".join(str(x) for x in (r.get("reviewer"), r.get("at")) if x)
        original = r.get("original_score")
        review = (f"<h2>Human review</h2><p>Score {esc(str(r.get('overall_score')))}"
                  f" — {esc(str(r.get('note')))}"
                  + (f" <i>({esc(who)})</i>" if who else "")
                  + (f"; graded score before review {esc(str(original))}"
                     if original not in (None, "") else "") + "</p>")
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Viva report {esc(report.session_id)}</title>
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
color:#1d2330}}table{{border-collapse:collapse;width:100%}}td,th{{border-bottom:1px solid #ddd;
padding:.4rem;vertical-align:top;text-align:left}}.flag{{color:#a4400b}}
@media print{{body{{margin:0;max-width:none;font-size:11pt}}a{{color:inherit}}
tr,article{{break-inside:avoid}}}}</style></head><body>
<h1>Interview report</h1>
<p>Candidate <b>{esc(report.candidate_id)}</b>, role {esc(report.role)}, status
{esc(report.status)}, difficulty {esc(report.difficulty)}. Overall: <b>{score}</b></p>
<h2>Strengths</h2>{notes(report.strength_notes, 'No point was shown well yet.')}
<h2>Weak points</h2>{notes(report.weak_notes, 'No weak point found.')}
<p>Reviewer flags: {esc(', '.join(report.reviewer_flags) or 'none')}</p>
{_earlier_html(report)}{review}
<h2>Assessment points</h2><table><tr><th>Question</th><th>Point</th><th>Score</th>
<th>Evidence</th></tr>{''.join(rows)}</table>{coding}
{_revisions_html(report.session_id, revisions or [])}
<h2>Turns</h2>{''.join(turns)}</body></html>"""
