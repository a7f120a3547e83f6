"""The printable report: question by question, in words a person reads — the answer quoted
once with a link to where it begins in playback, points covered and missed as sentences, one
next step, the model answer once the interview is over; names, never ids."""

from __future__ import annotations

import html
from typing import Any

from agents.complexity import SPOKEN
from agents.names import topic_name
from agents.question_results import QuestionResult
from agents.summary import Report, clock, reviewed_score
from server.report_view import revision_rows

esc = html.escape


def moment_link(session_id: str, t_ms: int | None) -> str:
    """The playback page at that moment (it asks for a credential if the browser has none)."""
    return f"/playback/{esc(session_id)}?t={max(0, int(t_ms or 0))}"


def score_text(score: float | None) -> str:
    return "—" if score is None else f"{round(score * 100)}/100"


def _header_score(report: Report) -> str:
    reviewed = reviewed_score(report.review)
    if reviewed is None:
        return f"Overall: <b data-testid='overall-score'>{score_text(report.overall_score)}</b>"
    who = str((report.review or {}).get("reviewer") or "a reviewer")
    return (f"Overall: <b data-testid='overall-score'>{score_text(reviewed)}</b> after review "
            f"by {esc(who)} (graded {score_text(report.overall_score)})")


def _list(title: str, items: list[str], css: str) -> str:
    if not items:
        return ""
    return (f"<p class='{css}'><b>{title}</b></p><ul class='{css}'>"
            + "".join(f"<li>{esc(i)}</li>" for i in items) + "</ul>")


def _question_html(session_id: str, n: int, q: QuestionResult) -> str:
    parts = [f"<section class='question' data-testid='report-question'>"
             f"<h3>{n}. {esc(q.question)}</h3>"
             f"<p class='meta'>{esc(q.topic)} · score {score_text(q.score)}</p>"]
    for ex in q.exchanges:
        if ex.follow_up:
            parts.append(f"<p class='followup'><b>Follow-up:</b> {esc(ex.question)}</p>")
        if ex.answer:
            parts.append(
                f"<blockquote data-testid='report-answer'>“{esc(ex.answer)}”</blockquote>"
                f"<p class='when'><a class='moment' data-testid='report-moment' "
                f"data-t='{ex.answer_t_ms or 0}' data-turn='{esc(ex.turn_id)}' "
                f"href='{moment_link(session_id, ex.answer_t_ms)}'>Listen from "
                f"{clock(ex.answer_t_ms)}</a></p>")
        else:
            parts.append("<p class='hint'>No answer was given.</p>")
    parts.append(_list("Covered", q.covered, "covered"))
    parts.append(_list("Missed", q.missed, "missed"))
    parts.append(f"<p class='next' data-testid='next-step'><b>Next step:</b> "
                 f"{esc(q.next_step.removeprefix('Next step: '))}</p>")
    if q.reference_answer:
        parts.append(f"<details class='model-answer' data-testid='model-answer' open>"
                     f"<summary>Model answer</summary><p>{esc(q.reference_answer)}</p>"
                     "</details>")
    parts.append("</section>")
    return "".join(parts)


def _practice_html(report: Report) -> str:
    """A practice session: the first attempt and this one, side by side."""
    if not report.practice_of:
        return ""
    link = (f"<a data-testid='first-attempt' href='/playback/{esc(report.practice_of)}'>"
            "the first attempt</a>")
    p = report.practice
    if not p:
        return f"<p>Practice of one question; see {link}.</p>"

    def cell(a: dict[str, Any], testid: str, quoted_below: bool = False) -> str:
        # This session's own answer is quoted once, in its question below, with its moment.
        answer = ("No answer." if not a.get("answer") else "Quoted below, with its moment."
                  if quoted_below else f"“{esc(str(a['answer']))}”")
        missed = "".join(f"<li>{esc(m)}</li>" for m in a.get("missed", []))
        return (f"<td data-testid='{testid}'><p><b>{score_text(a.get('score'))}</b></p>"
                f"<p>{answer}</p>" + (f"<ul class='missed'>{missed}</ul>" if missed else "")
                + "</td>")

    return (f"<h2>Practice: before and after</h2><p>“{esc(str(p['question']))}” again; "
            f"{link} stays as it was.</p><table class='practice'><tr><th>Before</th>"
            f"<th>After</th></tr><tr>{cell(p['before'], 'practice-before')}"
            f"{cell(p['after'], 'practice-after', quoted_below=True)}</tr></table>")


def _question_try_again(session_id: str, q: QuestionResult, ended: bool) -> str:
    if not ended:
        return ""
    return (f"<p><a class='try-again' data-testid='try-again' href='/practice/"
            f"{esc(session_id)}?question={esc(q.question_id)}'>Try this one again</a></p>")


def _coding_html(session_id: str, coding: dict[str, Any] | None,
                 revisions: list[dict[str, Any]] | None, ended: bool = True) -> str:
    rows = (coding or {}).get("revisions") or revision_rows(revisions or [])
    if not coding:  # code written outside a coding round: its revisions only
        return _revisions_table(session_id, rows)
    title = coding.get("title") or "the coding problem"
    verdict = coding.get("final_verdict_name") or "not submitted"
    return (f"<h2>Coding</h2><p>{esc(str(title))}: {coding.get('attempts', 0)} runs and "
            f"submissions; the last submission: {esc(str(verdict))}.</p>"
            + _coding_score_html(coding) + _approach_html(session_id, coding, ended)
            + _complexity_html(coding)
            + _hints_html(session_id, coding) + _revisions_table(session_id, rows))


def _coding_score_html(coding: dict[str, Any]) -> str:
    parts = coding.get("score_parts") or {}
    if coding.get("score") is None:
        return ""
    named = [f"{name} {round(float(parts[key]) * 100)}" for key, name in
             (("correctness", "correctness"), ("approach", "approach"),
              ("complexity", "complexity")) if parts.get(key) is not None]
    return (f"<p data-testid='coding-score'>Coding round: {round(float(coding['score']) * 100)}"
            f"/100" + (f" ({', '.join(named)})" if named else "") + ".</p>")


def _approach_html(session_id: str, coding: dict[str, Any], ended: bool) -> str:
    """What the candidate explained of the problem's points, quoted with a time link; the
    points themselves (the rubric) only once the interview has ended."""
    points = coding.get("approach_points") or []
    if not points:
        return ""
    if not ended:
        said = sum(1 for p in points if p.get("covered"))
        return (f"<p data-testid='approach'>Approach: you have explained {said} of the "
                f"{len(points)} things this problem's interviewer listens for; the list comes "
                "with the report once the interview has ended.</p>")
    items = []
    for p in points:
        text = esc(str(p.get("text", "")))
        if p.get("covered"):
            quote = (f" “{esc(str(p['quote']))}”" if p.get("quote") else "")
            when = (f" (<a href='{moment_link(session_id, int(p['t_ms']))}'>"
                    f"{clock(int(p['t_ms']))}</a>)" if p.get("t_ms") is not None else "")
            items.append(f"<li class='covered'>You explained: {text}.{quote}{when}</li>")
        else:
            items.append(f"<li class='missed'>Not explained: {text}.</li>")
    return ("<h3>Your approach</h3><ul data-testid='approach'>" + "".join(items) + "</ul>")


def _complexity_html(coding: dict[str, Any]) -> str:
    """The candidate's complexity claim against the measured growth of their code."""
    c = coding.get("complexity") or {}
    measured = c.get("measured") or {}
    klass, claimed, reference = measured.get("class"), c.get("claimed"), c.get("reference")
    if not (klass or claimed):
        return ""
    named = esc(SPOKEN.get(str(claimed), str(claimed)))
    said = (f"you said “{esc(str(c.get('claim') or ''))}” ({named})" if claimed
            else "you gave no complexity")
    ratio = measured.get("ratio")
    grew = (f", its time grew {float(ratio):.1f} times when n doubled"
            if isinstance(ratio, int | float) else "")
    got = (f"your code measured {esc(SPOKEN.get(str(klass), str(klass)))}{grew}" if klass
           else "your code could not be timed")
    best = (f"; the reference solution is {esc(SPOKEN.get(str(reference), str(reference)))}"
            if reference else "")
    return f"<p data-testid='complexity'>Complexity: {said}; {got}{best}.</p>"


def _hints_html(session_id: str, coding: dict[str, Any]) -> str:
    """How many of the problem's hints were given, and when (each lowers the approach)."""
    used = int(coding.get("hints_used") or 0)
    if not used:
        return "<p data-testid='hints-used'>No hints used.</p>"
    times = ", ".join(f"<a href='{moment_link(session_id, int(t))}'>{clock(int(t))}</a>"
                      for t in coding.get("hint_t_ms") or [])
    return (f"<p data-testid='hints-used'>Hints used: {used}"
            + (f" (at {times})" if times else "") + ".</p>")


def _revisions_table(session_id: str, rows: list[dict[str, Any]]) -> str:
    out = []
    if rows:
        body = []
        for r in rows:
            tests = "; ".join(f"{esc(str(v['verdict']))} ({v['passed']}/{v['total']} passed)"
                              for v in r["verdicts"]) or "not run"
            body.append(f"<tr><td>{r['n']}</td><td><a href='{moment_link(session_id, r['t_ms'])}'>"
                        f"{clock(r['t_ms'])}</a></td><td>{esc(str(r['language']))}</td>"
                        f"<td>{r['lines']}</td><td>{tests}</td></tr>")
        out.append("<h3>Code revisions</h3><table><tr><th>#</th><th>At</th><th>Language</th>"
                   f"<th>Lines</th><th>Tests after it</th></tr>{''.join(body)}</table>")
    return "".join(out)


def _earlier_html(report: Report) -> str:
    if not report.compared_with_earlier:
        return ""
    items = "".join(
        f"<li>{esc(c.label or c.point or 'A point from an earlier interview')}: "
        f"{esc(c.status)}</li>" for c in report.compared_with_earlier)
    return f"<h2>Compared with earlier interviews</h2><ul>{items}</ul>"


def _review_html(report: Report) -> str:
    if not report.review:
        return ""
    r = report.review
    who = " on ".join(str(x) for x in (r.get("reviewer"), r.get("at")) if x)
    return (f"<h2>Human review</h2><p>Score set to {score_text(reviewed_score(r))}"
            + (f" by {esc(who)}" if who else "")
            + f" (graded {score_text(report.overall_score)}): {esc(str(r.get('note') or ''))}"
            "</p>")


def _profile_line(report: Report) -> str:
    strong = sorted((t for t, s in report.ability.items() if s >= 0.7),
                    key=lambda t: -report.ability[t])
    weak = sorted((t for t, s in report.ability.items() if s < 0.6),
                  key=lambda t: report.ability[t])
    bits = []
    if strong:
        bits.append("Strongest in " + ", ".join(topic_name(t) for t in strong[:3]) + ".")
    if weak:
        bits.append("Work on " + ", ".join(topic_name(t) for t in weak[:3]) + ".")
    return f"<p>{esc(' '.join(bits))}</p>" if bits else ""


def render_report_html(report: Report, revisions: list[dict[str, Any]] | None = None) -> str:
    ended = report.status == "ended"
    questions = "".join(_question_html(report.session_id, i + 1, q)
                        + _question_try_again(report.session_id, q, ended)
                        for i, q in enumerate(report.questions))
    flags = ("<h2>For the reviewer</h2><ul>"
             + "".join(f"<li>{esc(f)}</li>" for f in report.reviewer_flags) + "</ul>"
             if report.reviewer_flags else "")
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Viva interview report</title>
<link rel="icon" href="data:,">
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
color:#1d2330}}table{{border-collapse:collapse;width:100%}}td,th{{border-bottom:1px solid #ddd;
padding:.4rem;vertical-align:top;text-align:left}}.question{{border-top:1px solid #ddd;
padding:.5rem 0}}blockquote{{margin:.5rem 0;padding:.3rem .8rem;border-left:3px solid #2451c8;
background:#f3f5fa}}.meta,.when{{color:#5b6475;margin:.2rem 0}}.missed{{color:#8a2c0d}}
table.practice td{{width:50%}}
.next{{background:#fff7e0;padding:.3rem .6rem}}details{{margin:.4rem 0}}
@media print{{body{{margin:0;max-width:none;font-size:11pt}}a{{color:inherit}}
.question,tr{{break-inside:avoid}}}}</style></head><body>
<h1>Interview report</h1>
<p>Candidate <b>{esc(report.candidate_id)}</b>, {esc(report.role)} · interview
{esc(report.progress)} · {esc(report.difficulty)} questions.</p>
<p class="score">{_header_score(report)}</p>
{_profile_line(report)}
{_practice_html(report)}
<h2>Question by question</h2>{questions or '<p>No question was answered.</p>'}
{_coding_html(report.session_id, report.coding, revisions, ended)}
{_earlier_html(report)}{_review_html(report)}{flags}</body></html>"""


def no_access_html(reason: str, what: str = "report") -> str:
    """What a browser that holds no credential for a report (or a progress page) sees: a
    page, not raw JSON."""
    opens = ("Reports open from the interview's own page (or a reviewer's) in the browser "
             "where it was taken: use <b>Open your report</b> there, or the lobby's list of "
             "your interviews." if what == "report" else
             "A candidate's progress opens from the lobby, in the browser where their "
             "interviews were taken (or a reviewer's).")
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>Viva {esc(what)}: no access</title></head><body style='font-family:"
        f"sans-serif;max-width:40em;margin:3em auto'><h1>This {esc(what)} is not open to "
        f"this browser</h1><p>{opens}</p>"
        f"<p data-testid='no-access-reason'>{esc(reason)}</p>"
        "<p><a href='/' data-testid='back-to-lobby'>Back to the lobby</a></p></body></html>")
