"""One error base: every domain error has code, status, retryable and message, and the
server maps any of them to the contract's envelope in one handler."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from agents.engine import InterviewError
from core.errors import AppError
from judge.errors import JudgeError
from realtime.errors import VoiceInputError
from server.errors import DependencyDown, NotFound, VivaError, install_error_handlers

CASES: list[tuple[AppError, str, int, bool]] = [
    (NotFound("no session 'x'"), "not_found", 404, False),
    (DependencyDown("redis is down"), "dependency_down", 503, True),
    (VivaError("nope", code="custom", status=418), "custom", 418, False),
    (InterviewError("conflict", "the session is busy; retry"), "conflict", 409, True),
    (InterviewError("ended", "the interview has ended"), "ended", 409, False),
    (InterviewError("not_found", "no session"), "not_found", 404, False),
    (JudgeError("unknown_problem", "no problem 'p'", "not_found"), "unknown_problem", 404,
     False),
    (JudgeError("code_too_large", "at most 64 KB", "too_large"), "code_too_large", 413, False),
    (JudgeError("judge_down", "no sandbox", "unavailable"), "judge_down", 503, True),
    (JudgeError("empty_code", "the code is empty"), "empty_code", 422, False),
    (VoiceInputError("bad_rate", "send 16000"), "bad_rate", 422, False),
]


@pytest.mark.parametrize(("exc", "code", "status", "retryable"), CASES)
def test_every_domain_error_maps_to_the_envelope(exc: AppError, code: str, status: int,
                                                 retryable: bool) -> None:
    assert isinstance(exc, AppError)
    assert (exc.code, exc.status, exc.retryable) == (code, status, retryable)
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/boom")
    async def boom() -> None:
        raise exc

    response = TestClient(app).get("/boom")
    assert response.status_code == status
    assert response.json() == {"error": {"code": code, "message": exc.message,
                                         "details": None}}
    assert ("Retry-After" in response.headers) == (retryable and status >= 500)
