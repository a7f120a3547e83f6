"""Streaming speech-to-text stage: partial transcripts while the candidate talks, a final one
when the turn ends.

Most of the decoding happens during the turn so little is left when it ends: at every short
pause the audio so far is decoded with final priority ("speculative final"). If the turn
then ends, that result is the final transcript at once; if the candidate goes on after a
long stretch, the result is committed and later decodes start after it.
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
PARTIAL_EVERY_S = 0.6  # new speech between two partial decodes
COMMIT_MIN_S = 4.0  # a decoded stretch this long before a pause is kept when speech resumes
PROMPT_PREFIX_CHARS = 200


@dataclass
class _Speculation:
    cut: int  # samples of the turn the decode covers
    task: asyncio.Task[Recognition]


@dataclass
class _Turn:
    number: int
    audio: list[np.ndarray]
    samples: int = 0
    committed: list[str] = field(default_factory=list)
    committed_samples: int = 0
    commit: _Speculation | None = None  # a decode that will be committed when done
    speculation: _Speculation | None = None
    partial_task: asyncio.Task[None] | None = None
    partial_at: int = 0
    last_partial: str = ""
    closed: bool = False

    def add(self, samples: np.ndarray) -> None:
        self.audio.append(samples)
        self.samples += len(samples)

    def clip(self, start: int, end: int) -> np.ndarray:
        whole = np.concatenate(self.audio) if len(self.audio) != 1 else self.audio[0]
        self.audio = [whole]
        return pcm16_to_float(whole[start:end])

    def prefix(self) -> str:
        return " ".join(self.committed)


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
        prefix = turn.prefix()[-PROMPT_PREFIX_CHARS:]
        return RecognitionRequest(
            audio=turn.clip(start, end),
            bias=RecognitionBias(context=bias.context, hotwords=bias.hotwords,
                                 prefix_text=prefix),
        )

    def _apply_commit(self, turn: _Turn) -> None:
        commit = turn.commit
        if commit is None or not commit.task.done():
            return
        turn.commit = None
        if commit.task.cancelled() or commit.task.exception() is not None:
            return  # the stretch stays uncommitted and is decoded again with the rest
        text = commit.task.result().text
        if text:
            turn.committed.append(text)
        turn.committed_samples = commit.cut

    def _maybe_partial(self, turn: _Turn) -> None:
        if turn.speculation is not None or turn.closed:
            return  # paused: the speculative decode gives the next partial
        if turn.partial_task is not None and not turn.partial_task.done():
            return
        if (turn.samples - turn.partial_at) / STT_RATE < PARTIAL_EVERY_S:
            return
        self._apply_commit(turn)
        turn.partial_at = turn.samples
        request = self._request(turn, turn.committed_samples, turn.samples)
        try:
            future = self._pool.submit(request, Priority.PARTIAL)
        except RecognizerBusy:
            return  # backpressure: skip this partial, the next one covers more
        turn.partial_task = asyncio.create_task(self._partial(turn, future))

    async def _partial(self, turn: _Turn,
                       future: concurrent.futures.Future[Recognition]) -> None:
        try:
            result: Recognition = await asyncio.wrap_future(future)
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
        self._apply_commit(turn)
        if turn.commit is not None:
            return  # still committing the previous stretch; the final will decode the rest
        request = self._request(turn, turn.committed_samples, turn.samples)
        task = asyncio.create_task(self._pool.recognize(request, Priority.FINAL))
        turn.speculation = _Speculation(turn.samples, task)
        task.add_done_callback(lambda t: self._speculation_done(turn, t))

    def _speculation_done(self, turn: _Turn, task: asyncio.Task[Recognition]) -> None:
        if task.cancelled() or task.exception() is not None or turn.closed:
            return
        text = task.result().text
        if text:
            # Shown as a partial right away; the turn may still go on.
            turn.partial_task = asyncio.create_task(self._send_partial(turn, text))

    def _on_resume(self, turn: _Turn) -> None:
        speculation, turn.speculation = turn.speculation, None
        if speculation is None:
            return
        if (speculation.cut - turn.committed_samples) / STT_RATE >= COMMIT_MIN_S:
            turn.commit = speculation
        else:
            speculation.task.cancel()

    async def _finish(self, turn: _Turn, ended: TurnEnded) -> None:
        marks = TurnMarks(voiced_end=ended.voiced_end_at, turn_end=ended.ended_at,
                          silence_window_ms=ended.silence_window_ms)
        turn.closed = True
        await self._cancel(turn.partial_task)
        if turn.commit is not None:
            with contextlib.suppress(Exception):
                await turn.commit.task
            self._apply_commit(turn)
        # A speculation only exists while paused (a resume discards or commits it), so the
        # audio after its cut is silence: its text is the rest of the turn.
        result: Recognition | None = None
        if turn.speculation is not None:
            try:
                result = await turn.speculation.task
                marks.speculative_hit = True
            except Exception:
                log.exception("speculative decode failed; decoding again")
        if result is None:
            result = await self._pool.recognize(
                self._request(turn, turn.committed_samples, turn.samples), Priority.FINAL)
        marks.stt_final = self._clock()
        marks.stt_decode_ms = round(result.decode_s * 1000)
        text = " ".join(t for t in (turn.prefix(), result.text) if t).strip()
        if text:
            self._finals.put_nowait(FinalTranscript(turn.number, text, marks))

    async def _drop(self, turn: _Turn) -> None:
        turn.closed = True
        await self._cancel(turn.partial_task)
        for spec in (turn.speculation, turn.commit):
            if spec is not None:
                await self._cancel(spec.task)

    @staticmethod
    async def _cancel(task: asyncio.Task[object] | asyncio.Task[None] | None) -> None:
        if task is None or task.done():
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task

