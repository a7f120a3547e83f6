"""The judge's HTTP surface with the real router, error envelope, Redis and sandbox."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis
from fastapi import FastAPI

from judge.problems import ProblemRegistry, load_problem
from judge.service import JudgeService
from server.errors import install_error_handlers
from server.routes.judge_routes import router
from server.settings import Settings
from store import keys

from .conftest import write_problem

REVIEWER = "reviewer-token-for-tests-0123456789"
GOOD = "a, b = map(int, input().split())\nprint(a + b)\n"


@pytest.fixture
async def client(aredis: aioredis.Redis, tmp_path: Path):
    path = write_problem(tmp_path, [("sample", "1 2\n", "3\n"), ("hidden", "40 2\n", "42\n")],
                         pid="a-plus-b")
    problem = load_problem(path)
    judge = JudgeService(aredis, ProblemRegistry({problem.id: problem}), backend_choice="bwrap")
    await judge.get_backend(required=False)
    judge.start_worker()
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(router)
    app.state.judge, app.state.redis = judge, aredis
    app.state.settings = Settings(reviewer_token=REVIEWER)
    await aredis.hset(keys.session_meta("sess1"), mapping={"token": "tok1"})
    await aredis.set(keys.session_state("sess1"), "{}")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http
    await judge.aclose()


async def wait_done(client: httpx.AsyncClient, sid: str, token: str) -> dict:
    for _ in range(300):
        response = await client.get(f"/api/submissions/{sid}",
                                    headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 200
        if response.json()["status"] == "done":
            return response.json()
        import asyncio

        await asyncio.sleep(0.05)
    raise AssertionError("submission never finished")


async def test_submit_and_read_per_viewer(client: httpx.AsyncClient) -> None:
    auth = {"Authorization": "Bearer tok1"}
    response = await client.post("/api/sessions/sess1/submissions", headers=auth, json={
        "problem_id": "a-plus-b", "language": "python", "code": GOOD, "kind": "submit"})
    assert response.status_code == 202
    sid = response.json()["submission_id"]
    public = await wait_done(client, sid, "tok1")
    assert public["verdict"] == "AC" and public["passed"] == public["total"] == 2
    hidden = [c for c in public["cases"] if c["kind"] == "hidden"]
    assert hidden and "input" not in hidden[0] and "expected" not in hidden[0]
    assert "(hidden)" not in public["evidence_text"]  # nothing failed
    reviewer = await wait_done(client, sid, REVIEWER)
    assert [c for c in reviewer["cases"] if c["kind"] == "hidden"][0]["input"] == "40 2\n"


async def test_hidden_failures_stay_hidden(client: httpx.AsyncClient) -> None:
    auth = {"Authorization": "Bearer tok1"}
    code = "a, b = map(int, input().split())\nprint(3 if a == 1 else 0)\n"
    response = await client.post("/api/sessions/sess1/submissions", headers=auth, json={
        "problem_id": "a-plus-b", "language": "python", "code": code, "kind": "submit"})
    sid = response.json()["submission_id"]
    public = await wait_done(client, sid, "tok1")
    assert public["verdict"] == "WA"
    assert "40 2" not in public["evidence_text"] and "(hidden)" in public["evidence_text"]
    reviewer = await wait_done(client, sid, REVIEWER)
    assert "40 2" in reviewer["evidence_text"]


@pytest.mark.parametrize(("body", "status", "code"), [
    ({"problem_id": "a-plus-b", "language": "cobol", "code": GOOD}, 422, "unsupported_language"),
    ({"problem_id": "nope", "language": "python", "code": GOOD}, 404, "unknown_problem"),
    ({"problem_id": "a-plus-b", "language": "python", "code": "#" * 70000}, 413,
     "code_too_large"),
    ({"problem_id": "a-plus-b", "language": "python"}, 422, "invalid_input"),
    ({"problem_id": "a-plus-b", "language": "python", "code": GOOD, "kind": "x"}, 422,
     "invalid_input"),
])
async def test_bad_submissions(client: httpx.AsyncClient, body: dict, status: int,
                               code: str) -> None:
    response = await client.post("/api/sessions/sess1/submissions",
                                 headers={"Authorization": "Bearer tok1"}, json=body)
    assert response.status_code == status
    assert response.json()["error"]["code"] == code


async def test_auth(client: httpx.AsyncClient) -> None:
    body = {"problem_id": "a-plus-b", "language": "python", "code": GOOD}
    assert (await client.post("/api/sessions/sess1/submissions", json=body)).status_code == 401
    wrong = await client.post("/api/sessions/sess1/submissions", json=body,
                              headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403
    assert (await client.get("/api/submissions/xyz")).status_code == 401
    missing = await client.get("/api/submissions/xyz", headers={"Authorization": "Bearer tok1"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


async def test_problems_public_part(client: httpx.AsyncClient) -> None:
    listing = (await client.get("/api/problems")).json()["problems"]
    assert [p["id"] for p in listing] == ["a-plus-b"]
    problem = (await client.get("/api/problems/a-plus-b")).json()
    assert problem["samples"] == [{"id": "sample-1", "input": "1 2\n", "output": "3\n"}]
    assert "tests" not in problem and "40 2" not in str(problem)
    missing = await client.get("/api/problems/nope")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "unknown_problem"
