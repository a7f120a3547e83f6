"""The websocket endpoint: one connection = a receiver, a tailer and a reactor task.

- The receiver parses and routes client messages (the only place JSON is read).
- The tailer follows the session's Redis event stream through the process's one event
  reader (``store.event_fanout``), so events written by any process (a judge worker, another
  app process) reach the client in seq order without holding a Redis connection per socket.
- The reactor turns some events into interview steps (a finished submission → the
  interviewer talks about it), one at a time.
The tailer and the reactor are owned by a ``core.tasks.Supervisor``: a failure is logged with
the session id and surfaced — a failed reaction becomes an ``error`` event and the reactor
goes on; a dead tailer closes the socket with 1011 and a reason, so the client reconnects and
resumes instead of waiting for events that will never come.
Events this process produces are committed to the stream first and then flushed, so the
client never sees an event that a restart could lose, and a reconnect replays from seq.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import redis.exceptions
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ValidationError
from starlette.websockets import WebSocketState

from agents.coding_hints import IdleClock, IdleHints, MonotonicIdleClock
from agents.engine import InterviewEngine, InterviewError, StepResult
from agents.state import Phase
from core.errors import AppError
from core.events import (
    CodeChangeEvent,
    ErrorEvent,
    Event,
    SubmissionQueuedEvent,
    to_client,
    wire,
)
from core.tasks import Supervisor
from server.deps import check_session_token, header_token
from server.errors import Forbidden, Unauthorized
from server.metrics import Metrics
from server.rate_limit import TokenBucket
from server.settings import Settings
from server.tickets import TICKET_PARAM, redeem_ticket
from server.ws_messages import (
    KNOWN_TYPES,
    Answer,
    AudioConfig,
    ClientMessage,
    CodeChange,
    End,
    EndTurn,
    MessageLimits,
    Resume,
    Start,
    Submit,
    client_message,
)
from store.event_fanout import EventFanout, FanoutClosed, Lagged
from store.events import EventLog
from store.redis_pool import describe_redis_error

log = logging.getLogger("viva.ws")
CLOSE_WITHIN_S = 10.0  # a close that hangs must not hold the connection's task forever
router = APIRouter()

CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_INTERNAL = 1011
CLOSE_TRY_LATER = 1013


def unrecorded_error(code: str, message: str) -> dict[str, Any]:
    """An error sent without recording it (no session yet, Redis down): ``seq`` 0."""
    return wire(ErrorEvent(code=code, message=message, seq=0))


class Connection:
    """Implements ``realtime.ports.Outbox`` for one client."""

    def __init__(self, ws: WebSocket, session_id: str, events: EventLog,
                 metrics: Metrics | None = None):
        self.ws = ws
        self.session_id = session_id
        self.events = events
        self.metrics = metrics
        self.last_sent = 0
        self.lock = asyncio.Lock()
        self.closed = False

    async def _send_json(self, event: dict[str, Any]) -> None:
        if self.closed or self.ws.application_state != WebSocketState.CONNECTED:
            return
        # Every frame passes the event models, replays of recorded events included.
        data, problem = to_client(event)
        if problem is not None:
            log.error("session %s: event seq %s does not match the event schema: %s",
                      self.session_id, event.get("seq"), problem)
        try:
            await self.ws.send_text(json.dumps(data, separators=(",", ":")))
        except (WebSocketDisconnect, RuntimeError):
            self.closed = True

    async def flush_until(self, seq: int | None = None) -> list[dict[str, Any]]:
        """Send every recorded event after ``last_sent`` (up to ``seq``), in order."""
        async with self.lock:
            if seq is not None and seq <= self.last_sent:
                return []
            batch = await self.events.range(self.session_id, self.last_sent, seq)
            for event in batch:
                await self._send_json(event)
                self.last_sent = event["seq"]
            return batch

    async def deliver(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Send events the fanout handed over (seq order); what is already sent is skipped,
        and a gap is filled from the stream, so each event goes out exactly once."""
        sent: list[dict[str, Any]] = []
        async with self.lock:
            for event in events:
                if event["seq"] <= self.last_sent:
                    continue
                if event["seq"] != self.last_sent + 1:
                    break
                await self._send_json(event)
                self.last_sent = event["seq"]
                sent.append(event)
            else:
                return sent
        return sent + await self.flush_until(events[-1]["seq"])

    async def send_event(self, event: Event) -> dict[str, Any]:
        recorded = await self.events.append(self.session_id, event)
        await self.flush_until(recorded["seq"])
        return recorded

    async def send_audio(self, pcm: bytes) -> None:
        async with self.lock:
            if self.closed or self.ws.application_state != WebSocketState.CONNECTED:
                return
            try:
                await self.ws.send_bytes(pcm)
            except (WebSocketDisconnect, RuntimeError):
                self.closed = True

    async def error(self, code: str, message: str) -> None:
        if self.metrics is not None:
            self.metrics.errors.inc(code=code, where="ws")
        try:
            await self.send_event(ErrorEvent(code=code, message=message))
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
            await self.send_unrecorded_error(code, message, count=False)

    async def refuse(self, exc: AppError) -> None:
        """The one mapping of a domain error (any ``AppError``) to a websocket ``error``."""
        await self.error(exc.code, exc.message)

    async def send_unrecorded_error(self, code: str, message: str, *,
                                    count: bool = True) -> None:
        """An error that is not recorded (Redis is down, or a refused frame): seq 0 marks it."""
        if count and self.metrics is not None:
            self.metrics.errors.inc(code=code, where="ws")
        async with self.lock:
            await self._send_json(unrecorded_error(code, message))


class SessionLink:
    """Routes one connection's messages to the engine, the voice pipeline and the judge."""

    def __init__(self, ws: WebSocket, session_id: str, settings: Settings,
                 engine: InterviewEngine, app_state: Any):
        self.ws = ws
        self.session_id = session_id
        self.settings = settings
        self.engine = engine
        self.app_state = app_state
        self.metrics: Metrics | None = getattr(app_state, "metrics", None)
        self.conn = Connection(ws, session_id, engine.events, self.metrics)
        self.reactions: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.voice: Any = None  # realtime.voice_session.VoiceSession when in voice mode
        self.stages = Supervisor(f"session {session_id}", on_failure=self._stage_failed,
                                 logger=log)
        self.step_lock = asyncio.Lock()
        # The tailer waits for the client to say where it is (start = from the beginning,
        # resume = after its last seq), so a reconnect never gets events twice.
        self.following = asyncio.Event()
        # Text frames per connection; a flood is refused without writing anything to Redis.
        self.text_rate = TokenBucket(settings.ws_messages_per_s, settings.ws_messages_burst)
        self.message_limits = MessageLimits(max_answer_chars=settings.max_answer_chars,
                                            max_code_bytes=settings.max_code_bytes)
        self.last_refusal_notice = -1.0
        self.handlers: dict[type[BaseModel], Callable[[Any], Awaitable[None]]] = {
            Start: self.on_start, Resume: self.on_resume, Answer: self.on_answer,
            End: self.on_end, AudioConfig: self.on_audio_config, EndTurn: self.on_end_turn,
            CodeChange: self.on_code_change, Submit: self.submit,
        }
        # Audio bytes a second, set by audio_config from its sample rate.
        self.audio_rate: TokenBucket | None = None
        self.last_frame_notice = -1.0  # binary frames refused: one notice a second
        # The coding round's idle hint: edits, submissions, answers and speech are activity.
        self.idle_clock: IdleClock = (getattr(app_state, "idle_clock", None)
                                      or MonotonicIdleClock())
        self.idle = IdleHints(settings.coding_hint_idle_s, self.idle_clock.now())
        self.voiced_seen = 0  # the voice's count of voiced frames at the last check

    # -- outgoing ---------------------------------------------------------------------

    async def publish(self, result: StepResult) -> None:
        if result.events:
            sent = await self.conn.flush_until(result.events[-1]["seq"])
            self._react(sent)
        if result.spoken and self.voice is not None:
            await self._update_voice_context()
            await self.voice.speak(result.spoken, result.speak_turn_id or "")

    def _react(self, events: list[dict[str, Any]], *, replay: bool = False) -> None:
        for e in events:
            if e.get("type") in ("judge_result", "complexity_measured"):
                self.reactions.put_nowait(e)
            elif e.get("type") == "transcript_final" and not replay and self.metrics:
                self.metrics.turns.inc()
            elif e.get("type") == "session_end" and not replay:
                self._archive()

    def _archive(self, only_ended: bool = False) -> None:
        archiver = getattr(self.app_state, "archiver", None)
        if archiver is not None:
            archiver.request(self.session_id, only_ended=only_ended)

    async def tail(self) -> None:
        """Follow the session through the process's event reader (no connection of its own)."""
        await self.following.wait()
        fanout: EventFanout = self.app_state.fanout
        try:
            subscription = fanout.subscribe(self.session_id, self.conn.last_sent)
        except FanoutClosed:
            return
        with subscription:
            while not self.conn.closed:
                try:
                    item = await subscription.get()
                except FanoutClosed:
                    return
                await self._forward(item)

    async def _forward(self, item: list[dict[str, Any]] | Lagged) -> None:
        """Send what the reader handed over; a catch-up read waits out a Redis outage."""
        while not self.conn.closed:
            try:
                if isinstance(item, Lagged):
                    sent = await self.conn.flush_until(item.until_seq)
                else:
                    sent = await self.conn.deliver(item)
                self._react(sent)
                return
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                await asyncio.sleep(1.0)  # Redis is down: keep the socket, retry

    async def react(self) -> None:
        while True:
            event = await self.reactions.get()
            try:
                async with self.step_lock:
                    result = await self.engine.on_judge_result(self.session_id, event)
                await self.publish(result)
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
                code, message = describe_redis_error(exc)
                await self.conn.send_unrecorded_error(
                    code, f"{message} The result will be discussed when it is back.")
            except AppError as exc:
                # e.g. a conflict that outlasted the retries: this result is not discussed,
                # the next one is (the reactor goes on).
                log.warning("session %s: no feedback on submission %s: %s %s",
                            self.session_id, event.get("submission_id"), exc.code,
                            exc.message)
                await self.conn.error(exc.code, "the interviewer could not discuss this "
                                                f"result: {exc.message}")
            except Exception:
                log.exception("session %s: feedback on submission %s failed",
                              self.session_id, event.get("submission_id"))
                await self.conn.error("internal_error", "the interviewer could not discuss "
                                                        "this result; the evidence is shown")

    def active(self) -> None:
        """The candidate did something (edited, submitted, answered): a new idle stretch."""
        self.idle.activity(self.idle_clock.now())

    async def watch_idle(self) -> None:
        """Offer the next hint to a candidate who has gone quiet while coding: no edit,
        submission, answer or speech for ``coding_hint_idle_s``, once per such stretch (the
        engine says nothing outside the coding round). Time is the injected clock's."""
        while True:
            await self.idle_clock.tick()
            now = self.idle_clock.now()
            heard = self.voice.voiced_frames if self.voice is not None else 0
            if heard != self.voiced_seen:  # they spoke (an answer may not have ended yet)
                self.voiced_seen = heard
                self.idle.activity(now)
            if not self.idle.due(now):
                continue
            try:
                async with self.step_lock:
                    result = await self.engine.offer_hint(self.session_id)
                await self.publish(result)
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
                    AppError) as exc:
                # A missed offer is no loss: the candidate can still ask for the hint.
                log.warning("session %s: no idle hint: %s", self.session_id, exc)

    async def _stage_failed(self, name: str, exc: BaseException) -> None:
        """Surface a dead stage (it is already logged with the session id)."""
        if name == "ws-idle-hint":
            return  # the interview goes on without unasked hints (they can be asked for)
        if name == "ws-react":
            await self.conn.error("internal_error", "the interviewer stopped reacting to "
                                                    "results and is restarting")
            return
        reason = f"internal error: {name} failed ({type(exc).__name__})"
        await self.conn.send_unrecorded_error("internal_error",
                                              f"{reason}; reconnect to resume the interview")
        self.conn.closed = True
        if self.ws.application_state == WebSocketState.CONNECTED:
            try:
                await self.ws.close(code=CLOSE_INTERNAL, reason=reason[:120])
            except (WebSocketDisconnect, RuntimeError):
                pass

    async def _update_voice_context(self) -> None:
        if self.voice is None:
            return
        state = await self.engine.load(self.session_id)
        turn = state.current_turn
        terms: list[str] = []
        if turn is not None and turn.question_id in self.engine.bank.questions:
            q = self.engine.bank.get(turn.question_id)
            terms = q.key_terms[:20]
        self.voice.set_context(phase=state.phase.value,
                               question_text=turn.text if turn else None, key_terms=terms,
                               turn_id=turn.turn_id if turn else None,
                               hard=turn is not None and turn.difficulty.value == "hard")

    # -- incoming ---------------------------------------------------------------------

    async def run(self) -> None:
        self.stages.spawn(self.tail, "ws-tail")
        self.stages.spawn(self.react, "ws-react", restarts=3)
        self.stages.spawn(self.watch_idle, "ws-idle-hint", restarts=3)
        try:
            while True:
                message = await self.ws.receive()
                if message["type"] == "websocket.disconnect":
                    return
                if message.get("bytes") is not None:
                    await self.on_binary(message["bytes"])
                elif message.get("text") is not None:
                    await self.on_text(message["text"])
        finally:
            self.conn.closed = True
            # If the connection's own task is cancelled (the server dropping it), the close
            # still finishes inside it, so what was said reaches the recording and the
            # archive. The handler then simply ends: it is the top of the connection's task
            # and the server is already done with it.
            closing = asyncio.ensure_future(self._close())
            deadline = time.monotonic() + CLOSE_WITHIN_S
            while not closing.done() and time.monotonic() < deadline:
                try:
                    await asyncio.wait({closing}, timeout=deadline - time.monotonic())
                except asyncio.CancelledError:
                    log.debug("session %s: connection cancelled while closing", self.session_id)
            if not closing.done():
                log.error("session %s: closing took over %.0f s; abandoned", self.session_id,
                          CLOSE_WITHIN_S)
                closing.cancel()
            elif closing.exception() is not None:
                log.error("session %s: closing failed", self.session_id,
                          exc_info=closing.exception())

    async def _close(self) -> None:
        await self.stages.aclose()
        if self.voice is not None:
            await self.voice.aclose()
        self._archive(only_ended=True)  # what was said after session_end is in it too

    async def on_text(self, text: str) -> None:
        if not self.text_rate.take():
            # Dropped, not queued, nothing written to Redis; at most one (unrecorded)
            # notice a second, so a flood is not echoed back frame for frame.
            now = time.monotonic()
            if self.last_refusal_notice < 0 or now - self.last_refusal_notice >= 1.0:
                self.last_refusal_notice = now
                await self.conn.send_unrecorded_error(
                    "rate_limited", f"too many messages: at most "
                    f"{self.settings.ws_messages_per_s:g} a second (bursts of "
                    f"{self.settings.ws_messages_burst}); messages are being dropped, "
                    "slow down")
            return
        if len(text.encode()) > self.settings.max_ws_text_bytes:
            await self.conn.error("too_large", f"text frames are limited to "
                                               f"{self.settings.max_ws_text_bytes} bytes")
            return
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            await self.conn.error("malformed_json", f"frame is not JSON: {exc.msg}")
            return
        if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
            await self.conn.error("invalid_message", "a message is a JSON object with a "
                                                     "string 'type'")
            return
        if raw["type"] not in KNOWN_TYPES:
            await self.conn.error("unknown_type", f"unknown message type {raw['type']!r}; "
                                                  f"expected one of {sorted(KNOWN_TYPES)}")
            return
        try:
            msg = client_message.validate_python(raw, context=self.message_limits)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first.get("loc", ())[1:])
            await self.conn.error("invalid_message",
                                  f"{raw['type']}: {where or 'message'}: {first.get('msg')}")
            return
        try:
            await self.dispatch(msg)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
            # Nothing was committed, so nothing is lost; the client may retry the message.
            code, message = describe_redis_error(exc)
            await self.conn.send_unrecorded_error(
                code, f"This message was not accepted: {message}")
        except AppError as exc:
            await self.conn.refuse(exc)
        except Exception:
            # A bug, not the client's fault: logged with the session, refused with a code,
            # and the connection goes on (what was committed before the failure stands).
            log.exception("session %s: %s message failed", self.session_id, raw["type"])
            await self.conn.error("internal_error", f"the server failed on this "
                                                    f"{raw['type']!r} message; try again")

    async def dispatch(self, msg: ClientMessage) -> None:
        """Route a validated message to its handler (one per client message type)."""
        await self.handlers[type(msg)](msg)

    async def on_start(self, msg: Start) -> None:
        t0 = time.perf_counter()
        self.following.set()
        async with self.step_lock:
            result = await self.engine.recover(self.session_id)
            started = await self.engine.start(self.session_id)
        await self.conn.flush_until()
        if self.metrics is not None and started.events:
            self.metrics.start_latency.observe(time.perf_counter() - t0)
        state = await self.engine.load(self.session_id)
        if state.config.mode == "voice":
            await self._ensure_voice()
        await self.publish(result)
        spoken = started.spoken or ([state.current_turn.text]
                                    if state.current_turn and not started.events else [])
        await self.publish(StepResult(started.events, spoken, started.speak_turn_id))

    async def on_resume(self, msg: Resume) -> None:
        async with self.conn.lock:
            self.conn.last_sent = min(msg.after_seq, await self.engine.events.last_seq(
                self.session_id))
        self.following.set()
        async with self.step_lock:
            result = await self.engine.recover(self.session_id)
        sent = await self.conn.flush_until()
        self._react(sent, replay=True)
        await self.publish(result)

    async def on_answer(self, msg: Answer) -> None:
        t0 = time.perf_counter()
        self.active()
        async with self.step_lock:
            result = await self.engine.answer(self.session_id, msg.text)
        await self.publish(result)
        if self.metrics is not None:
            self.metrics.answer_latency.observe(time.perf_counter() - t0)

    async def on_end(self, msg: End) -> None:
        async with self.step_lock:
            result = await self.engine.end(self.session_id)
        await self.publish(result)

    async def on_audio_config(self, msg: AudioConfig) -> None:
        voice = await self._ensure_voice()
        await self._voice_call(voice.configure(msg.sample_rate, msg.encoding))
        self.audio_rate = audio_bucket(self.settings, min(max(msg.sample_rate, 8000), 48000))
        await self._update_voice_context()

    async def on_end_turn(self, msg: EndTurn) -> None:
        if self.voice is None:
            raise InterviewError("no_audio", "send audio_config before ending a spoken turn")
        await self.voice.end_turn()

    async def on_code_change(self, msg: CodeChange) -> None:
        self.active()  # typing is never idle: no unasked hint meanwhile
        if self.voice is not None:
            self.voice.note_activity()  # typing holds the floor: no end of turn meanwhile
        await self.conn.send_event(CodeChangeEvent(problem_id=msg.problem_id,
                                                   language=msg.language, code=msg.code))

    async def submit(self, msg: Submit) -> None:
        self.active()
        judge = getattr(self.app_state, "judge", None)
        if judge is None:
            raise InterviewError("judge_unavailable", "the code judge is not running here")
        state = await self.engine.load(self.session_id)
        if state.phase == Phase.ended:
            raise InterviewError("ended", "the interview has ended")
        submission_id = await judge.enqueue(self.session_id, msg.problem_id, msg.language,
                                            msg.code, msg.kind)
        await self.conn.send_event(SubmissionQueuedEvent(
            submission_id=submission_id, kind=msg.kind, problem_id=msg.problem_id,
            language=msg.language))

    # -- voice ------------------------------------------------------------------------

    async def _ensure_voice(self) -> Any:
        if self.voice is not None:
            return self.voice
        loader = getattr(self.app_state, "voice_loader", None)
        if loader is None:
            raise InterviewError("voice_unavailable", "voice is not available on this server; "
                                                      "use text answers")
        try:
            services = await loader.get()
        except Exception as exc:
            raise InterviewError("voice_unavailable", f"voice could not start: {exc}") from exc
        from realtime.voice_session import VoiceSession

        async def handled(result: StepResult) -> list[str]:
            if result.events:
                sent = await self.conn.flush_until(result.events[-1]["seq"])
                self._react(sent)
            await self._update_voice_context()
            return result.spoken

        async def on_final(text: str, turn_id: str) -> list[str]:
            confidence = self.voice.transcript_confidence(turn_id) if self.voice else None
            doubtful = self.voice.doubtful_end(turn_id) if self.voice else False
            self.active()
            async with self.step_lock:
                result = await self.engine.answer(self.session_id, text, emit_transcript=False,
                                                  transcript_confidence=confidence,
                                                  hold_phase_change=doubtful)
            return await handled(result)

        async def on_amend(text: str, turn_id: str) -> list[str]:
            doubtful = self.voice.doubtful_end(turn_id) if self.voice else False
            self.active()
            async with self.step_lock:
                result = await self.engine.amend_answer(self.session_id, turn_id, text,
                                                        hold_phase_change=doubtful)
            return await handled(result)

        async def on_advance() -> list[str]:
            # The doubtful end's answer can no longer go on: the held move happens now.
            async with self.step_lock:
                result = await self.engine.advance(self.session_id)
            return await handled(result)

        async def on_prepare(text: str, turn_id: str) -> list[str]:
            # Nothing is committed: the engine grades and words the answer it may get, and
            # keeps that for when it does.
            return await self.engine.prepare_answer(self.session_id, text)

        from server.voice_recording import recording_for

        outbox, recorder = await recording_for(self.app_state, self.engine.redis,
                                               self.session_id, self.conn)
        s = self.settings
        self.voice = VoiceSession(
            services=services, outbox=outbox, on_final=on_final, on_amend=on_amend,
            on_prepare=on_prepare, on_advance=on_advance, recorder=recorder,
            turn_taking=s.turn_taking(),
            session_id=self.session_id)
        return self.voice

    async def on_binary(self, data: bytes) -> None:
        if len(data) > self.settings.max_ws_binary_bytes:
            await self._refuse_frame("too_large", f"audio frames are limited to "
                                                  f"{self.settings.max_ws_binary_bytes} bytes")
            return
        if self.voice is None:
            await self._refuse_frame("audio_before_config",
                                     "send {\"type\": \"audio_config\"} before audio frames")
            return
        if self.audio_rate is not None and not self.audio_rate.take(len(data)):
            # Faster than a microphone can produce: dropped before decoding (the STT pool
            # is shared by every session).
            limit = self.audio_rate.rate
            await self._refuse_frame(
                "audio_rate_limited", f"audio arrives faster than real time (over "
                f"{limit:g} bytes a second); frames are being dropped: send each frame "
                "as it is recorded")
            return
        try:
            await self.voice.feed(data)
        except AppError as exc:  # a VoiceInputError (odd length, too fast): frame dropped
            await self._refuse_frame(exc.code, exc.message)

    async def _refuse_frame(self, code: str, message: str) -> None:
        """A refused binary frame is never recorded: one socket sends thousands a second,
        and each would be an entry in the session's stream. At most one (unrecorded)
        notice a second for all of them together; the rest only count in the metrics."""
        now = time.monotonic()
        if self.last_frame_notice >= 0 and now - self.last_frame_notice < 1.0:
            if self.metrics is not None:
                self.metrics.errors.inc(code=code, where="ws")
            return
        self.last_frame_notice = now
        await self.conn.send_unrecorded_error(code, message)

    async def _voice_call(self, call: Any) -> None:
        try:
            await call
        except AppError as exc:  # a VoiceInputError: the frame is dropped, the session goes on
            await self.conn.refuse(exc)


def audio_bucket(settings: Settings, sample_rate: int) -> TokenBucket:
    """Bytes of PCM16 mono a second that may arrive, with a burst of a few seconds."""
    real_time = sample_rate * 2
    return TokenBucket(real_time * settings.audio_rate_factor, real_time * settings.audio_burst_s)


def origin_refusal(ws: WebSocket, settings: Settings) -> str | None:
    """Why a browser page of another origin may not open this socket (None: it may).

    Browsers send ``Origin`` on every websocket handshake and let any page open one, with
    no same-origin rule: without this check, another site's page holding a ticket could
    drive the session. Clients that are not browsers send no Origin and are not limited."""
    origin = ws.headers.get("origin")
    if origin is None:
        return None
    origin = origin.rstrip("/")
    host = ws.headers.get("host", "")
    own = {f"http://{host}", f"https://{host}"}
    if origin in own or origin in settings.allowed_origins:
        return None
    return (f"this page's origin ({origin[:80]}) may not open an interview socket: "
            "add it to VIVA_ALLOWED_ORIGINS")


async def socket_access(ws: WebSocket, settings: Settings, session_id: str) -> None:
    """A one-time ``?ticket=``, or an ``Authorization: Bearer`` header. ``?token=`` is still
    read for clients of the migration period (the contract's), and never logged."""
    redis_client = ws.app.state.redis
    ticket = ws.query_params.get(TICKET_PARAM)
    if ticket is not None:
        if await redeem_ticket(redis_client, ticket, session_id) is None:
            raise Unauthorized("this ticket is unknown, used or expired: ask for a new one "
                               f"(POST /api/sessions/{session_id}/ticket)")
        return
    token = header_token(ws.headers.get("authorization")) or ws.query_params.get("token")
    await check_session_token(redis_client, settings, session_id, token)


@router.websocket("/ws/sessions/{session_id}")
async def session_socket(ws: WebSocket, session_id: str) -> None:
    app_state = ws.app.state
    settings: Settings = app_state.settings
    await ws.accept()
    try:
        refused_origin = origin_refusal(ws, settings)
        if refused_origin is not None:
            raise Forbidden(refused_origin)
        await socket_access(ws, settings, session_id)
    except AppError as exc:
        await ws.send_text(json.dumps(unrecorded_error(exc.code, exc.message)))
        await ws.close(code=CLOSE_POLICY)
        return
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
        code, message = describe_redis_error(exc)
        await ws.send_text(json.dumps(unrecorded_error(code, message)))
        await ws.close(code=CLOSE_TRY_LATER)
        return
    link = SessionLink(ws, session_id, settings, app_state.engine, app_state)
    metrics: Metrics | None = getattr(app_state, "metrics", None)
    if metrics is not None:
        metrics.websockets.inc()
    try:
        await link.run()
    except WebSocketDisconnect:
        return
    finally:
        if metrics is not None:
            metrics.websockets.dec()
