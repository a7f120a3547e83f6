"""One live voice conversation: the seam between the websocket layer and the voice stages.

Binary audio → checks and 16 kHz frames → voice activity + echo check → turn controller →
streaming transcriber → (final transcript) → interview engine via ``on_final`` → speaker.
At each pause the end-of-turn judge (audio model + text model + transcript + phase) tells
the controller how long to wait, and a reply that may be needed is prepared meanwhile
(``on_prepare``: grade, word, synthesize its first sentence), so a finished answer is
spoken to at once; resumed speech drops it. Speech that starts again right after a turn
ended, before the reply was heard past its first sentence, stops the reply and is joined
to the same answer through ``on_amend``. Each stage that waits owns one loop; this class
owns those loops and cancels them on close.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import replace

import numpy as np

from audio.echo import EchoDetector
from audio.pcm import pcm16_to_float
from audio.stt import RecognitionBias
from audio.vad import FRAME_MS
from core.events import ErrorEvent, TranscriptFinalEvent
from core.tasks import Supervisor, end_if_cancelled
from realtime.audio_input import AudioInput
from realtime.end_of_turn import TurnPhase, TurnTakingSettings
from realtime.end_of_turn_judge import EndOfTurnJudge, JudgedPause, PauseContext
from realtime.errors import VoiceInputError
from realtime.frames import (
    AudioFrame,
    BackChannel,
    FinalTranscript,
    Interruption,
    ReplyReleased,
    SpeechPaused,
    SpeechResumed,
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
from realtime.turn_controller import SpokenAnswer, TurnController
from realtime.turn_detector import BARGE_IN_MS, ONSET_MS
from realtime.voice_services import VoiceServices

__all__ = ["VoiceInputError", "VoiceServices", "VoiceSession"]

log = logging.getLogger(__name__)

ECHO_BLOCK_FRAMES = 8  # 240 ms of microphone audio compared against what Viva said
MAX_HOTWORDS = 20
BACKCHANNEL = "Take your time."
TICK_S = 0.05  # how often a turn is checked on the wall clock (a client that went quiet)
HISTORY_S = 8  # audio kept for the end-of-turn model
STAGE_RESTARTS = 3  # a stage that keeps failing stays down (and the client was told)


class VoiceSession:
    def __init__(self, *, services: VoiceServices, outbox: Outbox, on_final: AnswerHandler,
                 on_amend: AnswerHandler | None = None,
                 on_prepare: AnswerHandler | None = None,
                 on_advance: Callable[[], Awaitable[list[str]]] | None = None,
                 silence_ms_conversation: int | None = None,
                 silence_ms_coding: int | None = None,
                 turn_taking: TurnTakingSettings | None = None,
                 amend_window_ms: int | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 session_id: str = "", recorder: VoiceRecorder | None = None):
        self.session_id = session_id
        self._services = services
        self._outbox = outbox
        self._on_final = on_final
        self._on_amend = on_amend
        self._on_prepare = on_prepare
        self._on_advance = on_advance
        self._doubtful: dict[str, bool] = {}  # turn_id -> its answer's end was doubtful
        self._clock = clock
        self._recorder = recorder
        self._confidence: dict[str, float] = {}  # turn_id -> the recogniser's confidence
        settings = turn_taking or TurnTakingSettings()
        if silence_ms_conversation is not None:
            settings = replace(settings, complete_ms=silence_ms_conversation)
        if silence_ms_coding is not None:
            settings = replace(settings, coding_complete_ms=silence_ms_coding)
        if amend_window_ms is not None:
            settings = replace(settings, amend_window_ms=amend_window_ms)
        if on_amend is None:
            settings = replace(settings, amend_window_ms=0)  # nothing can be taken back
        self.turn_taking = settings
        self._input = AudioInput(clock)
        self._vad = services.new_vad()
        self._echo = EchoDetector()
        self._recent: deque[np.ndarray] = deque(maxlen=ECHO_BLOCK_FRAMES)
        self._history: deque[np.ndarray] = deque(maxlen=HISTORY_S * 1000 // FRAME_MS)
        self._bias = RecognitionBias()
        self._context_turn_id: str | None = None
        self._spoken_turn_id: str | None = None
        self._finals: asyncio.Queue[FinalTranscript] = asyncio.Queue()
        self._transcriber = StreamingTranscriber(services.pool, outbox, self._finals,
                                                 lambda: self._bias, clock)
        self._speaker = Speaker(services.synthesizer, services.cache, services.tts_executor,
                                outbox, self._echo, clock, recorder)
        self._turns = TurnController(settings, reply_closed=self._speaker.reply_heard)
        self._judge = EndOfTurnJudge(services.turn_model, services.turn_executor,
                                     self._transcriber.pause_text, settings,
                                     text_model=services.text_turn_model)
        self._verdicts: set[asyncio.Task[None]] = set()
        self._preparing: asyncio.Task[None] | None = None
        self._reply_step = "starting"  # what the reply stage awaited last (for a lost cancel)
        self._speaking = False
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
        self.backchannels = 0
        self.prepared = 0  # replies prepared during a pause
        self.voiced_frames = 0  # the candidate's voice heard (not echo): an idle clock reads it

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
        self._turns.set_context("coding" if phase == "coding" else "conversation", hard,
                                question_text or "")
        self._bias = RecognitionBias(context=question_text or "",
                                     hotwords=tuple(key_terms[:MAX_HOTWORDS]))
        if turn_id:
            self._context_turn_id = turn_id

    @property
    def _phase(self) -> TurnPhase:
        return self._turns.context.phase

    def note_activity(self) -> None:
        """The candidate is typing in the editor: while coding that holds the floor."""
        self._turns.activity(self._clock())

    async def end_turn(self) -> None:
        await self._dispatch(self._turns.end_turn(self._clock()))

    def doubtful_end(self, turn_id: str) -> bool:
        """Whether the answer on ``turn_id`` ended on a doubtful verdict (not "finished" nor
        an explicit "done"): it may still go on, so the engine holds a change of phase
        until the amend window has passed (see ``_advance_after``)."""
        return self._doubtful.get(turn_id, False)

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
        # While the interviewer talks, a turn needs more voice to begin: residual echo the
        # correlation missed must not become the candidate's words.
        self._speaking = self._speaker.is_speaking(captured_at)
        if voiced and not echo:
            self.voiced_frames += 1
        frame = AudioFrame(samples, captured_at, voiced, echo, self._speaking)
        events = self._turns.audio(frame)
        self._transcriber.inbox.put_nowait(frame)
        await self._dispatch(events)

    async def _dispatch(self, events: list[TurnFrame]) -> None:
        for event in events:
            if isinstance(event, Interruption):
                # The candidate talks over the interviewer: stop at once and listen.
                if await self._speaker.stop():
                    self.barge_ins += 1
                continue
            if isinstance(event, BackChannel):
                self.backchannels += 1
                self._speaker.say(Utterance([BACKCHANNEL], self._spoken_turn_id
                                            or self._new_turn_id(), backchannel=True))
                continue
            if isinstance(event, ReplyReleased):
                self._speaker.say(event.utterance)
                continue
            if self._recorder is not None:
                self._record(event)
            self._transcriber.inbox.put_nowait(event)
            if isinstance(event, SpeechStarted) and event.continues is not None:
                # The candidate was only thinking: the reply made for half the answer must
                # not be heard.
                self._drop_prepared()
                self._stages.helper(self._stop_reply(), "voice-stop-reply")
            elif isinstance(event, SpeechPaused):
                self._ask_for_verdict(event)
            elif isinstance(event, SpeechResumed):
                self._drop_prepared()
            elif isinstance(event, TurnEnded):
                for task in list(self._verdicts):
                    task.cancel()  # the turn is over: verdicts for its pauses are moot

    def _record(self, event: TurnFrame) -> None:
        assert self._recorder is not None
        if isinstance(event, SpeechStarted):
            self._recorder.speech_started(event.turn, event.at,
                                          BARGE_IN_MS if self._speaking else ONSET_MS)
        elif isinstance(event, TurnDropped):
            self._recorder.turn_dropped(event.turn)
        elif isinstance(event, TurnEnded):
            self._recorder.turn_ended(event.turn, event.voiced_end_at, event.ended_at,
                                      self._context_turn_id or self._spoken_turn_id or "")

    def _ask_for_verdict(self, paused: SpeechPaused) -> None:
        audio = pcm16_to_float(np.concatenate(self._history))
        ctx = self._turns.context
        context = PauseContext(ctx.phase, ctx.hard_question, ctx.question,
                               self._turns.detector.turn_seconds(self._clock()))

        async def judge() -> None:
            judged = await self._judge.verdict(paused.turn, paused.pause, audio, context)
            self._maybe_prepare(judged)
            await self._dispatch(self._turns.verdict(judged, self._clock()))

        task = self._stages.helper(judge(), "voice-verdict")
        self._verdicts.add(task)
        task.add_done_callback(self._verdicts.discard)

    def _maybe_prepare(self, judged: JudgedPause) -> None:
        """While a pause may end the turn, prepare the reply: once the accurate decode of the
        pause is in, the engine grades and words the answer those words would be (its
        result kept for the real answer) and the first sentence is synthesized. A sure
        verdict is prepared too: its turn ends within the short window, and the reply is
        then ready instead of starting when the window closes. A held floor does not end
        soon, and talk while coding is not graded: neither is worth the work."""
        v = judged.verdict
        if (self._on_prepare is None or self._phase == "coding" or not judged.text
                or v.holds_floor or self._turns.amends(judged.turn) is not None):
            return
        self._drop_prepared()
        turn_id = self._context_turn_id or self._spoken_turn_id or ""

        async def prepare() -> None:
            assert self._on_prepare is not None
            text = await self._transcriber.final_text_at(judged.turn, judged.pause)
            if text is None:
                return  # the pause is over: nothing to prepare for
            texts = await self._on_prepare(text, turn_id)
            await self._speaker.prepare(texts)
            self.prepared += 1

        self._preparing = self._stages.helper(prepare(), "voice-prepare")

    def _drop_prepared(self) -> None:
        """Speech resumed: whatever was prepared answered words that are not the answer."""
        if self._preparing is not None and not self._preparing.done():
            self._preparing.cancel()
        self._preparing = None

    async def _stop_reply(self) -> None:
        if await self._speaker.stop():
            self.barge_ins += 1

    async def _tick_loop(self) -> None:
        while True:
            end_if_cancelled(f"session {self.session_id} voice tick", log)
            await asyncio.sleep(TICK_S)
            await self._dispatch(self._turns.tick(self._clock()))

    async def _reply_loop(self) -> None:
        while True:
            # A cancel lost in the last answer's awaits (seen at the end of interviews under
            # load) must end the stage here, not leave it waiting for a final that never comes.
            self._reply_stage_at("waiting")
            final = await self._finals.get()
            await self._take_final(final)

    def _reply_stage_at(self, step: str) -> None:
        """The reply stage moves on to ``step``; it ends here instead if the last step
        swallowed a cancel (the warning names that step)."""
        end_if_cancelled(f"session {self.session_id} voice reply ({self._reply_step})", log)
        self._reply_step = step

    async def _take_final(self, final: FinalTranscript) -> None:
        """One final transcript: the answer's amendment, or a new answer and its reply."""
        final.marks.end_of_turn = self._turns.end_summary(final.turn)
        earlier = self._turns.amends(final.turn)
        if earlier is not None and self._on_amend is not None:
            self._reply_stage_at("amending an answer")
            await self._amend(earlier, final)
            return
        turn_id = self._context_turn_id or self._spoken_turn_id or self._new_turn_id()
        if self._recorder is not None:
            self._recorder.label(final.turn, turn_id)
        confidence = (round(math.exp(final.avg_logprob), 3)
                      if final.avg_logprob is not None else None)
        if confidence is not None:
            self._confidence[turn_id] = confidence
        self._doubtful[turn_id] = doubtful = (self._on_amend is not None
                                              and not self._turns.sure_end(final.turn))
        self._reply_stage_at("sending the transcript")
        await self._outbox.send_event(TranscriptFinalEvent(text=final.text,
                                                           turn_id=turn_id,
                                                           confidence=confidence))
        self._turns.answered(final.turn, SpokenAnswer(turn_id, final.text, self._phase))
        self._reply_stage_at("the engine answering")
        try:
            texts = await self._on_final(final.text, turn_id)
        except Exception:
            log.exception("session %s: the interview engine failed on a spoken answer",
                          self.session_id)
            self._turns.answered(final.turn, None)
            await self._outbox.send_event(ErrorEvent(
                code="answer_failed",
                message="your answer was heard but could not be processed; "
                        "please repeat it or type it"))
            return
        self._reply_stage_at("replying")
        await self._reply(final, texts, turn_id)
        if doubtful:
            self._stages.helper(self._advance_after(final.turn), "voice-advance")

    async def _advance_after(self, turn: int) -> None:
        """Once a doubtful end's answer can no longer go on (its amend window passed, or
        its reply was heard), make the move the engine held back, if any."""
        if self._on_advance is None:
            return
        ended = self._turns.ended(turn)
        if ended is None:
            return
        window = self.turn_taking.amend_window_ms / 1000
        while True:
            now = self._clock()
            if now >= ended.ended_at + window or self._speaker.reply_heard(ended.ended_at, now):
                break
            await asyncio.sleep(TICK_S)
        # Speech that began inside the window may still be a cough: wait until it is
        # dropped (then the held move is made) or becomes the answer's next words.
        give_up = self._clock() + self.turn_taking.max_turn_s
        while True:
            if not self._turns.going_on_undecided(turn) or self._clock() >= give_up:
                break
            await asyncio.sleep(TICK_S)
        if self._turns.went_on(turn):
            return  # it went on after all: the amended answer decides (and advances)
        texts = await self._on_advance()
        if texts:
            reply_turn = self._context_turn_id or self._new_turn_id()
            self._spoken_turn_id = reply_turn
            self._speaker.say(Utterance(list(texts), reply_turn))

    async def _amend(self, answer: SpokenAnswer, final: FinalTranscript) -> None:
        assert self._on_amend is not None
        # The transcriber decoded the earlier words again with the new ones: one answer.
        text = final.text
        if self._recorder is not None:
            self._recorder.label(final.turn, answer.turn_id)
        await self._outbox.send_event(TranscriptFinalEvent(text=text, turn_id=answer.turn_id,
                                                           amended=True))
        answer.text = text
        self._turns.answered(final.turn, answer)
        self._doubtful[answer.turn_id] = not self._turns.sure_end(final.turn)
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
        if self.doubtful_end(answer.turn_id):
            self._stages.helper(self._advance_after(final.turn), "voice-advance")

    async def _reply(self, final: FinalTranscript, texts: list[str], turn_id: str) -> None:
        final.marks.reply_ready = self._clock()
        if texts:
            reply_turn = self._context_turn_id
            if reply_turn is None or reply_turn == turn_id:
                reply_turn = self._new_turn_id()
            self._spoken_turn_id = reply_turn
            utterance = self._turns.reply(final.turn,
                                          Utterance(list(texts), reply_turn, final.marks))
            if utterance is None:  # held: the answer went on
                await self._outbox.send_event(final.marks.as_event(turn_id))
            else:
                self._speaker.say(utterance)
        else:
            await self._outbox.send_event(final.marks.as_event(turn_id))

    @staticmethod
    def _new_turn_id() -> str:
        return f"v-{uuid.uuid4().hex[:12]}"
