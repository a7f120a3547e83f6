"""Streaming speech-to-text stage: partial transcripts while the candidate talks, a final one
when the turn ends, and the text at each pause for the end-of-turn policy.

The final transcript should equal what an offline decode of the whole answer gives, so the
answer is decoded in as few, as long pieces as the latency allows, and only cut where
nobody speaks:
- pending audio is committed as a segment only at a real pause (≥ 300 ms unvoiced) once it
  is long (12 s), or at the best gap once it nears Whisper's window; no word is split and
  each piece carries a sentence or more of context;
- at every pause the pending audio is decoded with final priority ("speculation"). If the
  turn then ends, that decode completes the final transcript at once; if the candidate goes
  on, a long speculation becomes a segment (it ends in a pause) and a short one is dropped,
  so its words are decoded again with what follows. Just before it, a quick decode of the
  same audio gives the end-of-turn policy its text and closing-mark probability (the signal
  the fusion was fitted on; see ``audio.whisper_stt``): the verdict does not wait for the
  slower, more accurate words;
- long silences inside a clip (thinking pauses, 1–3 s of room noise) are squeezed to
  600 ms before decoding (their first and last 300 ms: the quiet end of one word and start
  of the next): Whisper neither needs them nor should hallucinate in them.
Partials decode the pending audio and are split, LocalAgreement style (ufal's
whisper_streaming), into a stable prefix (words two consecutive decodes agree on) and a
tentative tail. They are skipped when the shared recognizer is busy.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from audio.pcm import STT_RATE, pcm16_to_float
from audio.stt import Recognition, RecognitionBias, RecognitionRequest
from audio.stt_pool import Priority, RecognitionPool, RecognizerBusy
from audio.vad import FRAME_MS
from core.events import TranscriptPartialEvent
from core.tasks import cancel_and_wait, end_if_cancelled
from realtime.frames import (
    AudioFrame,
    FinalTranscript,
    PauseText,
    SpeechPaused,
    SpeechResumed,
    SpeechStarted,
    TurnDropped,
    TurnEnded,
    TurnFrame,
    TurnMarks,
)
from realtime.ports import Outbox
from realtime.transcript_stitching import agreed_prefix, join_segments, keep_agreed_words

log = logging.getLogger(__name__)

# 600 ms kept before the turn opens (90 ms of voice in a row): the first syllable starts
# quietly, under the VAD. Decoding each dev clip as a turn's audio (after 1 s of the bench
# microphone's room noise, webrtc VAD onset, tiny.en with a question prompt), plain and
# paused together: 300 ms and the start-only squeeze gave 127 word errors; 600 ms and the
# two-ended squeeze 108-110 (450 and 900 ms alike: the onset is what matters).
PREROLL_FRAMES = 20
PARTIAL_EVERY_S = 0.8  # new speech between two partial decodes
COMMIT_AFTER_S = 12.0  # pending audio this long is committed at the next real pause
FORCE_COMMIT_S = 24.0  # ... or at the next short gap between words
COMMIT_GAP_MS = 300  # a real pause: a clean place to cut
FORCE_GAP_MS = 90  # a gap between words
KEEP_SPECULATION_S = 10.0  # a speculation this long becomes a segment when speech resumes
SQUEEZE_MS = 300  # an unvoiced run keeps this much of its start (the words' end)...
ONSET_KEEP_MS = 300  # ...and this much of its end when speech follows (the next onset)


@dataclass
class _Segment:
    start: int  # frame indices into the turn
    end: int
    task: asyncio.Task[Recognition]

    def result(self) -> Recognition | None:
        """The decode, once it succeeded (None while running, cancelled or failed)."""
        if not self.task.done() or self.task.cancelled() or self.task.exception() is not None:
            return None
        return self.task.result()

    def text(self) -> str | None:
        """The text once decoded ("" if nothing was heard or the decode failed)."""
        if not self.task.done():
            return None
        result = self.result()
        return result.text if result is not None else ""

    def p_sentence_end(self) -> float | None:
        result = self.result()
        return result.p_sentence_end if result is not None else None


@dataclass
class _Turn:
    number: int
    frames: list[np.ndarray] = field(default_factory=list)
    voiced: list[bool] = field(default_factory=list)
    segments: list[_Segment] = field(default_factory=list)
    speculation: _Segment | None = None
    signal: _Segment | None = None  # the quick decode of the speculation's audio
    speculation_pause: int = 0
    partial_task: asyncio.Task[None] | None = None
    partial_at: int = 0
    last_partial: str = ""
    last_hypothesis: str = ""  # the previous partial decode of the pending audio
    agreed: str = ""  # the words two consecutive partial decodes agreed on (a vote for each)
    unvoiced_ms: int = 0
    closed: bool = False
    committed_end: int = 0  # where the committed segments end (the final piece excluded)

    def add(self, samples: np.ndarray, voiced: bool) -> None:
        self.frames.append(samples)
        self.voiced.append(voiced)

    @property
    def end(self) -> int:
        return len(self.frames)

    @property
    def pending_start(self) -> int:
        return self.segments[-1].end if self.segments else 0

    def pending_s(self) -> float:
        return (self.end - self.pending_start) * FRAME_MS / 1000

    def clip(self, start: int, end: int) -> np.ndarray:
        """Frames ``start:end`` as float audio, long unvoiced runs squeezed: a run keeps its
        first ``SQUEEZE_MS`` (the end of the words before it) and, when speech follows, its
        last ``ONSET_KEEP_MS`` (the quiet start of the next word, which the VAD calls
        unvoiced). With a 300 ms pre-roll and only a run's start kept, the dev split's paused
        turns decoded with 39 word errors; with 600 ms and both ends, 29
        (``PREROLL_FRAMES`` has the method; ``viva bench stt --set DIR`` decodes this audio
        as its ``turn`` figure)."""
        head, tail = SQUEEZE_MS // FRAME_MS, ONSET_KEEP_MS // FRAME_MS
        chosen: list[np.ndarray] = []
        i = start
        while i < end:
            if self.voiced[i]:
                chosen.append(self.frames[i])
                i += 1
                continue
            j = i
            while j < end and not self.voiced[j]:
                j += 1
            kept = range(i, min(j, i + head))
            onset = range(max(i + head, j - tail), j) if j < end else range(0)
            chosen.extend(self.frames[k] for k in (*kept, *onset))
            i = j
        if not chosen:
            return np.zeros(0, dtype=np.float32)
        return pcm16_to_float(np.concatenate(chosen))

    def texts(self) -> list[str]:
        """Texts of the segments decoded so far, in order (stops at the first still running)."""
        texts: list[str] = []
        for segment in self.segments:
            text = segment.text()
            if text is None:
                break
            texts.append(text)
        return texts

    def prefix(self) -> str:
        return join_segments(self.texts())

    def final_words(self, texts: list[str]) -> str:
        """The final transcript from its pieces' texts: never losing the words the live
        partials agreed on (both the final and a reply prepared for it read it here)."""
        return keep_agreed_words(self.agreed, join_segments(texts))


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
        self._preroll: deque[tuple[np.ndarray, bool]] = deque(maxlen=PREROLL_FRAMES)
        self._turn: _Turn | None = None
        self._ended: _Turn | None = None  # the last finished turn, in case it goes on
        # (turn, pause) -> the whole text heard up to that pause, for the end-of-turn policy
        self._pause_texts: dict[tuple[int, int], asyncio.Future[PauseText]] = {}
        self._waiters: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        try:
            while True:
                # A cancel lost in the last frame's awaits (a decode, a send) ends the stage
                # here, not at its owner's second cancel seconds later.
                end_if_cancelled("the transcriber, after a frame", log)
                frame = await self.inbox.get()
                await self._handle(frame)
        finally:
            if self._turn is not None:
                await self._drop(self._turn)

    def pause_text(self, turn: int, pause: int) -> asyncio.Future[PauseText]:
        """Resolves to the text of the turn up to ``pause`` once its speculation is decoded."""
        key = (turn, pause)
        future = self._pause_texts.get(key)
        if future is None:
            future = asyncio.get_running_loop().create_future()
            self._pause_texts[key] = future
            for old in [k for k in self._pause_texts if k[0] < turn or k[1] < pause - 4]:
                self._pause_texts.pop(old).cancel()
        return future

    async def _handle(self, frame: AudioFrame | TurnFrame) -> None:
        turn = self._turn
        if isinstance(frame, AudioFrame):
            voiced = frame.voiced and not frame.echo
            if turn is None:
                self._preroll.append((frame.samples, voiced))
            else:
                turn.add(frame.samples, voiced)
                turn.unvoiced_ms = 0 if voiced else turn.unvoiced_ms + FRAME_MS
                self._maybe_commit(turn)
                self._maybe_partial(turn)
        elif isinstance(frame, SpeechStarted):
            if turn is not None:
                await self._drop(turn)
            self._turn = self._reopen(frame) or _Turn(frame.turn)
            for samples, voiced in self._preroll:
                self._turn.add(samples, voiced)
            self._preroll.clear()
        elif turn is None or frame.turn != turn.number:
            return
        elif isinstance(frame, SpeechPaused):
            self._speculate(turn, frame.pause)
        elif isinstance(frame, SpeechResumed):
            self._on_resume(turn)
        elif isinstance(frame, TurnEnded):
            self._turn = None
            await self._finish(turn, frame)
        elif isinstance(frame, TurnDropped):
            self._turn = None
            await self._drop(turn)

    def _reopen(self, started: SpeechStarted) -> _Turn | None:
        """A false end: the new speech continues the turn that just ended. Its audio is kept
        and its last piece decoded again together with the new words, so the answer's
        transcript is what one decode of the whole answer gives."""
        ended, self._ended = self._ended, None
        if ended is None or started.continues != ended.number:
            return None
        turn = _Turn(started.turn, frames=ended.frames, voiced=ended.voiced,
                     segments=[s for s in ended.segments if s.end <= ended.committed_end])
        turn.partial_at = turn.end
        return turn

    # -- decoding ----------------------------------------------------------------------

    def _request(self, turn: _Turn, start: int, end: int) -> RecognitionRequest:
        bias = self._bias()
        # The words already heard in this turn are not put in the prompt: tiny models then
        # tend to repeat them (measured), while the question and key terms only help.
        return RecognitionRequest(audio=turn.clip(start, end), bias=bias)

    def _decode(self, turn: _Turn, start: int, end: int) -> _Segment:
        return self._submit(start, end, self._request(turn, start, end))

    def _submit(self, start: int, end: int, request: RecognitionRequest) -> _Segment:
        task = asyncio.create_task(self._pool.recognize(request, Priority.FINAL))
        return _Segment(start, end, task)

    def _maybe_commit(self, turn: _Turn) -> None:
        if turn.speculation is not None:
            return
        pending = turn.pending_s()
        if not ((pending >= COMMIT_AFTER_S and turn.unvoiced_ms >= COMMIT_GAP_MS)
                or (pending >= FORCE_COMMIT_S and turn.unvoiced_ms >= FORCE_GAP_MS)):
            return
        # Cut inside the silence, keeping its start with the words before it.
        cut = turn.end - (turn.unvoiced_ms // FRAME_MS) + max(1, SQUEEZE_MS // FRAME_MS // 2)
        cut = min(turn.end, max(turn.pending_start + 1, cut))
        turn.segments.append(self._decode(turn, turn.pending_start, cut))
        turn.last_hypothesis = ""

    def _maybe_partial(self, turn: _Turn) -> None:
        if turn.speculation is not None or turn.closed:
            return  # paused: the speculation gives the next partial
        if turn.partial_task is not None and not turn.partial_task.done():
            return
        if (turn.end - turn.partial_at) * FRAME_MS / 1000 < PARTIAL_EVERY_S:
            return
        turn.partial_at = turn.end
        if turn.pending_s() < 0.25:
            return
        request = self._request(turn, turn.pending_start, turn.end)
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

    async def _send_partial(self, turn: _Turn, text: str, *, settled: bool = False) -> None:
        prefix = turn.prefix()
        stable_tail = text if settled else agreed_prefix(turn.last_hypothesis, text)
        turn.last_hypothesis = text
        full = join_segments([prefix, text])
        if turn.closed or not full or full == turn.last_partial:
            return
        turn.last_partial = full
        stable = join_segments([prefix, stable_tail])
        if not settled and len(stable.split()) >= len(turn.agreed.split()):
            turn.agreed = stable
        await self._outbox.send_event(TranscriptPartialEvent(
            text=full, stable=stable, tentative=full[len(stable):].strip()))

    def _speculate(self, turn: _Turn, pause: int) -> None:
        turn.speculation_pause = pause
        if turn.end - turn.pending_start <= 0:
            self._resolve_pause(turn, pause, PauseText(turn.prefix()))
            return
        full = self._request(turn, turn.pending_start, turn.end)
        if self._pool.recognizer.quick_is_full(len(full.audio) / STT_RATE):
            # A long pending stretch: the quick window is the full one, so one decode gives
            # the verdict its signal and the final transcript its words (half the work).
            signal = speculation = self._submit(turn.pending_start, turn.end, full)
        else:
            # Submitted first, so the pool decodes it first: the verdict waits on it.
            signal = self._submit(turn.pending_start, turn.end, replace(full, quick=True))
            speculation = self._submit(turn.pending_start, turn.end, full)
        turn.speculation, turn.signal = speculation, signal

        def judge(task: asyncio.Task[Recognition]) -> None:
            done = turn.texts()
            if len(done) == len(turn.segments):  # every earlier segment is decoded
                self._resolve_pause(turn, pause, PauseText(
                    join_segments([*done, signal.text() or ""]), signal.p_sentence_end()))
            else:
                waiter = asyncio.create_task(self._resolve_when_decoded(turn, pause, signal))
                self._waiters.add(waiter)
                waiter.add_done_callback(self._waiters.discard)

        def show(task: asyncio.Task[Recognition]) -> None:
            text = speculation.text()
            if text and not turn.closed and turn.speculation is speculation:
                # Shown as a partial right away; the turn may still go on.
                turn.partial_task = asyncio.create_task(
                    self._send_partial(turn, text, settled=True))

        signal.task.add_done_callback(judge)
        speculation.task.add_done_callback(show)

    async def final_text_at(self, turn: int, pause: int) -> str | None:
        """The final transcript the turn gets if it ends at ``pause``: the same words
        ``_finish`` would hand on, from the accurate decode of the pause (not the quick one
        the verdict read), so a reply prepared from them is the one the answer needs.
        None when that pause is over (speech resumed) or the turn is not this one."""
        current = self._turn
        if (current is None or current.number != turn or current.speculation is None
                or current.speculation_pause != pause):
            return None
        pieces = [*current.segments, current.speculation]
        # wait() leaves the decodes running if this caller is cancelled: they are the turn's.
        await asyncio.wait({piece.task for piece in pieces})
        if current.speculation is not pieces[-1] and not current.closed:
            return None  # the candidate went on while it decoded
        texts = [r.text for piece in pieces if (r := piece.result()) is not None]
        return current.final_words(texts) or None

    async def _resolve_when_decoded(self, turn: _Turn, pause: int, last: _Segment) -> None:
        # wait(), not ``await task``: a segment's failure or cancellation is its own (its
        # text is then missing), while this waiter's own cancellation must still end it.
        tasks = {segment.task for segment in turn.segments}
        if tasks:
            await asyncio.wait(tasks)
        self._resolve_pause(turn, pause, PauseText(
            join_segments([*turn.texts(), last.text() or ""]), last.p_sentence_end()))

    def _resolve_pause(self, turn: _Turn, pause: int, text: PauseText) -> None:
        future = self._pause_texts.get((turn.number, pause))
        if future is None:
            future = self.pause_text(turn.number, pause)
        if not future.done():
            future.set_result(text)

    def _on_resume(self, turn: _Turn) -> None:
        speculation, turn.speculation = turn.speculation, None
        if turn.signal is not None and turn.signal is not speculation:
            turn.signal.task.cancel()
            turn.signal = None
        if speculation is None:
            return
        if (speculation.end - speculation.start) * FRAME_MS / 1000 >= KEEP_SPECULATION_S:
            turn.segments.append(speculation)  # ends in a pause: a clean place to cut
            turn.last_hypothesis = ""
        else:
            speculation.task.cancel()

    async def _finish(self, turn: _Turn, ended: TurnEnded) -> None:
        marks = TurnMarks(voiced_end=ended.voiced_end_at, turn_end=ended.ended_at,
                          silence_window_ms=ended.silence_window_ms)
        turn.closed = True
        turn.committed_end = turn.pending_start
        self._ended = turn
        await self._cancel(turn.partial_task)
        # A speculation only exists while paused (a resume keeps or drops it), so the audio
        # after its cut is silence: it is the last segment.
        last = turn.speculation
        if last is not None:
            marks.speculative_hit = True
        elif turn.end > turn.pending_start:
            last = self._decode(turn, turn.pending_start, turn.end)
        texts: list[str] = []
        decode_s = 0.0
        logprob_sum, words = 0.0, 0
        for segment in [*turn.segments, *([last] if last else [])]:
            try:
                result = await segment.task
            except Exception:
                log.exception("a speech segment failed to decode")
                continue
            decode_s = result.decode_s
            texts.append(result.text)
            n = len(result.text.split())
            logprob_sum, words = logprob_sum + result.avg_logprob * n, words + n
        marks.stt_final = self._clock()
        marks.stt_decode_ms = round(decode_s * 1000)
        text = turn.final_words(texts)
        if text:
            self._finals.put_nowait(FinalTranscript(
                turn.number, text, marks, logprob_sum / words if words else None))

    async def _drop(self, turn: _Turn) -> None:
        turn.closed = True
        await self._cancel(turn.partial_task)
        for segment in [*turn.segments, *([turn.speculation] if turn.speculation else []),
                        *([turn.signal] if turn.signal else [])]:
            await self._cancel(segment.task)

    @staticmethod
    async def _cancel(task: asyncio.Task[Recognition] | asyncio.Task[None] | None) -> None:
        if task is None or task.done():
            return
        await cancel_and_wait(task, context="transcriber", logger=log)

