"""HTTP surface of the judge: problems (public part) and submissions (evidence per viewer)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from judge.service import JudgeService
from server.deps import access_for, bearer, is_reviewer
from server.errors import (
    DependencyDown,
    Forbidden,
    NotFound,
    Unauthorized,
)

router = APIRouter()


class SubmissionCreate(BaseModel):
    problem_id: str = Field(min_length=1, max_length=128)
    language: str = Field(min_length=1, max_length=32)
    code: str
    kind: Literal["run", "submit"] = "submit"


class SubmissionCreated(BaseModel):
    submission_id: str


def _judge(request: Request) -> JudgeService:
    judge: JudgeService | None = getattr(request.app.state, "judge", None)
    if judge is None:
        raise DependencyDown("the code judge is not running on this server")
    return judge


@router.get("/api/problems")
async def list_problems(request: Request) -> dict[str, Any]:
    return {"problems": _judge(request).list_problems()}


@router.get("/api/problems/{problem_id}")
async def get_problem(problem_id: str, request: Request) -> dict[str, Any]:
    return _judge(request).public_problem(problem_id)  # a JudgeError maps to its status


@router.post("/api/sessions/{session_id}/submissions", status_code=202,
             response_model=SubmissionCreated)
async def create_submission(session_id: str, body: SubmissionCreate,
                            request: Request) -> SubmissionCreated:
    await access_for(request, session_id)
    submission_id = await _judge(request).enqueue(session_id, body.problem_id,
                                                  body.language, body.code, body.kind)
    return SubmissionCreated(submission_id=submission_id)


@router.get("/api/submissions/{submission_id}")
async def get_submission(submission_id: str, request: Request) -> dict[str, Any]:
    judge = _judge(request)
    token = bearer(request)
    if token is None:
        raise Unauthorized("a bearer token is required (Authorization: Bearer <token>)")
    result = await judge.get(submission_id)
    if result is None:
        raise NotFound(f"no submission {submission_id!r}")
    if is_reviewer(request.app.state.settings, token):
        return result.model_dump(mode="json")
    if result.session_id is None:
        raise Forbidden("only a reviewer may read this submission")
    access = await access_for(request, result.session_id)
    if access.reviewer:
        return result.model_dump(mode="json")
    return result.public_view()
