"""The live voice pipeline with real models, a recording Outbox and a real answer handler
shape: speech → partial and final transcripts → spoken reply; silence → nothing; barge-in;
the interviewer's own voice through the microphone; bad frames."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator

import numpy as np
import pytest

from agents.text_normalization import word_errors
from audio.pcm import STT_RATE, float_to_pcm16, pcm16_to_float, resample
from audio.sample_speech import ANSWERS
from realtime.errors import VoiceInputError
from realtime.voice_services import VoiceServices
from realtime.voice_session import VoiceSession
from tests.audio.voice_support import RecordingOutbox, silence, speech, stream
from tests.lost_cancel import swallow_a_cancel

pytestmark = pytest.mark.slow

REPLY = ["Good, that is right. Next question: what does a context manager guarantee?"]


class Interview:
    """Stands in for the interview engine behind the AnswerHandler port."""

    def __init__(self) -> None:
        self.answers: list[tuple[str, str]] = []

    async def on_final(self, text: str, turn_id: str) -> list[str]:
        self.answers.append((text, turn_id))
        return REPLY


@pytest.fixture
async def live(services: VoiceServices) -> AsyncIterator[tuple[VoiceSession, RecordingOutbox,
                                                               Interview]]:
    outbox, interview = RecordingOutbox(), Interview()
    session = VoiceSession(services=services, outbox=outbox, on_final=interview.on_final)
    await session.configure(16000, "pcm_s16le")
    yield session, outbox, interview
    await session.aclose()


async def test_spoken_answer_is_transcribed_and_answered_aloud(live, services) -> None:
    session, outbox, interview = live
    question, answer = ANSWERS[0]
    session.set_context(phase="initial", question_text=question, key_terms=["tuple"],
                        turn_id="q-1")
    await stream(session, silence(0.3))
    await stream(session, speech(services, answer))
    voiced_end = time.monotonic()
    await stream(session, silence(1.0))
    final = await outbox.wait_for("transcript_final")
    assert final["turn_id"] == "q-1"
    errors, words = word_errors(answer, final["text"])
    assert errors / words <= 0.2, final["text"]
    partials = outbox.events("transcript_partial")
    assert partials and partials[0]["seq"] < final["seq"]
    assert interview.answers == [(final["text"], "q-1")]
    end = await outbox.wait_for("tts_end")
    start = outbox.events("tts_start")[0]
    assert start["sample_rate"] == services.synthesizer.sample_rate
    assert start["seq"] > final["seq"] and end["turn_id"] == start["turn_id"]
    assert outbox.audio_bytes() > start["sample_rate"] * 2  # more than a second of speech
    first_audio = next(t for t, e in outbox.items if isinstance(e, bytes))
    assert first_audio - voiced_end < 5.0  # loose: the bench measures latency, not tests
    latency = await outbox.wait_for("latency")
    marks = latency["marks_ms"]
    assert 0 < marks["turn_end"] <= marks["stt_final"] <= marks["reply_ready"] \
        <= marks["first_audio"]


async def test_silence_and_hiss_give_no_text(live) -> None:
    session, outbox, interview = live
    hiss = np.random.default_rng(3).normal(0, 60, STT_RATE).astype(np.int16)
    await stream(session, silence(1.0))
    await stream(session, hiss)
    await stream(session, silence(1.0))
    await session.end_turn()
    await asyncio.sleep(0.3)
    assert outbox.events() == []
    assert interview.answers == []


async def test_candidate_speech_stops_the_interviewer(live, services) -> None:
    session, outbox, interview = live
    await session.speak(["Let me describe the next problem in some detail. It is about "
                         "merging intervals, and you may use any language you like."], "q-2")
    await outbox.wait_for("tts_start")
    spoken_at = time.monotonic()
    await stream(session, speech(services, ANSWERS[3][1], "espeak"))
    stop = await outbox.wait_for("tts_stop", timeout_s=1.0)
    assert stop["turn_id"] == "q-2"
    stop_at = next(t for t, e in outbox.items if isinstance(e, dict) and e["type"] == "tts_stop")
    assert stop_at - spoken_at < 1.0  # at once: within the first second of speech
    await stream(session, silence(1.0))
    final = await outbox.wait_for("transcript_final")
    assert "generator" in final["text"].lower()


async def test_own_voice_through_the_microphone_is_not_the_candidate(live, services) -> None:
    session, outbox, interview = live
    rate = services.synthesizer.sample_rate
    await session.speak(["A hash map stores keys and values. Lookups take constant time on "
                         "average, and collisions are handled by chaining."], "q-3")
    await outbox.wait_for("tts_start")
    while not outbox.audio_bytes():
        outbox.changed.clear()
        await outbox.changed.wait()
    # The client plays from the moment the first chunk reaches it, never before.
    first = next(t for t, e in outbox.items if isinstance(e, bytes))
    delay = 0.12  # client buffering + playback + capture
    start = time.monotonic()
    cursor = 0  # next microphone sample, on the playback timeline (contiguous frames)
    sent, heard = -1, np.zeros(0, np.float32)
    n = 0
    while True:
        audio = b"".join(e for _, e in outbox.items if isinstance(e, bytes))
        if len(audio) != sent:  # resample only when more speech arrived
            sent = len(audio)
            heard = 0.4 * resample(pcm16_to_float(audio), rate, STT_RATE)  # through a room
        if cursor == 0:
            cursor = int((time.monotonic() - first - delay) * STT_RATE)
        frame = heard[max(0, cursor):max(0, cursor + 320)]
        frame = np.concatenate([frame, np.zeros(320 - len(frame), np.float32)])
        frame = frame + np.random.default_rng(n).normal(0, 0.002, 320).astype(np.float32)
        await session.feed(float_to_pcm16(frame).tobytes())
        cursor += 320
        n += 1
        await asyncio.sleep(max(0.0, start + n * 0.02 - time.monotonic()))
        if outbox.events("tts_end") and cursor > len(heard) + STT_RATE // 2:
            break
    assert outbox.events("tts_stop") == []
    assert outbox.events("transcript_partial") == [] and outbox.events("transcript_final") == []
    assert interview.answers == []


async def test_bad_frames_are_refused_and_the_session_goes_on(services) -> None:
    outbox, interview = RecordingOutbox(), Interview()
    session = VoiceSession(services=services, outbox=outbox, on_final=interview.on_final)
    try:
        with pytest.raises(VoiceInputError) as err:
            await session.feed(bytes(640))
        assert err.value.code == "audio_not_configured"
        with pytest.raises(VoiceInputError):
            await session.configure(16000, "mp3")
        await session.configure(16000, "pcm_s16le")
        with pytest.raises(VoiceInputError) as err:
            await session.feed(bytes(641))
        assert err.value.code == "bad_audio_frame"
        with pytest.raises(VoiceInputError) as err:
            await session.feed(bytes(32000))  # 1 s in one frame
        assert err.value.code == "audio_frame_too_large"
        await session.feed(bytes(640))  # still accepted
    finally:
        await session.aclose()


async def test_coding_phase_waits_for_a_long_silence_or_explicit_end(live, services) -> None:
    session, outbox, interview = live
    session.set_context(phase="coding", question_text=None, key_terms=[])
    await stream(session, speech(services, ANSWERS[6][1]))
    await stream(session, silence(1.2))  # thinking quietly: not the end of the turn
    assert outbox.events("transcript_final") == []
    await session.end_turn()
    final = await outbox.wait_for("transcript_final")
    assert "index" in final["text"].lower()


class SwallowsItsCancel(Interview):
    """An engine whose answer loses the cancel that comes while it works (as 3.11's
    ``wait_for`` does when its result finishes as the cancel arrives)."""

    def __init__(self) -> None:
        super().__init__()
        self.answering = asyncio.Event()

    async def on_final(self, text: str, turn_id: str) -> list[str]:
        self.answers.append((text, turn_id))
        self.answering.set()
        await swallow_a_cancel()
        return REPLY


async def test_closing_while_the_engine_answers_ends_the_reply_stage_on_one_cancel(
        services, caplog: pytest.LogCaptureFixture) -> None:
    outbox, interview = RecordingOutbox(), SwallowsItsCancel()
    session = VoiceSession(services=services, outbox=outbox, on_final=interview.on_final,
                           session_id="s-lost-cancel")
    await session.configure(16000, "pcm_s16le")
    try:
        question, answer = ANSWERS[0]
        session.set_context(phase="initial", question_text=question, key_terms=[],
                            turn_id="q-1")
        await stream(session, speech(services, answer))
        await stream(session, silence(1.0))
        await asyncio.wait_for(interview.answering.wait(), 30)
    finally:
        with caplog.at_level(logging.WARNING, logger="viva"):
            await session.aclose()
    messages = [r.getMessage() for r in caplog.records]
    # Without the check the stage went back to wait for the next final and was only
    # stopped by a second cancel, 2 s later ("still running ... cancelling again").
    assert not any("cancelling again" in m for m in messages), messages
    assert any("s-lost-cancel voice reply (the engine answering)" in m and "swallowed" in m
               for m in messages), messages
    assert not session._stages.tasks
