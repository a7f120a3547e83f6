""""Try this one again": a short practice session that asks one question of a finished
interview again, graded the same way; its report sets the two attempts side by side and
links the first, which stays as it was."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from agents.engine import InterviewError
from agents.state import InterviewState, SelfRatings
from agents.summary import Report
from server import candidate_keys
from server.archived_session import ArchivedSession
from server.deps import Access, EngineDep, RedisDep, SettingsDep, access_for
from server.errors import NotFound
from server.schemas import SessionCreate, SessionCreated

router = APIRouter()
SessionAccess = Annotated[Access, Depends(access_for)]


class PracticeCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question_id: str = Field(min_length=1, max_length=128)
    mode: Literal["voice", "text"] = "text"


async def _original(engine: EngineDep, settings: SettingsDep, session_id: str,
                    ) -> InterviewState | ArchivedSession:
    from server.routes.sessions import _state_or_archive

    return await _state_or_archive(engine, settings, session_id)


def _asked(found: InterviewState | ArchivedSession) -> set[str]:
    if isinstance(found, ArchivedSession):
        return {str(q.get("question_id")) for q in found.report().get("questions", [])} | {
            str(e.get("question_id")) for e in found.events() if e.get("type") == "question"}
    return {t.question_id for t in found.turns}


@router.post("/api/sessions/{session_id}/practice", status_code=201,
             response_model=SessionCreated)
async def create_practice(session_id: str, body: PracticeCreate, access: SessionAccess,
                          request: Request, engine: EngineDep, redis: RedisDep,
                          settings: SettingsDep) -> SessionCreated:
    from server.routes.sessions import open_session

    found = await _original(engine, settings, session_id)
    ended = (found.info.status == "ended" if isinstance(found, ArchivedSession)
             else found.phase.value == "ended")
    if not ended:
        raise InterviewError("not_ended", "practise a question once the interview has ended")
    if body.question_id not in _asked(found) or body.question_id not in engine.bank.questions:
        raise InterviewError("invalid_input", f"question {body.question_id!r} was not asked "
                                              "in this interview; pick one from its report")
    if isinstance(found, ArchivedSession):
        candidate, role = found.info.candidate_id, found.info.role
        ratings = SelfRatings(algorithms=3, engineering=3, projects=3)
    else:
        candidate, role = found.config.candidate_id, found.config.role
        ratings = found.config.self_ratings
    # A practice belongs where its first attempt does: in the candidate's progress or not.
    created = await open_session(
        SessionCreate(candidate_id=candidate, role=role, mode=body.mode,
                      self_ratings=ratings, rounds=["concepts"], max_questions=1),
        request, engine, redis, settings,
        joins=await candidate_keys.joined(redis, candidate, session_id))
    await engine.make_practice(created.session_id, session_id, body.question_id)
    return created


async def practice_comparison(engine: Any, settings: Any, report: Report) -> Report:
    """For a practice session's report: the first attempt and this one side by side."""
    if not report.practice_of:
        return report
    try:
        found = await _original(engine, settings, report.practice_of)
    except NotFound:
        return report
    if isinstance(found, ArchivedSession):
        first = found.report()
    else:
        first = (await engine.report(report.practice_of, found)).model_dump()
    question_id = next((q.question_id for q in report.questions), None)
    before = next((q for q in first.get("questions", [])
                   if q.get("question_id") == question_id), None)
    after = next((q for q in report.questions if q.question_id == question_id), None)
    if before is None or after is None:
        return report

    def attempt(q: dict[str, Any]) -> dict[str, Any]:
        answers = [ex for ex in q.get("exchanges", []) if ex.get("answer")]
        return {"score": q.get("score"), "answer": answers[0]["answer"] if answers else None,
                "answer_t_ms": answers[0].get("answer_t_ms") if answers else None,
                "covered": q.get("covered", []), "missed": q.get("missed", [])}

    out = report.model_copy()
    out.practice = {"of": report.practice_of, "question_id": question_id,
                    "question": after.question, "before": attempt(before),
                    "after": attempt(after.model_dump())}
    return out
