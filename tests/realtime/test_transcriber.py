"""The streaming transcriber at a pause: a quick decode for the end-of-turn verdict, the full
window's decode for the words (a fake recognizer: only which request gets which answer is
under test here; the real recognizer's windows are tested in tests/audio)."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np

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
)
from realtime.transcriber import StreamingTranscriber


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


async def _speak(transcriber: StreamingTranscriber, frames: int, voiced: bool) -> None:
    for _ in range(frames):
        await transcriber.inbox.put(AudioFrame(np.full(FRAME_SAMPLES, 900 if voiced else 0,
                                                       dtype=np.int16), 0.0, voiced=voiced))


async def test_a_pause_is_judged_on_the_quick_decode_and_transcribed_by_the_full_one() -> None:
    fake = WindowRecognizer()
    pool = RecognitionPool(fake, workers=1)
    finals: asyncio.Queue[FinalTranscript] = asyncio.Queue()
    events = Events()
    transcriber = StreamingTranscriber(pool, events, finals, RecognitionBias)
    runner = asyncio.create_task(transcriber.run())
    try:
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
    finally:
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
        pool.close()


async def test_resumed_speech_drops_both_decodes_of_a_short_pause() -> None:
    fake = WindowRecognizer()
    pool = RecognitionPool(fake, workers=1)
    finals: asyncio.Queue[FinalTranscript] = asyncio.Queue()
    transcriber = StreamingTranscriber(pool, Events(), finals, RecognitionBias)
    runner = asyncio.create_task(transcriber.run())
    try:
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
    finally:
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
        pool.close()
