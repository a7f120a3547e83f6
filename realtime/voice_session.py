"""One live voice conversation: the seam between the websocket layer and the voice stages.

Binary audio → checks and 16 kHz frames → voice activity + echo check → turn detector →
streaming transcriber → (final transcript) → interview engine via ``on_final`` → speaker.
At each pause the end-of-turn judge (audio model + transcript + phase) tells the detector
how long to wait. Speech that starts again right after a turn ended (a false end: the
candidate was only thinking) stops the reply and is joined to the same answer through
``on_amend``. Each stage that waits owns one loop; this class owns those loops and cancels
them on close.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from audio.echo import EchoDetector
from audio.pcm import pcm16_to_float
from audio.stt import RecognitionBias
from audio.vad import FRAME_MS
from core.events import ErrorEvent, TranscriptFinalEvent
from core.tasks import Supervisor
from realtime.audio_input import AudioInput
from realtime.end_of_turn import TurnPhase, TurnTakingSettings
from realtime.end_of_turn_judge import EndOfTurnJudge
from realtime.errors import VoiceInputError
from realtime.frames import (
    AudioFrame,
    FinalTranscript,
    SpeechPaused,
    SpeechStarted,
    TurnDropped,
    TurnEnded,
    TurnFrame,
    Utterance,
)
from realtime.ports import AnswerHandler, Outbox
from realtime.recorder import VoiceRecorder
from realtime.speaker import Speaker
from realtime.transcriber import StreamingTranscriber
from realtime.turn_detector import ONSET_MS, TurnDetector
from realtime.voice_services import VoiceServices

__all__ = ["VoiceInputError", "VoiceServices", "VoiceSession"]

log = logging.getLogger(__name__)

ECHO_BLOCK_FRAMES = 8  # 240 ms of microphone audio compared against what Viva said
MAX_HOTWORDS = 20
# Talking over the interviewer must last this long to stop it: a cough, or the first echo
# of a new sentence (too little of it to correlate yet), does not interrupt.
BARGE_IN_MS = 240
TICK_S = 0.05  # how often a turn is checked on the wall clock (a client that went quiet)
HISTORY_S = 8  # audio kept for the end-of-turn model
STAGE_RESTARTS = 3  # a stage that keeps failing stays down (and the client was told)


@dataclass
class _Answer:
    """A spoken answer handed to the engine (under the question's ``turn_id``)."""

    turn_id: str
    text: str


class VoiceSession:
    def __init__(self, *, services: VoiceServices, outbox: Outbox, on_final: AnswerHandler,
                 on_amend: AnswerHandler | None = None,
                 silence_ms_conversation: int | None = None,
                 silence_ms_coding: int | None = None,
                 turn_taking: TurnTakingSettings | None = None,
                 amend_window_ms: int = 3000,
                 clock: Callable[[], float] = time.monotonic,
                 session_id: str = "", recorder: VoiceRecorder | None = None):
        self.session_id = session_id
        self._services = services
        self._outbox = outbox
        self._on_final = on_final
        self._on_amend = on_amend
        self._clock = clock
        self._recorder = recorder
        self._confidence: dict[str, float] = {}  # turn_id -> the recogniser's confidence
        settings = turn_taking or TurnTakingSettings()
        if silence_ms_conversation is not None:
            settings = replace(settings, complete_ms=silence_ms_conversation)
        if silence_ms_coding is not None:
            settings = replace(settings, coding_complete_ms=silence_ms_coding)
        self.turn_taking = settings
        self.amend_window_s = amend_window_ms / 1000
        self._input = AudioInput(clock)
        self._vad = services.new_vad()
        self._echo = EchoDetector()
        self._recent: deque[np.ndarray] = deque(maxlen=ECHO_BLOCK_FRAMES)
        self._history: deque[np.ndarray] = deque(maxlen=HISTORY_S * 1000 // FRAME_MS)
        self._phase: TurnPhase = "conversation"
        self._hard_question = False
        self._detector = TurnDetector(settings.think_limit_ms("conversation", False))
        self._bias = RecognitionBias()
        self._context_turn_id: str | None = None
        self._spoken_turn_id: str | None = None
        self._finals: asyncio.Queue[FinalTranscript] = asyncio.Queue()
        self._transcriber = StreamingTranscriber(services.pool, outbox, self._finals,
                                                 lambda: self._bias, clock)
        self._speaker = Speaker(services.synthesizer, services.cache, services.tts_executor,
                                outbox, self._echo, clock, recorder)
        self._judge = EndOfTurnJudge(services.turn_model, services.turn_executor,
                                     self._transcriber.pause_text, settings)
        # False ends: candidate turn numbers (the detector's), not question turn ids.
        self._last_end: tuple[int, float] | None = None  # (turn, when it ended)
        self._continues: dict[int, int] = {}  # a turn -> the earlier turn it goes on with
        self._held: set[int] = set()  # turns whose reply must not be spoken (they went on)
        self._withheld: dict[int, Utterance] = {}  # held replies, said if the turn was noise
        self._answers: dict[int, _Answer] = {}  # a turn -> the answer its words are part of
        self._verdicts: set[asyncio.Task[None]] = set()
        self._why: dict[int, dict[str, object]] = {}  # a turn -> its last verdict
        # Every stage and helper has this owner: a failure is logged with the session and
        # told to the client, and the stage starts again (its state lives on the objects).
        self._stages = Supervisor(f"session {session_id or '?'} voice",
                                  on_failure=self._stage_failed, logger=log)
        for factory, name in ((self._transcriber.run, "voice-stt"),
                              (self._speaker.run, "voice-tts"),
                              (self._reply_loop, "voice-reply"),
                              (self._tick_loop, "voice-tick")):
            self._stages.spawn(factory, name, restarts=STAGE_RESTARTS)
        self.barge_ins = 0
        self.amendments = 0

    # -- the seam ---------------------------------------------------------------------

    async def configure(self, sample_rate: int, encoding: str) -> None:
        self._input.configure(sample_rate, encoding)

    async def feed(self, pcm: bytes) -> None:
        for samples, captured_at in self._input.frames(pcm):
            await self._frame(samples, captured_at)

    async def speak(self, texts: list[str], turn_id: str) -> None:
        self._spoken_turn_id = turn_id or self._spoken_turn_id
        self._speaker.say(Utterance(list(texts), turn_id or self._new_turn_id()))

    def set_context(self, *, phase: str, question_text: str | None, key_terms: list[str],
                    turn_id: str | None = None, hard: bool = False) -> None:
        self._phase = "coding" if phase == "coding" else "conversation"
        self._hard_question = hard
        self._detector.silence_ms = self.turn_taking.think_limit_ms(self._phase, hard)
        self._bias = RecognitionBias(context=question_text or "",
                                     hotwords=tuple(key_terms[:MAX_HOTWORDS]))
        if turn_id:
            self._context_turn_id = turn_id

    async def end_turn(self) -> None:
        self._dispatch(self._detector.end_turn(self._clock()))

    def transcript_confidence(self, turn_id: str) -> float | None:
        """How sure the recogniser was of the answer given on ``turn_id`` (mean word
        probability, 0..1), for the answer handler to keep with the answer."""
        return self._confidence.get(turn_id)

    async def aclose(self) -> None:
        await self._stages.aclose()
        if self._recorder is not None:
            self._recorder.close()

    @property
    def stage_failures(self) -> list[tuple[str, BaseException]]:
        return list(self._stages.failures)

    async def _stage_failed(self, name: str, exc: BaseException) -> None:
        await self._outbox.send_event(ErrorEvent(
            code="voice_stage_failed",
            message=f"part of the voice pipeline ({name}) failed and is restarting; if the "
                    "interviewer stops hearing you, type your answer"))

    # -- stages -----------------------------------------------------------------------

    async def _frame(self, samples: np.ndarray, captured_at: float) -> None:
        self._recent.append(samples)
        self._history.append(samples)
        if self._recorder is not None:
            self._recorder.frame(samples, captured_at)
        voiced = self._vad.is_speech(samples)
        echo = False
        if voiced and self._echo.active(captured_at):
            block = pcm16_to_float(np.concatenate(self._recent))
            echo = self._echo.is_echo(block, captured_at)
        frame = AudioFrame(samples, captured_at, voiced, echo)
        speaking = self._speaker.is_speaking(captured_at)
        # While the interviewer talks, a turn needs more voice to begin: residual echo the
        # correlation missed must not become the candidate's words.
        self._detector.onset_ms = BARGE_IN_MS if speaking else ONSET_MS
        events = self._detector.push(frame)
        self._transcriber.inbox.put_nowait(frame)
        self._dispatch(events)
        if speaking and self._detector.in_turn and self._detector.voiced_run_ms >= BARGE_IN_MS:
            # The candidate talks over the interviewer: stop at once and listen.
            if await self._speaker.stop():
                self.barge_ins += 1

    def _dispatch(self, events: list[TurnFrame]) -> None:
        for event in events:
            if isinstance(event, SpeechStarted):
                event = self._maybe_continue(event)
            if self._recorder is not None:
                self._record(event)
            self._transcriber.inbox.put_nowait(event)
            if isinstance(event, SpeechPaused):
                self._ask_for_verdict(event)
            elif isinstance(event, TurnDropped):
                self._release(event.turn)
            elif isinstance(event, TurnEnded):
                self._last_end = (event.turn, event.ended_at)
                for task in list(self._verdicts):
                    task.cancel()  # the turn is over: verdicts for its pauses are moot

    def _record(self, event: TurnFrame) -> None:
        assert self._recorder is not None
        if isinstance(event, SpeechStarted):
            self._recorder.speech_started(event.turn, event.at, self._detector.onset_ms)
        elif isinstance(event, TurnDropped):
            self._recorder.turn_dropped(event.turn)
        elif isinstance(event, TurnEnded):
            self._recorder.turn_ended(event.turn, event.voiced_end_at, event.ended_at,
                                      self._context_turn_id or self._spoken_turn_id or "")

    def _ask_for_verdict(self, paused: SpeechPaused) -> None:
        audio = pcm16_to_float(np.concatenate(self._history))
        turn_s = self._detector.turn_seconds(self._clock())

        async def judge() -> None:
            verdict = await self._judge.verdict(paused.turn, paused.pause, audio,
                                                self._phase, self._hard_question, turn_s)
            p = self._judge.last.p_complete if self._judge.last else None
            self._why[paused.turn] = {"reason": verdict.reason, "finished": verdict.finished,
                                      "p_complete": None if p is None else round(p, 3)}
            self._dispatch(self._detector.set_verdict(
                paused.turn, paused.pause, verdict.end_after_ms, verdict.finished,
                self._clock()))

        task = self._stages.helper(judge(), "voice-verdict")
        self._verdicts.add(task)
        task.add_done_callback(self._verdicts.discard)

    def _maybe_continue(self, started: SpeechStarted) -> SpeechStarted:
        if self._on_amend is None or self._last_end is None or self._phase == "coding":
            # While coding, talk is recorded, not graded: nothing to take back.
            return started
        previous, ended_at = self._last_end
        if started.at - ended_at > self.amend_window_s:
            return started
        # Speech right after a turn ended: the candidate was only thinking. Their words
        # belong to the same answer; the reply made for half of it must not be heard.
        self._continues[started.turn] = previous
        self._held.add(previous)
        self._stages.helper(self._stop_reply(), "voice-stop-reply")
        return SpeechStarted(started.turn, started.at, continues=previous)

    def _release(self, dropped: int) -> None:
        """A turn taken for a continuation was only a noise: the answer before it stands,
        and its reply, if it was held back, is said after all."""
        previous = self._continues.pop(dropped, None)
        if previous is None:
            return
        self._held.discard(previous)
        withheld = self._withheld.pop(previous, None)
        if withheld is not None:
            self._speaker.say(withheld)

    async def _stop_reply(self) -> None:
        if await self._speaker.stop():
            self.barge_ins += 1

    async def _tick_loop(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            self._dispatch(self._detector.tick(self._clock()))

    async def _reply_loop(self) -> None:
        while True:
            final = await self._finals.get()
            final.marks.end_of_turn = self._why.pop(final.turn, None)
            for old in [t for t in self._answers if t < final.turn - 8]:
                del self._answers[old]
            self._held = {t for t in self._held if t >= final.turn - 8}
            previous = self._continues.pop(final.turn, None)
            answer = self._answers.get(previous) if previous is not None else None
            if answer is not None:
                await self._amend(answer, final)
                continue
            turn_id = self._context_turn_id or self._spoken_turn_id or self._new_turn_id()
            if self._recorder is not None:
                self._recorder.label(final.turn, turn_id)
            confidence = (round(math.exp(final.avg_logprob), 3)
                          if final.avg_logprob is not None else None)
            if confidence is not None:
                self._confidence[turn_id] = confidence
            await self._outbox.send_event(TranscriptFinalEvent(text=final.text,
                                                               turn_id=turn_id,
                                                               confidence=confidence))
            answer = _Answer(turn_id, final.text)
            self._answers[final.turn] = answer
            try:
                texts = await self._on_final(final.text, turn_id)
            except Exception:
                log.exception("session %s: the interview engine failed on a spoken answer",
                              self.session_id)
                del self._answers[final.turn]
                await self._outbox.send_event(ErrorEvent(
                    code="answer_failed",
                    message="your answer was heard but could not be processed; "
                            "please repeat it or type it"))
                continue
            await self._reply(final, texts, turn_id)

    async def _amend(self, answer: _Answer, final: FinalTranscript) -> None:
        assert self._on_amend is not None
        # The transcriber decoded the earlier words again with the new ones: one answer.
        text = final.text
        if self._recorder is not None:
            self._recorder.label(final.turn, answer.turn_id)
        await self._outbox.send_event(TranscriptFinalEvent(text=text, turn_id=answer.turn_id,
                                                           amended=True))
        answer.text = text
        self._answers[final.turn] = answer
        try:
            texts = await self._on_amend(text, answer.turn_id)
        except Exception as exc:
            log.warning("session %s: could not amend answer %s: %s", self.session_id,
                        answer.turn_id, exc)
            await self._outbox.send_event(ErrorEvent(
                code="answer_not_amended",
                message="what you said after the pause could not be added to your "
                        "answer; please answer the current question"))
            return
        self.amendments += 1
        await self._reply(final, texts, answer.turn_id)

    async def _reply(self, final: FinalTranscript, texts: list[str], turn_id: str) -> None:
        final.marks.reply_ready = self._clock()
        if texts:
            reply_turn = self._context_turn_id
            if reply_turn is None or reply_turn == turn_id:
                reply_turn = self._new_turn_id()
            self._spoken_turn_id = reply_turn
            utterance = Utterance(list(texts), reply_turn, final.marks)
            if final.turn in self._held:
                self._withheld[final.turn] = utterance
                await self._outbox.send_event(final.marks.as_event(turn_id))
                for old in [t for t in self._withheld if t < final.turn - 8]:
                    del self._withheld[old]
            else:
                self._speaker.say(utterance)
        else:
            await self._outbox.send_event(final.marks.as_event(turn_id))

    @staticmethod
    def _new_turn_id() -> str:
        return f"v-{uuid.uuid4().hex[:12]}"


