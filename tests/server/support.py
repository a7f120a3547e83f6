"""Helpers for server tests: an in-process app on real Redis, and a websocket driver."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from server.app import create_app
from server.settings import Settings

RATINGS = {"algorithms": 3, "engineering": 3, "projects": 3}


def make_settings(redis_url: str, data_dir: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"redis_url": redis_url, "data_dir": data_dir, "env": "test",
                              "judge_enabled": False, "reviewer_token": "reviewer-secret-xyz",
                              "voice_preload": False}
    values.update(overrides)
    return Settings(**values)


def client(redis_url: str, data_dir: Path, **overrides: Any) -> TestClient:
    return TestClient(create_app(make_settings(redis_url, data_dir, **overrides)))


def create_session(c: TestClient, **body: Any) -> dict[str, Any]:
    payload = {"candidate_id": "cand-1", "role": "backend engineer", "mode": "text",
               "self_ratings": RATINGS, "rounds": ["concepts"], "max_questions": 4}
    payload.update(body)
    r = c.post("/api/sessions", json=payload)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def until(ws: WebSocketTestSession, kind: str, limit: int = 50) -> list[dict[str, Any]]:
    """Receive events until one of ``kind`` arrives; return all received."""
    got: list[dict[str, Any]] = []
    for _ in range(limit):
        event = ws.receive_json()
        got.append(event)
        if event["type"] == kind:
            return got
    raise AssertionError(f"no {kind} event in {limit} events: {[e['type'] for e in got]}")


def send(ws: WebSocketTestSession, message: dict[str, Any]) -> None:
    ws.send_text(json.dumps(message))
