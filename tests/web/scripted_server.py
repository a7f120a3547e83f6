"""A scripted stand-in for the interview server, for UI tests only.

It serves the real built app through the real pages router and speaks the contract's
websocket protocol with fixed, predictable replies — built from the server's own event models
(core/events.py) and validated against them, so it cannot send a field the real server never
sends — so a test can drive exact situations the
live engine produces only by chance: a dropped connection mid-interview, barge-in during
speech, a compile error on a known line, a wrong answer on a sample. It records everything the
browser sends. The end-to-end tests (test_web_e2e.py) use the real server instead.
"""

from __future__ import annotations

import asyncio
import json
import math
import struct
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse

from core.events import (
    CaseView,
    CodingTaskEvent,
    CompileInfo,
    ErrorEvent,
    Event,
    FeedbackEvent,
    JudgeCaseEvent,
    JudgeResultEvent,
    QuestionEvent,
    SessionEndEvent,
    StateEvent,
    SubmissionQueuedEvent,
    TranscriptFinalEvent,
    TtsEndEvent,
    TtsStartEvent,
    parse_event,
    wire,
)
from server.errors import install_error_handlers
from server.routes import pages
from tests.conftest import free_port

TOKEN = "scripted-token"
TEMPLATES = {
    "python": ("import sys\n\ndef main():\n    a, b = map(int, sys.stdin.read().split())\n"
               "    # your code\n\nmain()\n"),
    "c": "#include <stdio.h>\n\nint main(void) {\n    return 0;\n}\n",
    "cpp": "#include <iostream>\n\nint main() {\n    return 0;\n}\n",
    "java": "public class Main {\n    public static void main(String[] args) {\n    }\n}\n",
    "go": "package main\n\nfunc main() {\n}\n",
    "javascript": "const input = require('fs').readFileSync(0, 'utf8');\n",
}
CODING_TASK = CodingTaskEvent.model_validate({
    "problem_id": "a-plus-b", "title": "A plus B",
    "statement": "Read two integers, print their sum.\n\nUse `int` arithmetic.",
    "templates": TEMPLATES,
    "samples": [{"input": "1 2\n", "output": "3\n"}, {"input": "-5 5\n", "output": "0\n"}],
})
CLOSING_WORDS = "That is the end of our interview. Thank you. Your full report is ready."
CLOSING_S = 2.0  # seconds of closing speech: sent at once, it plays in real time
TRACEBACK = ('Traceback (most recent call last):\n  File "/work/main.py", line 3, in <module>\n'
             "    print(a // 0)\n          ~~^^~~\nZeroDivisionError: integer division or "
             "modulo by zero\n")


def tone_pcm16(seconds: float, rate: int = 22050, hz: float = 220.0) -> bytes:
    n = int(seconds * rate)
    return b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * hz * i / rate)))
                    for i in range(n))


@dataclass
class Script:
    """Everything recorded and the events sent, so a resume can replay after any seq."""

    events: list[dict[str, Any]] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)
    binary_frames: int = 0
    binary_bytes: int = 0
    audio: bytearray = field(default_factory=bytearray)
    violations: list[str] = field(default_factory=list)
    connections: int = 0
    socket: WebSocket | None = None
    submissions: int = 0
    tickets: set[str] = field(default_factory=set)  # issued, not yet used
    tickets_issued: int = 0
    # The closing words after session_end: when their audio was all sent, and when the page
    # then closed its socket (monotonic seconds).
    closing_sent_at: float | None = None
    closed_at: float | None = None

    def kinds(self) -> list[str]:
        return [m.get("type", "?") for m in self.received]


class ScriptedServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.script = Script()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.app = self._build()
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning",
                                ws_max_size=1 << 20)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("scripted server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    # -- test controls (called from the test thread) ------------------------------------

    def call(self, coro: Any) -> Any:
        assert self.loop is not None, "no websocket connected yet"
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=10)

    def drop_connection(self) -> None:
        """Closes the socket the way a network drop would (abnormal, retryable)."""
        async def drop() -> None:
            if self.script.socket is not None:
                await self.script.socket.close(code=1012)
        self.call(drop())

    def push(self, *events: Event | dict[str, Any]) -> None:
        async def push() -> None:
            for event in events:
                await self._emit(event)
        self.call(push())

    def speak(self, turn_id: str, seconds: float) -> None:
        self.call(self._speak(turn_id, seconds, end=False))

    # -- the protocol -------------------------------------------------------------------

    async def _emit(self, event: Event | dict[str, Any], live: bool = True) -> None:
        body = wire(event) if isinstance(event, Event) else dict(event)
        event = {**body, "seq": len(self.script.events) + 1,
                 "t_ms": len(self.script.events) * 500}
        parse_event(event)  # the real server's schema, strictly: a stray field fails here
        self.script.events.append(event)
        if live and self.script.socket is not None:
            await self.script.socket.send_text(json.dumps(event))

    async def _speak(self, turn_id: str, seconds: float, end: bool = True) -> None:
        await self._emit(TtsStartEvent(turn_id=turn_id, sample_rate=22050))
        pcm = tone_pcm16(seconds)
        ws = self.script.socket
        assert ws is not None
        # Odd-sized chunks on purpose: the player must carry half a sample across chunks.
        for i in range(0, len(pcm), 4411):
            await ws.send_bytes(pcm[i:i + 4411])
        if end:
            await self._emit(TtsEndEvent(turn_id=turn_id))

    async def _on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "start" and not self.script.events:
            await self._emit(StateEvent(phase="warmup"))
            await self._emit(QuestionEvent(text="Tell me about a hash table.",
                                           question_id="q1", phase="warmup", turn_id="t1"))
            await self._speak("t1", 0.6)
        elif kind == "answer":
            text = str(message.get("text", ""))
            await self._emit(TranscriptFinalEvent(text=text, turn_id="t1"))
            await self._emit(FeedbackEvent(kind="guidance",
                                           text="Good start; say more about collisions."))
            await self._emit(StateEvent(phase="coding"))
            await self._emit(QuestionEvent(text="Now solve A plus B.", question_id="a-plus-b",
                                           phase="coding", turn_id="t2"))
            await self._emit(CODING_TASK)
        elif kind == "submit":
            await self._judge(message)
        elif kind == "end":
            # As the real server does: the closing words are recorded first, session_end
            # follows, and their speech is streamed after it.
            await self._emit(FeedbackEvent(kind="comment", final=True, text=CLOSING_WORDS))
            await self._emit(SessionEndEvent(report_url="/sessions/s-1/report"))
            await self._emit(StateEvent(phase="ended"))
            await asyncio.sleep(0.3)  # synthesis of the first sentence
            await self._speak("t-closing", CLOSING_S)
            self.script.closing_sent_at = time.monotonic()

    async def _judge(self, message: dict[str, Any]) -> None:
        self.script.submissions += 1
        sid = f"sub-{self.script.submissions}"
        code = str(message.get("code", ""))
        kind = "run" if message.get("kind") == "run" else "submit"
        language = message.get("language")
        await self._emit(SubmissionQueuedEvent(submission_id=sid, kind=kind,
                                               problem_id="a-plus-b", language=language))
        common = {"submission_id": sid, "status": "done", "revision": self.script.submissions,
                  "evidence_text": "", "kind": kind, "language": language}
        if "SYNTAX" in code:
            log = ('  File "/work/main.py", line 2\n    print(a +\n           ^\n'
                   "SyntaxError: '(' was never closed\n")
            await self._emit(JudgeResultEvent(
                **common, verdict="CE", passed=0, total=2,
                compile=CompileInfo(ok=False, log=log), cases=[], diff=None))
            return
        wrong, crash = "WRONG" in code, "CRASH" in code
        failing = "RE" if crash else "WA" if wrong else "AC"
        cases = [("s1", "sample", "AC"), ("s2", "sample", failing)]
        if kind == "submit":
            cases += [("h1", "hidden", "AC"), ("p1", "performance", "AC")]
        results: list[CaseView] = []
        for case_id, case_kind, verdict in cases:
            await asyncio.sleep(0.15)
            await self._emit(JudgeCaseEvent(submission_id=sid, case_id=case_id,
                                            kind=case_kind, verdict=verdict, time_ms=12,
                                            memory_kb=3400))
            full = CaseView(id=case_id, kind=case_kind, verdict=verdict,
                            time_ms=12, memory_kb=3400)
            if case_id == "s2":
                full = full.model_copy(update={"input": "-5 5\n", "expected": "0\n",
                                               "actual": "0\n"})
                if wrong:
                    full = full.model_copy(update={
                        "actual": "-10\n", "checker_message": "line 1: expected '0', got '-10'"})
                if crash:
                    full = full.model_copy(update={
                        "actual": "partial\n", "stderr": TRACEBACK, "exit_code": 1,
                        "error": TRACEBACK.strip().splitlines()[-1]})
            results.append(full)
        passed = sum(1 for r in results if r.verdict == "AC")
        await self._emit(JudgeResultEvent(
            **common, verdict=failing, passed=passed, total=len(results),
            compile=CompileInfo(ok=True, log=""), cases=results,
            diff="--- rev\n+++ rev\n@@ -1 +1 @@\n-old\n+new\n"))

    def _build(self) -> FastAPI:
        app = FastAPI()
        install_error_handlers(app)
        app.include_router(pages.router)

        @app.post("/api/sessions", status_code=201)
        async def create(body: dict[str, Any]) -> JSONResponse:
            if not body.get("candidate_id"):
                error = {"code": "invalid_input",
                         "message": "The request body is invalid; see details.",
                         "details": [{"loc": ["body", "candidate_id"], "msg": "Field required"}]}
                return JSONResponse({"error": error}, status_code=422)
            self.script.received.append({"type": "http_create", **body})
            return JSONResponse({"session_id": "s-1", "token": TOKEN,
                                 "ws_url": "ws://0.0.0.0:1/ws/sessions/s-1?ticket=first"},
                                status_code=201)

        @app.post("/api/sessions/{session_id}/ticket", status_code=201)
        async def ticket(session_id: str, request: Request) -> JSONResponse:
            # As the real server: the token only in the Authorization header, a ticket
            # good for one connection.
            if request.headers.get("authorization") != f"Bearer {TOKEN}":
                error = {"code": "unauthorized", "message": "bad token"}
                return JSONResponse({"error": error}, status_code=401)
            self.script.tickets_issued += 1
            value = f"ticket-{self.script.tickets_issued}"
            self.script.tickets.add(value)
            return JSONResponse({"ticket": value, "expires_in_s": 60}, status_code=201)

        @app.websocket("/ws/sessions/{session_id}")
        async def socket(ws: WebSocket, session_id: str) -> None:
            await ws.accept()
            if "token" in ws.query_params:
                self.script.violations.append("a token in the websocket URL")
            ticket = ws.query_params.get("ticket", "")
            if ticket not in self.script.tickets:
                await ws.send_text(json.dumps(wire(ErrorEvent(code="unauthorized",
                                                              message="bad token", seq=0))))
                await ws.close(code=1008)
                return
            self.script.tickets.discard(ticket)  # single use
            self.loop = asyncio.get_running_loop()
            self.script.connections += 1
            self.script.socket = ws
            configured = False
            try:
                while True:
                    message = await ws.receive()
                    if message["type"] == "websocket.disconnect":
                        return
                    if message.get("bytes") is not None:
                        if not configured:
                            self.script.violations.append("audio before audio_config")
                        self.script.binary_frames += 1
                        self.script.binary_bytes += len(message["bytes"])
                        self.script.audio += message["bytes"]
                        continue
                    data = json.loads(message["text"])
                    self.script.received.append(data)
                    configured = configured or data.get("type") == "audio_config"
                    if data.get("type") == "resume":
                        for event in self.script.events:
                            if event["seq"] > int(data.get("after_seq", 0)):
                                await ws.send_text(json.dumps(event))
                        continue
                    await self._on_message(data)
            except WebSocketDisconnect:
                return
            finally:
                self.script.closed_at = time.monotonic()
                if self.script.socket is ws:
                    self.script.socket = None

        return app
