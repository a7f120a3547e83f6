"""Helpers for server tests: an in-process app on real Redis, and a websocket driver."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

import anyio
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from server.app import create_app
from server.settings import Settings

RATINGS = {"algorithms": 3, "engineering": 3, "projects": 3}
REVIEWER_TOKEN = "reviewer-secret-xyz"  # the in-process apps' (make_settings)
# /metrics is the operator's: the in-process apps take their reviewer token for it.
METRICS_AUTH = {"authorization": f"Bearer {REVIEWER_TOKEN}"}


def make_settings(redis_url: str, data_dir: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"redis_url": redis_url, "data_dir": data_dir, "env": "test",
                              "judge_enabled": False, "reviewer_token": REVIEWER_TOKEN,
                              "voice_preload": False}
    values.update(overrides)
    return Settings(**values)


def client(redis_url: str, data_dir: Path, **overrides: Any) -> TestClient:
    return TestClient(create_app(make_settings(redis_url, data_dir, **overrides)))


# Candidate keys the server issued, per client: a test's later sessions of the same
# candidate join that candidate's progress, as a browser's do (server/candidate_keys.py).
_CANDIDATE_KEYS: WeakKeyDictionary[TestClient, dict[str, str]] = WeakKeyDictionary()


def create_session(c: TestClient, **body: Any) -> dict[str, Any]:
    payload = {"candidate_id": "cand-1", "role": "backend engineer", "mode": "text",
               "self_ratings": RATINGS, "rounds": ["concepts"], "max_questions": 4}
    payload.update(body)
    held = _CANDIDATE_KEYS.setdefault(c, {})
    if "candidate_key" not in body and payload["candidate_id"] in held:
        payload["candidate_key"] = held[payload["candidate_id"]]
    r = c.post("/api/sessions", json=payload)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    if out.get("candidate_key"):
        held[payload["candidate_id"]] = out["candidate_key"]
    return out


RECEIVE_TIMEOUT_S = 90.0  # a loaded CI machine grades slowly; a lost event fails, never hangs


def receive_json(ws: WebSocketTestSession, timeout_s: float = RECEIVE_TIMEOUT_S) -> Any:
    """The next event, or ``TimeoutError`` after ``timeout_s``: starlette's own
    ``receive_json`` waits forever, so a flow that went another way hung a test for the
    whole suite's timeout."""

    async def receive() -> Any:
        with anyio.fail_after(timeout_s):
            return await ws._send_rx.receive()  # starlette's receive(), with a deadline

    message = ws.portal.call(receive)
    ws._raise_on_close(message)
    return json.loads(message["text"])


def until(ws: WebSocketTestSession, kind: str, limit: int = 50) -> list[dict[str, Any]]:
    """Receive events until one of ``kind`` arrives; return all received."""
    got: list[dict[str, Any]] = []
    for _ in range(limit):
        try:
            event = receive_json(ws)
        except TimeoutError:
            raise AssertionError(f"no {kind} event within {RECEIVE_TIMEOUT_S:.0f} s; got "
                                 f"{[e['type'] for e in got]}") from None
        got.append(event)
        if event["type"] == kind:
            return got
    raise AssertionError(f"no {kind} event in {limit} events: {[e['type'] for e in got]}")


def answer_until_end(ws: WebSocketTestSession, answers: Iterable[str], *,
                     waiting: bool = False, then: str = "I would have to look that up.",
                     reply: Callable[[dict[str, Any]], str] | None = None,
                     max_answers: int = 8) -> list[dict[str, Any]]:
    """Answer each question as it comes (``answers`` in order, then ``then``) until the
    session ends; every event received. ``waiting``: a question already received is still
    unanswered. A follow-up or a hint the grader chose is answered too, so a test does not
    depend on which way the interviewer went. ``reply``: the answer to a question event,
    once ``answers`` are used (instead of ``then``)."""
    queue = list(answers)
    got: list[dict[str, Any]] = []
    sent = 0
    question: dict[str, Any] = {}
    while True:
        if waiting:
            if sent == max_answers:
                raise AssertionError(f"the session did not end after {sent} answers")
            text = queue.pop(0) if queue else reply(question) if reply and question else then
            send(ws, {"type": "answer", "text": text})
            sent, waiting = sent + 1, False
        event = receive_json(ws)
        got.append(event)
        if event["type"] == "session_end":
            return got
        if event["type"] == "question":
            question, waiting = event, True


def send(ws: WebSocketTestSession, message: dict[str, Any]) -> None:
    ws.send_text(json.dumps(message))
