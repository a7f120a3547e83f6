"""Progress across interviews (issue 25, item 7): every interview and practice attempt of one
candidate, scores per topic over time, weak points over time and a suggested focus.

Sessions are found through the candidate index (``store.keys.candidate_sessions``), which has
no TTL: once a session's own Redis keys expire, its archive under ``VIVA_DATA_DIR`` gives the
report. Only the reviewer, or a caller holding the token of one of that candidate's sessions,
sees anything; the reports' reference answers are never copied out.
"""

from __future__ import annotations

import asyncio
import html
import time
from datetime import UTC, datetime
from typing import Any, Literal

import redis.asyncio as aioredis
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel

from agents.engine import InterviewEngine, InterviewError
from agents.names import topic_name, weak_point_name
from agents.question_bank import QuestionBank, Topic
from server.archived_session import REPORT_PAGE_HEADERS, load_archive
from server.deps import (
    EngineDep,
    RedisDep,
    SettingsDep,
    bearer,
    check_session_token,
    is_reviewer,
    link_cookie_grant,
)
from server.errors import Forbidden, NotFound, Unauthorized
from server.report_html import no_access_html
from server.settings import Settings
from store import keys

router = APIRouter()
# The index is read newest-last; a candidate with more sessions shows the latest ones.
MAX_SESSIONS = 200
STRONG_SCORE = 0.8  # a topic's latest score from here up is no weakness to work on
_TOPIC_KEYS = {topic_name(t.value): t.value for t in Topic}  # human name -> bank topic


async def index_session(redis: aioredis.Redis, candidate_id: str, session_id: str,
                        now: float | None = None) -> None:
    """Adds a new session to its candidate's index (called when any session is created)."""
    await redis.zadd(keys.candidate_sessions(candidate_id),
                     {session_id: time.time() if now is None else now}, nx=True)


class ProgressSession(BaseModel):
    session_id: str
    started_at: str
    kind: Literal["interview", "practice"]
    practice_of: str | None = None
    status: str
    overall_score: float | None  # a reviewer's override when there is one
    reviewed: bool
    topics: dict[str, float]  # human topic name -> mean score of its questions


class WeakPoint(BaseModel):
    key: str
    text: str
    status: Literal["improved", "still weak", "new"]
    first_seen: str  # session id
    last_seen: str


class Focus(BaseModel):
    topic: str | None  # human name
    topic_key: str | None = None  # what POST /api/sessions takes as focus_topic
    reason: str
    points: list[str]


class Progress(BaseModel):
    candidate_id: str
    sessions: list[ProgressSession]
    weak_points: list[WeakPoint]
    suggested_focus: Focus


async def _authorise(request: Request, redis: aioredis.Redis, settings: Settings,
                     session_ids: list[str]) -> None:
    """The reviewer, or the token of one of these sessions (deps.check_session_token decides
    for each), or, for a page a browser loads by URL (GET), the link cookie of one of them
    (a ticket redeemed by server/tickets.py). Another candidate's credential matches none
    of them: 403, nothing else said."""
    token = bearer(request)
    if token is None:
        for sid in session_ids:
            if await link_cookie_grant(request, sid):
                return
    if token is None:
        raise Unauthorized("a bearer token is required (Authorization: Bearer <token>)")
    if is_reviewer(settings, token):
        return
    for sid in session_ids:
        try:
            await check_session_token(redis, settings, sid, token)
            return
        except Unauthorized:
            raise
        except (Forbidden, NotFound):
            continue
    raise Forbidden("this token belongs to none of this candidate's sessions")


async def _report(engine: InterviewEngine, settings: Settings,
                  session_id: str) -> dict[str, Any] | None:
    try:
        report: dict[str, Any] = (await engine.report(session_id)).model_dump()
        return report
    except InterviewError:
        archived = await asyncio.to_thread(load_archive, settings.data_dir, session_id)
        return None if archived is None else await asyncio.to_thread(archived.report)


def _topics(report: dict[str, Any]) -> dict[str, float]:
    scores: dict[str, list[float]] = {}
    for q in report.get("questions", []):
        if q.get("score") is not None:
            scores.setdefault(str(q.get("topic")), []).append(float(q["score"]))
    return {t: round(sum(v) / len(v), 3) for t, v in scores.items()}


def _asked(report: dict[str, Any]) -> set[str]:
    return {str(q.get("question_id")) for q in report.get("questions", [])}


def build_progress(candidate_id: str, rows: list[tuple[str, float, dict[str, Any]]],
                   bank: QuestionBank | None) -> Progress:
    """``rows``: (session id, created epoch s, report dict), oldest first."""
    sessions: list[ProgressSession] = []
    for sid, created, report in rows:
        final = report.get("final_score", report.get("overall_score"))
        sessions.append(ProgressSession(
            session_id=sid, kind="practice" if report.get("practice_of") else "interview",
            practice_of=report.get("practice_of"), status=str(report.get("status", "")),
            started_at=datetime.fromtimestamp(created, UTC).isoformat(timespec="seconds"),
            overall_score=None if final is None else float(final),
            reviewed=report.get("review") is not None, topics=_topics(report)))

    # Weak points over time: a point weak in some session is "improved" once a later session
    # asked its question again without it being weak; otherwise it stays weak ("new" when the
    # latest session that found it was the first to).
    seen: dict[str, list[int]] = {}
    for i, (_, _, report) in enumerate(rows):
        for key in report.get("weak_point_keys", []):
            seen.setdefault(str(key), []).append(i)
    weak: list[WeakPoint] = []
    for key, where in seen.items():
        question_id = key.partition("/")[0]
        later = [i for i in range(where[-1] + 1, len(rows))
                 if question_id in _asked(rows[i][2]) and key not in rows[i][2].get(
                     "weak_point_keys", [])]
        status: Literal["improved", "still weak", "new"] = (
            "improved" if later else "still weak" if len(where) > 1 else "new")
        weak.append(WeakPoint(key=key, text=weak_point_name(key, bank), status=status,
                              first_seen=rows[where[0]][0], last_seen=rows[where[-1]][0]))
    order = {"still weak": 0, "new": 1, "improved": 2}
    weak.sort(key=lambda w: order[w.status])
    return Progress(candidate_id=candidate_id, sessions=sessions, weak_points=weak,
                    suggested_focus=_focus(sessions, weak))


def _focus(sessions: list[ProgressSession], weak: list[WeakPoint]) -> Focus:
    latest: dict[str, float] = {}
    for s in sessions:  # oldest first: a topic's latest score wins
        latest.update(s.topics)
    points = [w.text for w in weak if w.status != "improved"][:3]
    if not latest:
        return Focus(topic=None, points=points,
                     reason="No graded answers yet: any topic is a good start.")
    topic = min(latest, key=lambda t: latest[t])
    key = _TOPIC_KEYS.get(topic)
    score = round(latest[topic] * 100)
    if latest[topic] >= STRONG_SCORE:
        # "Lowest score (95 out of 100)" reads as a weakness: say it is not one.
        # "scored 100 or more" reads oddly, and "lowest" means nothing when all are full.
        scored = ("scored 100 in its latest session" if score >= 100 else
                  f"scored {score} or more in its latest session")
        which = (f"Try {topic} at a harder level" if score >= 100 else
                 f"{topic} is the lowest: try it at a harder level")
        return Focus(topic=topic, topic_key=key, points=points,
                     reason=f"Every topic you were asked about {scored}. {which}, or a "
                            "topic you have not been asked yet.")
    return Focus(topic=topic, topic_key=key, points=points,
                 reason=f"{topic} has your lowest latest score ({score} out of 100).")


async def progress_for(request: Request, candidate_id: str, redis: aioredis.Redis,
                       engine: InterviewEngine, settings: Settings) -> Progress:
    indexed = await redis.zrange(keys.candidate_sessions(candidate_id), -MAX_SESSIONS, -1,
                                 withscores=True)
    ids = [str(sid) for sid, _ in indexed]
    await _authorise(request, redis, settings, ids)
    rows = []
    for (_, created), sid_s in zip(indexed, ids, strict=True):
        report = await _report(engine, settings, sid_s)
        if report is not None:
            rows.append((sid_s, float(created), report))
    return build_progress(candidate_id, rows, engine.bank)


@router.get("/api/candidates/{candidate_id}/progress", response_model=Progress)
async def get_progress(candidate_id: str, request: Request, redis: RedisDep,
                       engine: EngineDep, settings: SettingsDep) -> Progress:
    return await progress_for(request, candidate_id, redis, engine, settings)


def _score(value: float | None) -> str:
    return "—" if value is None else f"{round(value * 100)}/100"


def render_progress_html(progress: Progress) -> str:
    """The printable page: no script, every text escaped."""
    e = html.escape
    rows = "".join(
        f"<tr><td>{e(s.started_at)}</td><td>{e(s.kind)}</td><td>{e(_score(s.overall_score))}"
        f"{' (reviewed)' if s.reviewed else ''}</td><td>"
        + e(", ".join(f"{t}: {_score(v)}" for t, v in s.topics.items())) + "</td></tr>"
        for s in progress.sessions)
    weak = "".join(f"<li>{e(w.text)} — <strong>{e(w.status)}</strong></li>"
                   for w in progress.weak_points) or "<li>None recorded.</li>"
    focus = progress.suggested_focus
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>Progress of {e(progress.candidate_id)}</title><style>"
        "body{font:15px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem}"
        "table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.3rem}"
        "</style></head><body>"
        f"<h1>Progress of {e(progress.candidate_id)}</h1>"
        "<h2>Interviews and practice</h2><table><thead><tr><th>Started</th><th>Kind</th>"
        f"<th>Overall</th><th>Topics</th></tr></thead><tbody>{rows}</tbody></table>"
        f"<h2>Weak points</h2><ul>{weak}</ul>"
        f"<h2>Suggested focus</h2><p>{e(focus.topic or 'Any topic')}: {e(focus.reason)}</p>"
        "</body></html>")


@router.get("/api/candidates/{candidate_id}/progress.html", response_class=HTMLResponse)
async def get_progress_html(candidate_id: str, request: Request, redis: RedisDep,
                            engine: EngineDep, settings: SettingsDep) -> HTMLResponse:
    try:
        progress = await progress_for(request, candidate_id, redis, engine, settings)
    except (Unauthorized, Forbidden) as exc:
        # A link opened in a browser without the credential: a page that says so, not JSON.
        return HTMLResponse(no_access_html(exc.message, "progress page"),
                            status_code=exc.status, headers=REPORT_PAGE_HEADERS)
    return HTMLResponse(render_progress_html(progress), headers=REPORT_PAGE_HEADERS)
