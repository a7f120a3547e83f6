"""A server killed with SIGKILL loses nothing acknowledged; a new process resumes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from agents.engine import InterviewEngine
from agents.providers.rubric import RubricProvider
from agents.question_bank import load_question_bank
from agents.state import SelfRatings, SessionConfig
from tests.conftest import ROOT, free_port

BANK = load_question_bank()


class ServerProcess:
    def __init__(self, redis_url: str, data_dir: Path):
        self.port = free_port()
        env = {**os.environ, "REDIS_URL": redis_url, "VIVA_DATA_DIR": str(data_dir),
               "VIVA_JUDGE_ENABLED": "false", "VIVA_ENV": "test", "VIVA_LOG_LEVEL": "warning",
               "VIVA_VOICE_PRELOAD": "false"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--port", str(self.port)],
            cwd=ROOT, env=env)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code in (200, 503):
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.kill()
        raise AssertionError("server did not start")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)


def recv_until(ws: ClientConnection, kind: str) -> list[dict[str, Any]]:
    got = []
    while True:
        event = json.loads(ws.recv(timeout=15))
        got.append(event)
        if event["type"] == kind:
            return got


def reference_for(question_id: str) -> str:
    for q in BANK.questions.values():
        if q.id == question_id or any(f.id == question_id for f in q.followups):
            return q.reference_answer
    raise AssertionError(question_id)


@pytest.mark.slow
def test_sigkill_mid_interview_then_resume(redis_url: str, tmp_path: Path) -> None:
    first = ServerProcess(redis_url, tmp_path)
    try:
        body = {"candidate_id": "kill-test", "role": "backend", "mode": "text",
                "self_ratings": {"algorithms": 3, "engineering": 3, "projects": 3},
                "max_questions": 5}
        s = httpx.post(f"{first.url}/api/sessions", json=body).json()
        ws_path = f"/ws/sessions/{s['session_id']}?token={s['token']}"
        seen: list[dict[str, Any]] = []
        with connect(f"ws://127.0.0.1:{first.port}{ws_path}") as ws:
            ws.send(json.dumps({"type": "start"}))
            seen += recv_until(ws, "question")
            question = seen[-1]
            ws.send(json.dumps({"type": "answer",
                                "text": reference_for(question["question_id"])}))
            seen += recv_until(ws, "transcript_final")  # acknowledged
            first.kill()
    finally:
        if first.proc.poll() is None:
            first.kill()

    second = ServerProcess(redis_url, tmp_path)
    try:
        with connect(f"ws://127.0.0.1:{second.port}{ws_path}") as ws:
            last = seen[-1]["seq"]
            ws.send(json.dumps({"type": "resume", "after_seq": 0}))
            replay = recv_until(ws, "transcript_final")
            # Everything the client saw before the kill is still there, identical.
            assert replay[: len(seen)] == seen
            # The acknowledged answer was evaluated (before the kill or by recovery).
            after = recv_until(ws, "question")
            assert any(e["type"] == "feedback" for e in after)
            assert all(e["seq"] > last for e in after)
            next_q = after[-1]
            assert next_q["turn_id"] != question["turn_id"]
            ws.send(json.dumps({"type": "answer", "text": "I am not sure."}))
            more = recv_until(ws, "feedback")
            # A first "not sure" gets a hint (guidance), not yet the correction (issue 9).
            assert more[-1]["kind"] == "guidance"
        state = httpx.get(f"{second.url}/api/sessions/{s['session_id']}",
                          headers={"Authorization": f"Bearer {s['token']}"}).json()
        assert state["answered"] == 2
    finally:
        second.kill()


async def test_recover_evaluates_an_acknowledged_answer(aredis: Any) -> None:
    """The crash window between ack and evaluation: a new engine finishes the turn once."""
    config = SessionConfig(candidate_id="c", role="backend", mode="text",
                           self_ratings=SelfRatings(algorithms=3, engineering=3, projects=3))
    crashed = InterviewEngine(aredis, BANK, RubricProvider())
    state = await crashed.create(config)
    await crashed.start(state.session_id)
    turn = (await crashed.load(state.session_id)).current_turn
    assert turn is not None
    ack = await crashed.accept_answer(state.session_id, reference_for(turn.question_id))
    assert [e["type"] for e in ack.events] == ["transcript_final"]

    fresh = InterviewEngine(aredis, BANK, RubricProvider())
    recovered = await fresh.recover(state.session_id)
    assert [e["type"] for e in recovered.events][:2] == ["feedback", "question"]
    assert (await fresh.recover(state.session_id)).events == []  # exactly once
    after = await fresh.load(state.session_id)
    assert after.turns[0].score is not None and after.turns[0].answer
