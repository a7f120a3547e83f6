"""Sessions over HTTP: create, public state, timeline, transcript, report, human review."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import HTMLResponse, PlainTextResponse, StreamingResponse

from agents.engine import InterviewError
from agents.state import InterviewState, SessionConfig
from agents.summary import Report, progress_of
from core.events import ReviewEvent
from server import candidate_keys
from server.archive import review_record
from server.archived_session import (
    REPORT_PAGE_HEADERS,
    ArchivedSession,
    list_archives,
    load_archive,
    token_digest,
)
from server.deps import Access, EngineDep, RedisDep, SettingsDep, access_for, require_reviewer
from server.errors import Forbidden, NotFound, Unauthorized
from server.recording import code_revisions, events_ndjson, render_report_html, webvtt
from server.report_html import no_access_html
from server.report_view import report_view
from server.routes.progress import index_session
from server.schemas import (
    ReviewOverride,
    SessionCreate,
    SessionCreated,
    SessionPublic,
    TicketIssued,
)
from server.tickets import Grant, issue_ticket
from store import keys
from store.recordings import RecordingStore

router = APIRouter()
SessionAccess = Annotated[Access, Depends(access_for)]


@router.post("/api/sessions", status_code=201, response_model=SessionCreated)
async def create_session(body: SessionCreate, request: Request, engine: EngineDep,
                         redis: RedisDep, settings: SettingsDep) -> SessionCreated:
    joins, issued = await candidate_keys.claim(redis, body.candidate_id, body.candidate_key)
    created = await open_session(body, request, engine, redis, settings, joins=joins)
    return created.model_copy(update={"candidate_key": issued})


async def open_session(body: SessionCreate, request: Request, engine: EngineDep,
                       redis: RedisDep, settings: SettingsDep, *,
                       joins: bool) -> SessionCreated:
    """A new session; ``joins``: it is part of the candidate's progress (index, profile)."""
    config = SessionConfig(
        candidate_id=body.candidate_id, role=body.role, mode=body.mode,
        self_ratings=body.self_ratings, resume_text=body.resume_text, rounds=body.rounds,
        max_questions=body.max_questions or settings.max_questions,
        focus_topic=body.focus_topic.value if body.focus_topic else None,
        joins_profile=joins)
    state = await engine.create(config)
    token = secrets.token_urlsafe(24)
    # Only the token's hash is kept, as in the archive: a copy of Redis opens no session.
    await redis.hset(keys.session_meta(state.session_id),
                     mapping={"token_sha256": token_digest(token),
                              "candidate_id": body.candidate_id})
    if joins:
        await index_session(redis, body.candidate_id, state.session_id)  # for progress
    request.app.state.metrics.sessions_created.inc()
    ticket = await issue_ticket(redis, Grant(state.session_id, reviewer=False),
                                settings.ticket_ttl_s)
    return SessionCreated(session_id=state.session_id, token=token,
                          ws_url=ws_url_for(request, state.session_id, ticket),
                          joins_progress=joins)


def ws_url_for(request: Request, session_id: str, ticket: str) -> str:
    scheme = "wss" if request.url.scheme == "https" else "ws"
    return f"{scheme}://{request.url.netloc}/ws/sessions/{session_id}?ticket={ticket}"


@router.post("/api/sessions/{session_id}/ticket", status_code=201, response_model=TicketIssued)
async def create_ticket(session_id: str, access: SessionAccess, redis: RedisDep,
                        settings: SettingsDep) -> TicketIssued:
    """A one-time value for a websocket URL or a page link (server/tickets.py), so that no
    token is put in a URL. Wants the session's (or the reviewer's) bearer header."""
    ticket = await issue_ticket(redis, Grant(session_id, reviewer=access.reviewer),
                                settings.ticket_ttl_s)
    return TicketIssued(ticket=ticket, expires_in_s=settings.ticket_ttl_s)


async def _state_or_archive(engine: EngineDep, settings: SettingsDep,
                            session_id: str) -> InterviewState | ArchivedSession:
    """The live state while Redis has the session; its archive once the keys are gone."""
    try:
        return await engine.load(session_id)
    except InterviewError as exc:
        archived = load_archive(settings.data_dir, session_id)
        if archived is None:
            raise NotFound(exc.message) from exc
        return archived


async def _live_or_archived(engine: EngineDep, settings: SettingsDep,
                            session_id: str) -> ArchivedSession | None:
    """None while Redis has the session; its archive once the keys are gone."""
    found = await _state_or_archive(engine, settings, session_id)
    return found if isinstance(found, ArchivedSession) else None


@router.get("/api/sessions/{session_id}", response_model=SessionPublic)
async def get_session(session_id: str, access: SessionAccess, engine: EngineDep,
                      settings: SettingsDep) -> SessionPublic:
    state = await _state_or_archive(engine, settings, session_id)
    if isinstance(state, ArchivedSession):  # Redis has let it go: the archive says how it went
        return SessionPublic.model_validate(state.public_state())
    turn = state.current_turn
    return SessionPublic(
        session_id=state.session_id, candidate_id=state.config.candidate_id,
        role=state.config.role, mode=state.config.mode, phase=state.phase.value,
        difficulty=state.difficulty.value,
        current_question=None if turn is None else {
            "turn_id": turn.turn_id, "text": turn.text, "phase": turn.phase.value,
            "question_id": turn.followup_id or turn.question_id},
        questions_asked=state.main_questions_asked, answered=len(state.answered),
        max_questions=state.config.max_questions,
        scores=[{"turn_id": t.turn_id, "question_id": t.question_id, "score": t.score,
                 "feedback_kind": t.feedback_kind} for t in state.answered],
        coding_problem_id=state.coding_problem_id)


async def served_report(engine: EngineDep, settings: SettingsDep, session_id: str,
                        state: InterviewState) -> tuple[Report, list[dict[str, object]]]:
    """The live report as served (answers placed on the recordings), and the revisions."""
    report = await engine.report(session_id, state)
    events = await engine.events.range(session_id, 0)
    recordings = await asyncio.to_thread(RecordingStore(settings.data_dir).entries, session_id)
    revisions = code_revisions(events)
    from server.routes.practice import practice_comparison

    report = await practice_comparison(engine, settings, report)
    return report_view(report, events, recordings, revisions), revisions


@router.get("/api/sessions/{session_id}/report")
async def get_report(session_id: str, access: SessionAccess, engine: EngineDep,
                     settings: SettingsDep) -> dict[str, object]:
    state = await _state_or_archive(engine, settings, session_id)
    if isinstance(state, ArchivedSession):
        return state.report()
    return (await served_report(engine, settings, session_id, state))[0].model_dump()


@router.get("/sessions/{session_id}/report", response_class=HTMLResponse)
async def report_page(session_id: str, request: Request, engine: EngineDep,
                      settings: SettingsDep) -> HTMLResponse:
    try:
        await access_for(request, session_id)
    except (Unauthorized, Forbidden, NotFound) as exc:  # a browser reads this: a page
        return HTMLResponse(no_access_html(exc.message), status_code=exc.status,
                            headers=REPORT_PAGE_HEADERS)
    state = await _state_or_archive(engine, settings, session_id)
    if isinstance(state, ArchivedSession):
        return HTMLResponse(state.report_html(), headers=REPORT_PAGE_HEADERS)
    report, revisions = await served_report(engine, settings, session_id, state)
    return HTMLResponse(render_report_html(report, revisions), headers=REPORT_PAGE_HEADERS)


@router.get("/api/sessions/{session_id}/events")
async def get_events(session_id: str, access: SessionAccess, engine: EngineDep,
                     settings: SettingsDep, after_seq: int = 0) -> Response:
    archived = await _live_or_archived(engine, settings, session_id)
    if archived is not None:
        return PlainTextResponse("".join(
            json.dumps(e, separators=(",", ":")) + "\n" for e in archived.events()
            if e["seq"] > after_seq), media_type="application/x-ndjson")

    async def lines() -> AsyncIterator[str]:
        async for line in events_ndjson(engine.events, session_id, after_seq):
            yield line

    return StreamingResponse(lines(), media_type="application/x-ndjson")


@router.get("/api/sessions/{session_id}/transcript.vtt", response_class=PlainTextResponse)
async def get_vtt(session_id: str, access: SessionAccess, engine: EngineDep,
                  settings: SettingsDep) -> Response:
    archived = await _live_or_archived(engine, settings, session_id)
    if archived is not None:
        return PlainTextResponse(archived.transcript_vtt(), media_type="text/vtt")
    events = await engine.events.range(session_id, 0)
    recordings = await asyncio.to_thread(RecordingStore(settings.data_dir).entries, session_id)
    return PlainTextResponse(webvtt(events, recordings), media_type="text/vtt")


@router.post("/api/sessions/{session_id}/review")
async def override_report(session_id: str, body: ReviewOverride, redis: RedisDep,
                          engine: EngineDep, settings: SettingsDep, request: Request,
                          reviewer: Annotated[Access, Depends(require_reviewer)],
                          ) -> dict[str, object]:
    """A human reviewer overrides the score with a note; the report shows both. Who and when
    are kept with it, and the graded score stays as ``original_score``; each override is also
    an event, so the timeline (and the archive) keeps every one, not only the last."""
    at = datetime.now(UTC).isoformat(timespec="seconds")
    review = ReviewEvent(overall_score=body.overall_score, note=body.note,
                         reviewer=body.reviewer, at=at)
    archiver = getattr(request.app.state, "archiver", None)
    state = await _state_or_archive(engine, settings, session_id)
    if isinstance(state, ArchivedSession):
        # Redis has let it go: the archive takes the review (a report is often read, and
        # overridden, long after the interview).
        if archiver is None or not await archiver.review_archived(session_id, review):
            raise NotFound(f"session {session_id} is archived but cannot take a review here")
        return {"status": "ok", "at": at}
    review = review.model_copy(
        update={"original_score": (await engine.report(session_id, state)).overall_score})
    await redis.hset(keys.session_review(session_id), mapping=review_record(review))
    await engine.events.append(session_id, review)
    if archiver is not None:
        archiver.request(session_id, only_ended=True)
    return {"status": "ok", "at": at}


@router.get("/api/review/sessions")
async def list_sessions(redis: RedisDep, engine: EngineDep, settings: SettingsDep,
                        reviewer: Annotated[Access, Depends(require_reviewer)],
                        ) -> list[dict[str, object]]:
    ids = sorted(await redis.smembers(keys.SESSIONS_INDEX))
    archives = {i.session_id: i for i in await asyncio.to_thread(list_archives,
                                                                 settings.data_dir)}
    out: list[dict[str, object]] = []
    for sid in ids[-200:]:
        try:
            report = await engine.report(sid)
        except InterviewError:
            continue
        out.append({"session_id": sid, "candidate_id": report.candidate_id,
                    "role": report.role, "status": report.progress, "phase": report.status,
                    "overall_score": report.final_score, "graded_score": report.overall_score,
                    "reviewed": report.review is not None, "flags": report.reviewer_flags,
                    "archived": sid in archives})
    listed = {row["session_id"] for row in out}
    # Sessions whose Redis keys expired (or that were imported) live on as archives.
    for info in list(archives.values())[-200:]:
        if info.session_id not in listed:
            reviewed = info.reviewed_score is not None
            out.append({"session_id": info.session_id, "candidate_id": info.candidate_id,
                        "role": info.role, "status": progress_of(info.status, info.ended_reason),
                        "phase": info.status,
                        "overall_score": info.reviewed_score if reviewed else info.overall_score,
                        "graded_score": info.overall_score, "reviewed": reviewed,
                        "flags": info.flags, "archived": True})
    return out


