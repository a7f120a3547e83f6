"""Failures on a connection are never silent: a failed reaction is an ``error`` event and the
reactor goes on; a dead tailer closes the socket with 1011 and a reason; both are logged with
the session id. The fakes subclass the real engine and event reader."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from agents.engine import InterviewEngine, InterviewError, StepResult
from store.event_fanout import EventFanout, Subscription
from tests.server.support import client, create_session, send, until

pytestmark = pytest.mark.slow


class ConflictOnceEngine(InterviewEngine):
    """The first judge result meets a conflict that outlasted the retries."""

    failed = False

    async def on_judge_result(self, session_id: str, result: dict[str, Any]) -> StepResult:
        if not ConflictOnceEngine.failed:
            ConflictOnceEngine.failed = True
            raise InterviewError("conflict", "the session is busy; retry")
        return await super().on_judge_result(session_id, result)


class BrokenFanout(EventFanout):
    def subscribe(self, session_id: str, after_seq: int) -> Subscription:
        raise RuntimeError("the event reader is broken")


def test_one_failed_reaction_does_not_end_judge_feedback(
        redis_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with client(redis_url, tmp_path, judge_enabled=True, judge_backend="bwrap",
                judge_in_process_worker=True) as c:
        c.app.state.engine.__class__ = ConflictOnceEngine  # type: ignore[attr-defined]
        s = create_session(c, rounds=["coding"])
        with caplog.at_level(logging.WARNING, logger="viva.ws"), \
                c.websocket_connect(f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            pid = next(e for e in until(ws, "question")
                       if e["type"] == "coding_task")["problem_id"]
            run = {"type": "submit", "problem_id": pid, "language": "python",
                   "code": "print(0)\n", "kind": "run"}
            send(ws, run)
            error = until(ws, "error", limit=100)[-1]
            assert error["code"] == "conflict" and error["seq"] > 0
            send(ws, run)
            got = until(ws, "feedback", limit=100)
            assert any(e["type"] == "judge_result" for e in got)
            assert "samples pass" in got[-1]["text"]
        assert any(s["session_id"] in r.getMessage() and "conflict" in r.getMessage()
                   for r in caplog.records)


def test_a_dead_tailer_closes_the_socket_with_1011(
        redis_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with client(redis_url, tmp_path) as c:
        c.app.state.fanout.__class__ = BrokenFanout  # type: ignore[attr-defined]
        s = create_session(c)
        with caplog.at_level(logging.ERROR, logger="viva.ws"), \
                c.websocket_connect(f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            got = until(ws, "error")
            assert got[-1]["code"] == "internal_error" and got[-1]["seq"] == 0
            assert "ws-tail" in got[-1]["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(50):
                    ws.receive_json()
            assert closed.value.code == 1011 and "ws-tail" in (closed.value.reason or "")
        assert any(f"session {s['session_id']}: ws-tail failed" in r.getMessage()
                   for r in caplog.records)
