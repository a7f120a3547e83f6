"""Text-to-speech stage: says utterances one after another, sentence by sentence.

Each sentence is synthesized (or taken from the cache) and sent as PCM16 chunks at once, so
the first audio leaves after one short sentence, not the whole reply. Everything sent is
also given to the echo detector, which needs to know what the client is playing. ``stop``
cuts the current utterance (barge-in) and tells the client to drop what it buffered.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import Executor

from audio.echo import EchoDetector
from audio.sentences import pieces_of_first_sentence, split_for_speech
from audio.tts import SpeechSynthesizer
from audio.tts_cache import SpeechCache
from core.events import ErrorEvent, TtsEndEvent, TtsStartEvent, TtsStopEvent
from core.tasks import cancel_and_wait, end_if_cancelled
from realtime.frames import Utterance
from realtime.ports import Outbox
from realtime.recorder import VoiceRecorder

log = logging.getLogger(__name__)

CHUNK_S = 0.2  # PCM per binary frame


class Speaker:
    def __init__(self, synthesizer: SpeechSynthesizer, cache: SpeechCache, executor: Executor,
                 outbox: Outbox, echo: EchoDetector,
                 clock: Callable[[], float] = time.monotonic,
                 recorder: VoiceRecorder | None = None):
        self._synth = synthesizer
        self._cache = cache
        self._executor = executor
        self._outbox = outbox
        self._echo = echo
        self._clock = clock
        self._recorder = recorder
        self._queue: asyncio.Queue[Utterance] = asyncio.Queue()
        self._current: asyncio.Task[None] | None = None
        self._current_turn: str | None = None  # the utterance whose audio the client may play
        # (started at, first sentence fully played at the client) of recent utterances
        # (back-channels excluded): until the reply's first sentence is heard, the
        # candidate's speech may still continue their answer.
        self._heard: list[tuple[float, float | None]] = []
        self._making: dict[str, asyncio.Future[bytes]] = {}  # sentences being synthesized

    @property
    def sample_rate(self) -> int:
        return self._synth.sample_rate

    def say(self, utterance: Utterance) -> None:
        self._queue.put_nowait(utterance)

    def is_speaking(self, now: float) -> bool:
        """Synthesizing, or the client is still playing what it was sent."""
        if self._current is not None and not self._current.done():
            return True
        if not self._queue.empty():
            return True
        end = self._echo.playing_until()
        return end is not None and now < end

    def reply_heard(self, since: float, now: float) -> bool:
        """Whether an utterance begun at or after ``since`` had its first sentence played in
        full by ``now`` (or was cut by the candidate after that)."""
        return any(started >= since and heard is not None and heard <= now
                   for started, heard in self._heard)

    async def prepare(self, texts: list[str]) -> None:
        """Synthesize the first sentence of what may be said next into the cache, so that
        saying it starts at once. Cancelling it only drops the wait."""
        pieces = split_for_speech(texts)
        if pieces:
            await self._piece_audio(pieces[0])

    async def run(self) -> None:
        while True:
            # A cancel lost while telling the client of a failure ends the stage here.
            end_if_cancelled("the speaker, after an utterance", log)
            utterance = await self._queue.get()
            self._current = asyncio.create_task(self._say(utterance), name="tts-utterance")
            # wait() does not raise when stop() cancels the utterance; only our own
            # cancellation ends this loop.
            try:
                await asyncio.wait({self._current})
            except asyncio.CancelledError:
                await cancel_and_wait(self._current, context="speaker", logger=log)
                raise
            if not self._current.cancelled() and self._current.exception() is not None:
                log.error("speaking failed", exc_info=self._current.exception())
                # The stage goes on with the next utterance; a failure to tell the client
                # ends it, and its owner (the voice session) logs, reports and restarts it.
                await self._outbox.send_event(ErrorEvent(
                    code="tts_failed",
                    message="the interviewer's voice failed; the text is shown instead"))

    async def stop(self) -> bool:
        """Barge-in: drop queued speech, cut the current one, tell the client. True if it did."""
        now = self._clock()
        if not self.is_speaking(now):
            return False
        turn_id = self._current_turn
        while not self._queue.empty():
            dropped = self._queue.get_nowait()
            turn_id = turn_id or dropped.turn_id
        if self._current is not None and not self._current.done():
            await cancel_and_wait(self._current, context="speaker", logger=log)
        self._echo.reset()
        self._current_turn = None
        if self._recorder is not None:
            self._recorder.stopped(now)  # the client drops what it had still to play
        await self._outbox.send_event(TtsStopEvent(turn_id=turn_id))
        return True

    async def _piece_audio(self, text: str) -> bytes:
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        making = self._making.get(text)
        if making is None:
            # One synthesis per sentence: a reply prepared during the pause and the same
            # reply said after the end share it.
            loop = asyncio.get_running_loop()
            making = asyncio.ensure_future(
                loop.run_in_executor(self._executor, self._synth.synthesize, text))
            self._making[text] = making

            def done(future: asyncio.Future[bytes]) -> None:
                self._making.pop(text, None)
                if not future.cancelled() and future.exception() is None:
                    self._cache.put(text, future.result())

            making.add_done_callback(done)
        return await asyncio.shield(making)

    def _sentence_heard(self, index: int) -> None:
        """The first sentence is all sent: it is heard when the client has played it."""
        started, heard = self._heard[index]
        if heard is None:
            self._heard[index] = (started, self._echo.playing_until() or self._clock())

    async def _say(self, utterance: Utterance) -> None:
        pieces = split_for_speech(utterance.texts)
        if not pieces:
            return
        rate = self._synth.sample_rate
        first_sentence = pieces_of_first_sentence(pieces)
        if self._echo.playing_until() is None or self._clock() > (
                self._echo.playing_until() or 0.0):
            self._echo.reset()  # a fresh timeline once the client has played everything
        self._current_turn = utterance.turn_id
        heard_at = len(self._heard)
        if not utterance.backchannel:
            self._heard = [*self._heard[-3:], (self._clock(), None)]
            heard_at = len(self._heard) - 1
        if self._recorder is not None:
            self._recorder.utterance_started(utterance.turn_id, rate, self._clock())
        await self._outbox.send_event(TtsStartEvent(turn_id=utterance.turn_id,
                                                    sample_rate=rate))
        chunk_bytes = int(rate * CHUNK_S) * 2
        first = True
        next_audio = asyncio.create_task(self._piece_audio(pieces[0]))
        finished = False
        try:
            for i in range(len(pieces)):
                pcm = await next_audio
                if i + 1 < len(pieces):
                    # Synthesize the next sentence while this one is being sent and played.
                    next_audio = asyncio.create_task(self._piece_audio(pieces[i + 1]))
                if self._recorder is not None:
                    self._recorder.piece(pieces[i])
                if i == first_sentence and heard_at < len(self._heard):
                    self._sentence_heard(heard_at)
                for start in range(0, len(pcm), chunk_bytes):
                    chunk = pcm[start:start + chunk_bytes]
                    await self._outbox.send_audio(chunk)
                    if self._recorder is not None:
                        self._recorder.audio(chunk)
                    self._echo.add_reference(chunk, rate, self._clock())
                    if first:
                        first = False
                        if utterance.marks is not None:
                            utterance.marks.first_audio = self._clock()
                            await self._outbox.send_event(
                                utterance.marks.as_event(utterance.turn_id))
            if heard_at < len(self._heard):
                self._sentence_heard(heard_at)
            finished = True
        finally:
            if self._recorder is not None:
                # Not finished: a barge-in cut it (or the connection closed).
                self._recorder.utterance_ended(self._clock(), cut=not finished)
            if not next_audio.done():
                await cancel_and_wait(next_audio, context="speaker", logger=log)
        await self._outbox.send_event(TtsEndEvent(turn_id=utterance.turn_id))
