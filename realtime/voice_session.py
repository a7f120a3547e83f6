"""One live voice conversation: the seam between the websocket layer and the voice stages.

Binary audio → checks and 16 kHz frames → voice activity + echo check → turn detector →
streaming transcriber → (final transcript) → interview engine via ``on_final`` → speaker.
Each stage that waits owns one loop; this class owns those loops and cancels them on close.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import deque
from collections.abc import Callable

import numpy as np

from audio.echo import EchoDetector
from audio.pcm import pcm16_to_float
from audio.stt import RecognitionBias
from realtime.audio_input import AudioInput
from realtime.errors import VoiceInputError
from realtime.frames import AudioFrame, FinalTranscript, Utterance
from realtime.ports import AnswerHandler, Outbox
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


class VoiceSession:
    def __init__(self, *, services: VoiceServices, outbox: Outbox, on_final: AnswerHandler,
                 silence_ms_conversation: int = 500, silence_ms_coding: int = 2500,
                 clock: Callable[[], float] = time.monotonic):
        self._services = services
        self._outbox = outbox
        self._on_final = on_final
        self._clock = clock
        self.silence_ms_conversation = silence_ms_conversation
        self.silence_ms_coding = silence_ms_coding
        self._input = AudioInput(clock)
        self._vad = services.new_vad()
        self._echo = EchoDetector()
        self._recent: deque[np.ndarray] = deque(maxlen=ECHO_BLOCK_FRAMES)
        self._detector = TurnDetector(silence_ms_conversation)
        self._bias = RecognitionBias()
        self._context_turn_id: str | None = None
        self._spoken_turn_id: str | None = None
        self._finals: asyncio.Queue[FinalTranscript] = asyncio.Queue()
        self._transcriber = StreamingTranscriber(services.pool, outbox, self._finals,
                                                 lambda: self._bias, clock)
        self._speaker = Speaker(services.synthesizer, services.cache, services.tts_executor,
                                outbox, self._echo, clock)
        self._tasks = [
            asyncio.create_task(self._transcriber.run(), name="voice-stt"),
            asyncio.create_task(self._speaker.run(), name="voice-tts"),
            asyncio.create_task(self._reply_loop(), name="voice-reply"),
        ]
        self.barge_ins = 0

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
                    turn_id: str | None = None) -> None:
        self._detector.silence_ms = (self.silence_ms_coding if phase == "coding"
                                     else self.silence_ms_conversation)
        self._bias = RecognitionBias(context=question_text or "",
                                     hotwords=tuple(key_terms[:MAX_HOTWORDS]))
        if turn_id:
            self._context_turn_id = turn_id

    async def end_turn(self) -> None:
        for event in self._detector.end_turn(self._clock()):
            self._transcriber.inbox.put_nowait(event)

    async def aclose(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # -- stages -----------------------------------------------------------------------

    async def _frame(self, samples: np.ndarray, captured_at: float) -> None:
        self._recent.append(samples)
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
        for event in events:
            self._transcriber.inbox.put_nowait(event)
        if speaking and self._detector.in_turn and self._detector.voiced_run_ms >= BARGE_IN_MS:
            # The candidate talks over the interviewer: stop at once and listen.
            if await self._speaker.stop():
                self.barge_ins += 1

    async def _reply_loop(self) -> None:
        while True:
            final = await self._finals.get()
            turn_id = self._context_turn_id or self._spoken_turn_id or self._new_turn_id()
            await self._outbox.send_event({"type": "transcript_final", "text": final.text,
                                           "turn_id": turn_id})
            try:
                texts = await self._on_final(final.text, turn_id)
            except Exception:
                log.exception("the interview engine failed on a spoken answer")
                await self._outbox.send_event({
                    "type": "error", "code": "answer_failed",
                    "message": "your answer was heard but could not be processed; "
                               "please repeat it or type it"})
                continue
            final.marks.reply_ready = self._clock()
            if texts:
                reply_turn = self._context_turn_id
                if reply_turn is None or reply_turn == turn_id:
                    reply_turn = self._new_turn_id()
                self._spoken_turn_id = reply_turn
                self._speaker.say(Utterance(list(texts), reply_turn, final.marks))
            else:
                await self._outbox.send_event(final.marks.as_event(turn_id))

    @staticmethod
    def _new_turn_id() -> str:
        return f"v-{uuid.uuid4().hex[:12]}"
