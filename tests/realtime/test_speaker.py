"""The speaker stage: a cancel lost while it tells the client of a failed utterance ends the
stage at once (the synthesizer here fails on purpose; real Piper is tested in tests/audio and
through the voice session)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from audio.echo import EchoDetector
from audio.tts import SpeechSynthesizer
from audio.tts_cache import SpeechCache
from core.events import ErrorEvent, Event
from realtime.frames import Utterance
from realtime.speaker import Speaker
from tests.lost_cancel import ends_on_one_cancel, swallow_a_cancel


class BrokenVoice(SpeechSynthesizer):
    name = "broken"
    sample_rate = 22050

    def synthesize(self, text: str) -> bytes:
        raise RuntimeError("the voice model is gone")


class LosesACancelOnErrors:
    """An outbox that loses the cancel arriving while it sends an error event."""

    def __init__(self) -> None:
        self.sent: list[Event] = []
        self.sending_error = asyncio.Event()

    async def send_event(self, event: Event) -> dict[str, Any]:
        self.sent.append(event)
        if isinstance(event, ErrorEvent):
            self.sending_error.set()
            await swallow_a_cancel()
        return {}

    async def send_audio(self, pcm: bytes) -> None:
        pass


async def test_a_cancel_lost_while_reporting_a_failure_ends_the_stage_at_once(
        caplog: pytest.LogCaptureFixture) -> None:
    outbox = LosesACancelOnErrors()
    with ThreadPoolExecutor(1) as executor:
        speaker = Speaker(BrokenVoice(), SpeechCache("broken"), executor, outbox,
                          EchoDetector())
        runner = asyncio.create_task(speaker.run(), name="voice-tts")
        try:
            speaker.say(Utterance(["Tell me about indexes."], "q-1"))
            await asyncio.wait_for(outbox.sending_error.wait(), 5)
            # Without the check it went back to wait for the next utterance, for ever.
            await ends_on_one_cancel(runner, caplog, "the speaker, after an utterance")
        finally:
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
