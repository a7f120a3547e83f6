"""The streaming transcriber at a pause: a quick decode for the end-of-turn verdict, the full
window's decode for the words (a fake recognizer: only which request gets which answer is
under test here; the real recognizer's windows are tested in tests/audio)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from typing import Any

import numpy as np
import pytest

from audio.stt import Recognition, RecognitionBias, RecognitionRequest, SpeechRecognizer
from audio.stt_pool import RecognitionPool
from audio.vad import FRAME_SAMPLES
from core.events import Event, TranscriptPartialEvent
from realtime.frames import (
    AudioFrame,
    FinalTranscript,
    SpeechPaused,
    SpeechResumed,
    SpeechStarted,
    TurnEnded,
    TurnFrame,
)
from realtime.transcriber import StreamingTranscriber
from tests.lost_cancel import ends_on_one_cancel, swallow_a_cancel


class WindowRecognizer(SpeechRecognizer):
    """Answers a quick request and a full-window one differently, and logs the order."""

    name = "window-fake"

    def __init__(self) -> None:
        self.requests: list[bool] = []

    def recognize(self, request: RecognitionRequest) -> Recognition:
        self.requests.append(request.quick)
        if request.quick:
            return Recognition("place cost stella", 1.0, 0.01, 0.0, -0.3, p_sentence_end=0.91)
        return Recognition("Please call Stella.", 1.0, 0.01, 0.0, -0.2, p_sentence_end=0.5)


class Events:
    def __init__(self) -> None:
        self.sent: list[Event] = []
        self.partial = asyncio.Event()

    async def send_event(self, event: Event) -> dict[str, Any]:
        self.sent.append(event)
        if isinstance(event, TranscriptPartialEvent):
            self.partial.set()
        return {}

    async def send_audio(self, pcm: bytes) -> None:
        pass


@contextlib.asynccontextmanager
async def running(fake: SpeechRecognizer) -> AsyncIterator[
        tuple[StreamingTranscriber, asyncio.Queue[FinalTranscript], Events]]:
    """A transcriber over a one-worker pool of ``fake``, running; stopped afterwards."""
    pool = RecognitionPool(fake, workers=1)
    finals: asyncio.Queue[FinalTranscript] = asyncio.Queue()
    events = Events()
    transcriber = StreamingTranscriber(pool, events, finals, RecognitionBias)
    runner = asyncio.create_task(transcriber.run())
    try:
        yield transcriber, finals, events
    finally:
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
        pool.close()


async def _speak(transcriber: StreamingTranscriber, frames: int, voiced: bool) -> None:
    for _ in range(frames):
        await transcriber.inbox.put(AudioFrame(np.full(FRAME_SAMPLES, 900 if voiced else 0,
                                                       dtype=np.int16), 0.0, voiced=voiced))


async def test_a_pause_is_judged_on_the_quick_decode_and_transcribed_by_the_full_one() -> None:
    fake = WindowRecognizer()
    async with running(fake) as (transcriber, finals, events):
        await transcriber.inbox.put(SpeechStarted(1, 0.0))
        await _speak(transcriber, 20, voiced=True)  # 0.6 s: no partial yet
        await transcriber.inbox.put(SpeechPaused(1, 0.0, pause=1))
        judged = await asyncio.wait_for(transcriber.pause_text(1, 1), 5)
        assert (judged.text, judged.p_sentence_end) == ("place cost stella", 0.91)
        await asyncio.wait_for(events.partial.wait(), 5)  # the full decode, shown
        assert fake.requests == [True, False]  # the verdict's decode goes first
        await transcriber.inbox.put(TurnEnded(1, "complete", 0.0, 0.4, 400))
        final = await asyncio.wait_for(finals.get(), 5)
        assert final.text == "Please call Stella."
        assert final.marks.speculative_hit  # no decode after the end: the words were ready
        assert fake.requests == [True, False]


async def test_resumed_speech_drops_both_decodes_of_a_short_pause() -> None:
    fake = WindowRecognizer()
    async with running(fake) as (transcriber, finals, events):
        await transcriber.inbox.put(SpeechStarted(1, 0.0))
        await _speak(transcriber, 20, voiced=True)
        await transcriber.inbox.put(SpeechPaused(1, 0.0, pause=1))
        await asyncio.wait_for(transcriber.pause_text(1, 1), 5)
        await transcriber.inbox.put(SpeechResumed(1))
        await _speak(transcriber, 20, voiced=True)
        await transcriber.inbox.put(TurnEnded(1, "silence", 0.0, 3.0, 3000))
        final = await asyncio.wait_for(finals.get(), 5)
        # The whole turn is decoded again after the end, with the full window.
        assert not final.marks.speculative_hit
        assert final.text == "Please call Stella."
        assert fake.requests[-1] is False


class LongWindowRecognizer(WindowRecognizer):
    """Whose quick window equals the full one from 0.5 s of audio (Whisper: from 8.5 s)."""

    def quick_is_full(self, audio_s: float) -> bool:
        return audio_s >= 0.5


async def test_a_long_pause_is_decoded_once_for_both_the_verdict_and_the_words() -> None:
    fake = LongWindowRecognizer()
    async with running(fake) as (transcriber, finals, events):
        await transcriber.inbox.put(SpeechStarted(1, 0.0))
        await _speak(transcriber, 20, voiced=True)  # 0.6 s: no partial yet
        await transcriber.inbox.put(SpeechPaused(1, 0.0, pause=1))
        judged = await asyncio.wait_for(transcriber.pause_text(1, 1), 5)
        assert (judged.text, judged.p_sentence_end) == ("Please call Stella.", 0.5)
        await transcriber.inbox.put(TurnEnded(1, "complete", 0.0, 0.4, 400))
        final = await asyncio.wait_for(finals.get(), 5)
        assert final.text == "Please call Stella." and final.marks.speculative_hit
        assert fake.requests == [False]  # one decode, not two


class FramesRecognizer(LongWindowRecognizer):
    """Says how many frames it heard, so each segment's words are its own; decodes only once
    ``gate`` opens (a decode still running when speech resumes)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def recognize(self, request: RecognitionRequest) -> Recognition:
        self.requests.append(request.quick)
        self.gate.wait(5)
        return Recognition(f"Heard {len(request.audio) // FRAME_SAMPLES} frames.", 1.0, 0.01,
                           0.0, -0.2, p_sentence_end=0.5)


async def test_a_shared_decode_survives_resumed_speech_as_a_segment() -> None:
    fake = FramesRecognizer()
    async with running(fake) as (transcriber, finals, events):
        await transcriber.inbox.put(SpeechStarted(1, 0.0))
        await _speak(transcriber, 340, voiced=True)  # 10.2 s: kept as a segment on resuming
        await transcriber.inbox.put(SpeechPaused(1, 0.0, pause=1))
        # Speech resumes while the pause's one decode runs: the verdict's signal is dropped,
        # not its twin, the speculation that becomes the turn's first segment.
        await transcriber.inbox.put(SpeechResumed(1))
        await _speak(transcriber, 20, voiced=True)
        await transcriber.inbox.put(TurnEnded(1, "complete", 0.0, 0.4, 400))
        fake.gate.set()
        final = await asyncio.wait_for(finals.get(), 5)
        # The kept segment's words, then the rest's: the shared decode was not cancelled.
        assert final.text == "Heard 340 frames. Heard 20 frames."


def test_a_long_silence_keeps_its_start_and_the_quiet_onset_before_the_next_words() -> None:
    from audio.vad import FRAME_MS
    from realtime.transcriber import ONSET_KEEP_MS, SQUEEZE_MS, _Turn

    head, tail = SQUEEZE_MS // FRAME_MS, ONSET_KEEP_MS // FRAME_MS
    pattern = [False] * 25 + [True] * 3 + [False] * 40 + [True] * 2 + [False] * 30
    turn = _Turn(1)
    for i, voiced in enumerate(pattern):
        turn.add(np.full(FRAME_SAMPLES, i, dtype=np.int16), voiced)
    kept = sorted({int(round(x * 32768)) for x in turn.clip(0, len(pattern))})
    lead = list(range(head)) + list(range(25 - tail, 25))
    gap = list(range(28, 28 + head)) + list(range(68 - tail, 68))
    # The trailing silence has no words after it: only its start stays.
    assert kept == [*lead, 25, 26, 27, *gap, 68, 69, *range(70, 70 + head)]
    # A run no longer than the two ends together is kept whole.
    assert len(turn.clip(68 - head - tail, 70)) == (head + tail + 2) * FRAME_SAMPLES


async def test_a_pause_waiting_on_earlier_decodes_ends_when_it_is_cancelled() -> None:
    # The waiter for earlier segments must not swallow its own cancellation: it used to
    # suppress CancelledError around each segment, so a cancelled waiter went on waiting
    # and then resolved a pause nobody wanted any more.
    from realtime.transcriber import _Segment, _Turn

    pool = RecognitionPool(WindowRecognizer(), workers=1)
    transcriber = StreamingTranscriber(pool, Events(), asyncio.Queue(), RecognitionBias)
    never = asyncio.Event()
    slow = asyncio.create_task(never.wait())  # an earlier segment still decoding
    turn = _Turn(1)
    turn.segments.append(_Segment(0, 10, slow))  # type: ignore[arg-type]
    last = _Segment(10, 20, asyncio.create_task(asyncio.sleep(0, Recognition(
        "and more", 1.0, 0.01, 0.0, -0.2))))
    waiter = asyncio.create_task(transcriber._resolve_when_decoded(turn, 1, last))
    await asyncio.sleep(0.01)
    waiter.cancel()
    await asyncio.wait({waiter}, timeout=2)
    assert waiter.done() and waiter.cancelled()
    assert not slow.done()  # the segment's decode is the turn's: left running
    slow.cancel()
    await asyncio.gather(slow, last.task, return_exceptions=True)
    pool.close()


class LosesACancel(StreamingTranscriber):
    """Loses the cancel that comes while it handles the end of a turn, as 3.11's
    ``wait_for`` does when its result finishes just as the cancel arrives."""

    handling: asyncio.Event

    async def _handle(self, frame: AudioFrame | TurnFrame) -> None:
        if isinstance(frame, TurnEnded):
            self.handling.set()
            await swallow_a_cancel()
            return
        await super()._handle(frame)


async def test_a_cancel_lost_in_a_frame_ends_the_stage_at_once(
        caplog: pytest.LogCaptureFixture) -> None:
    pool = RecognitionPool(WindowRecognizer(), workers=1)
    transcriber = LosesACancel(pool, Events(), asyncio.Queue(), RecognitionBias)
    transcriber.handling = asyncio.Event()
    runner = asyncio.create_task(transcriber.run(), name="voice-stt")
    try:
        await transcriber.inbox.put(TurnEnded(1, "complete", 0.0, 0.4, 400))
        await asyncio.wait_for(transcriber.handling.wait(), 5)
        # Without the check the stage went back to wait for the next frame, for ever.
        await ends_on_one_cancel(runner, caplog, "the transcriber, after a frame")
    finally:
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
        pool.close()
