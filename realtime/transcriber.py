"""Streaming speech-to-text stage: partial transcripts while the candidate talks, a final one
when the turn ends.

Most of the decoding happens during the turn so little is left when it ends:
- once a few seconds are pending, the audio up to the next gap between words is decoded
  and committed as a segment (later decodes start after it, with its text as the prompt);
- at every short pause the pending audio is decoded with final priority ("speculation").
  If the turn then ends, that result completes the final transcript at once; if the
  candidate goes on, it becomes a committed segment (when long) or is dropped.
Partials decode only the pending audio, and are skipped when the shared recognizer is busy.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from audio.pcm import STT_RATE, pcm16_to_float
from audio.stt import Recognition, RecognitionBias, RecognitionRequest
from audio.stt_pool import Priority, RecognitionPool, RecognizerBusy
from audio.vad import FRAME_MS
from realtime.frames import (
    AudioFrame,
    FinalTranscript,
    SpeechPaused,
    SpeechResumed,
    SpeechStarted,
    TurnDropped,
    TurnEnded,
    TurnFrame,
    TurnMarks,
)
from realtime.ports import Outbox

log = logging.getLogger(__name__)

PREROLL_FRAMES = 10  # 300 ms kept before speech onset: the first syllable starts quietly
PARTIAL_EVERY_S = 0.8  # new speech between two partial decodes
COMMIT_AFTER_S = 5.0  # pending audio this long is committed at the next gap between words
GAP_MS = 90  # unvoiced audio that counts as a gap between words
KEEP_SPECULATION_S = 2.0  # a speculation this long becomes a segment when speech resumes


@dataclass
class _Segment:
    start: int
    end: int
    task: asyncio.Task[Recognition]

    def text(self) -> str | None:
        """The text once decoded ("" if nothing was heard or the decode failed)."""
        if not self.task.done():
            return None
        if self.task.cancelled() or self.task.exception() is not None:
            return ""
        return self.task.result().text


@dataclass
class _Turn:
    number: int
    audio: list[np.ndarray]
    samples: int = 0
    segments: list[_Segment] = field(default_factory=list)
    speculation: _Segment | None = None
    partial_task: asyncio.Task[None] | None = None
    partial_at: int = 0
    last_partial: str = ""
    unvoiced_ms: int = 0
    closed: bool = False

    def add(self, samples: np.ndarray) -> None:
        self.audio.append(samples)
        self.samples += len(samples)

    def clip(self, start: int, end: int) -> np.ndarray:
        whole = np.concatenate(self.audio) if len(self.audio) != 1 else self.audio[0]
        self.audio = [whole]
        return pcm16_to_float(whole[start:end])

    @property
    def pending_start(self) -> int:
        return self.segments[-1].end if self.segments else 0

    def prefix(self) -> str:
        """Text of the segments decoded so far, in order (stops at the first still running)."""
        texts: list[str] = []
        for segment in self.segments:
            text = segment.text()
            if text is None:
                break
            if text:
                texts.append(text)
        return " ".join(texts)


class StreamingTranscriber:
    def __init__(self, pool: RecognitionPool, outbox: Outbox,
                 finals: asyncio.Queue[FinalTranscript],
                 bias: Callable[[], RecognitionBias],
                 clock: Callable[[], float] = time.monotonic):
        self._pool = pool
        self._outbox = outbox
        self._finals = finals
        self._bias = bias
        self._clock = clock
        self.inbox: asyncio.Queue[AudioFrame | TurnFrame] = asyncio.Queue()
        self._preroll: deque[np.ndarray] = deque(maxlen=PREROLL_FRAMES)
        self._turn: _Turn | None = None

    async def run(self) -> None:
        try:
            while True:
                frame = await self.inbox.get()
                await self._handle(frame)
        finally:
            if self._turn is not None:
                await self._drop(self._turn)

    async def _handle(self, frame: AudioFrame | TurnFrame) -> None:
        turn = self._turn
        if isinstance(frame, AudioFrame):
            if turn is None:
                self._preroll.append(frame.samples)
            else:
                turn.add(frame.samples)
                voiced = frame.voiced and not frame.echo
                turn.unvoiced_ms = 0 if voiced else turn.unvoiced_ms + FRAME_MS
                self._maybe_commit(turn)
                self._maybe_partial(turn)
        elif isinstance(frame, SpeechStarted):
            if turn is not None:
                await self._drop(turn)
            self._turn = _Turn(frame.turn, list(self._preroll))
            self._turn.samples = sum(len(a) for a in self._turn.audio)
            self._preroll.clear()
        elif turn is None or frame.turn != turn.number:
            return
        elif isinstance(frame, SpeechPaused):
            self._speculate(turn)
        elif isinstance(frame, SpeechResumed):
            self._on_resume(turn)
        elif isinstance(frame, TurnEnded):
            self._turn = None
            await self._finish(turn, frame)
        elif isinstance(frame, TurnDropped):
            self._turn = None
            await self._drop(turn)

    # -- decoding ----------------------------------------------------------------------

    def _request(self, turn: _Turn, start: int, end: int) -> RecognitionRequest:
        bias = self._bias()
        # The words already heard in this turn are not put in the prompt: tiny models then
        # tend to repeat them (measured), while the question and key terms only help.
        return RecognitionRequest(audio=turn.clip(start, end), bias=bias)

    def _decode(self, turn: _Turn, start: int, end: int) -> _Segment:
        request = self._request(turn, start, end)
        task = asyncio.create_task(self._pool.recognize(request, Priority.FINAL))
        return _Segment(start, end, task)

    def _maybe_commit(self, turn: _Turn) -> None:
        if turn.speculation is not None or turn.unvoiced_ms < GAP_MS:
            return
        if (turn.samples - turn.pending_start) / STT_RATE < COMMIT_AFTER_S:
            return
        # Cut in the gap between two words: no word is split across segments.
        turn.segments.append(self._decode(turn, turn.pending_start, turn.samples))

    def _maybe_partial(self, turn: _Turn) -> None:
        if turn.speculation is not None or turn.closed:
            return  # paused: the speculation gives the next partial
        if turn.partial_task is not None and not turn.partial_task.done():
            return
        if (turn.samples - turn.partial_at) / STT_RATE < PARTIAL_EVERY_S:
            return
        turn.partial_at = turn.samples
        if turn.samples - turn.pending_start < STT_RATE // 4:
            return
        request = self._request(turn, turn.pending_start, turn.samples)
        try:
            future = self._pool.submit(request, Priority.PARTIAL)
        except RecognizerBusy:
            return  # backpressure: skip this partial, the next one covers more
        turn.partial_task = asyncio.create_task(self._partial(turn, future))

    async def _partial(self, turn: _Turn,
                       future: concurrent.futures.Future[Recognition]) -> None:
        try:
            result = await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            raise
        await self._send_partial(turn, result.text)

    async def _send_partial(self, turn: _Turn, text: str) -> None:
        full = " ".join(t for t in (turn.prefix(), text) if t)
        if turn.closed or not full or full == turn.last_partial:
            return
        turn.last_partial = full
        await self._outbox.send_event({"type": "transcript_partial", "text": full})

    def _speculate(self, turn: _Turn) -> None:
        if turn.samples - turn.pending_start <= 0:
            return
        speculation = self._decode(turn, turn.pending_start, turn.samples)
        turn.speculation = speculation

        def show(task: asyncio.Task[Recognition]) -> None:
            text = speculation.text()
            if text and not turn.closed and turn.speculation is speculation:
                # Shown as a partial right away; the turn may still go on.
                turn.partial_task = asyncio.create_task(self._send_partial(turn, text))

        speculation.task.add_done_callback(show)

    def _on_resume(self, turn: _Turn) -> None:
        speculation, turn.speculation = turn.speculation, None
        if speculation is None:
            return
        if (speculation.end - speculation.start) / STT_RATE >= KEEP_SPECULATION_S:
            turn.segments.append(speculation)  # ends in a pause: a clean place to cut
        else:
            speculation.task.cancel()

    async def _finish(self, turn: _Turn, ended: TurnEnded) -> None:
        marks = TurnMarks(voiced_end=ended.voiced_end_at, turn_end=ended.ended_at,
                          silence_window_ms=ended.silence_window_ms)
        turn.closed = True
        await self._cancel(turn.partial_task)
        # A speculation only exists while paused (a resume keeps or drops it), so the audio
        # after its cut is silence: it is the last segment.
        last = turn.speculation
        if last is not None:
            marks.speculative_hit = True
        elif turn.samples > turn.pending_start:
            last = self._decode(turn, turn.pending_start, turn.samples)
        texts: list[str] = []
        decode_s = 0.0
        for segment in [*turn.segments, *([last] if last else [])]:
            try:
                result = await segment.task
            except Exception:
                log.exception("a speech segment failed to decode")
                continue
            decode_s = result.decode_s
            if result.text:
                texts.append(result.text)
        marks.stt_final = self._clock()
        marks.stt_decode_ms = round(decode_s * 1000)
        text = " ".join(texts).strip()
        if text:
            self._finals.put_nowait(FinalTranscript(turn.number, text, marks))

    async def _drop(self, turn: _Turn) -> None:
        turn.closed = True
        await self._cancel(turn.partial_task)
        for segment in [*turn.segments, *([turn.speculation] if turn.speculation else [])]:
            await self._cancel(segment.task)

    @staticmethod
    async def _cancel(task: asyncio.Task[Recognition] | asyncio.Task[None] | None) -> None:
        if task is None or task.done():
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
