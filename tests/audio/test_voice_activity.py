"""VAD on real speech, silence and noise; echo recognition of the interviewer's own voice."""

from __future__ import annotations

import numpy as np
import pytest

from audio.echo import EchoDetector
from audio.pcm import STT_RATE, pcm16_to_float
from audio.sample_speech import ANSWERS
from audio.vad import FRAME_SAMPLES, WebRtcVoiceDetector
from realtime.voice_services import VoiceServices
from tests.audio.voice_support import speech

pytestmark = pytest.mark.slow


def voiced_share(pcm: np.ndarray) -> float:
    vad = WebRtcVoiceDetector()
    frames = [pcm[i:i + FRAME_SAMPLES] for i in range(0, len(pcm) - FRAME_SAMPLES,
                                                       FRAME_SAMPLES)]
    return sum(vad.is_speech(f) for f in frames) / len(frames)


def test_speech_is_voiced_silence_and_hiss_are_not(services: VoiceServices) -> None:
    assert voiced_share(speech(services, ANSWERS[0][1])) > 0.6
    assert voiced_share(np.zeros(STT_RATE * 2, dtype=np.int16)) == 0.0
    hiss = np.random.default_rng(1).normal(0, 40, STT_RATE * 2).astype(np.int16)
    assert voiced_share(hiss) < 0.05


def test_own_voice_coming_back_is_echo_the_candidate_is_not(services: VoiceServices) -> None:
    said = speech(services, ANSWERS[2][1])  # what the interviewer played
    other = speech(services, ANSWERS[5][1])  # the candidate (different words)
    echo = EchoDetector()
    t0 = 100.0
    echo.add_reference(said.astype("<i2").tobytes(), STT_RATE, t0)
    rng = np.random.default_rng(2)
    delay = int(0.18 * STT_RATE)  # playback + capture latency
    block = int(0.24 * STT_RATE)
    echo_hits = candidate_hits = mixed_hits = checks = 0
    for end in range(delay + STT_RATE, len(said) - STT_RATE // 2, STT_RATE // 8):
        now = t0 + end / STT_RATE
        looped = 0.3 * pcm16_to_float(said[end - delay - block:end - delay])
        looped = looped + rng.normal(0, 0.003, block).astype(np.float32)
        candidate = pcm16_to_float(other[end - block:end])
        echo_hits += echo.is_echo(looped, now)
        candidate_hits += echo.is_echo(candidate, now)
        mixed_hits += echo.is_echo(candidate + looped, now)
        checks += 1
    assert echo_hits >= checks - 1, (echo_hits, checks)
    assert candidate_hits == 0
    # Over the interviewer the candidate is mostly not echo (their pauses may be).
    assert mixed_hits < checks / 2, (mixed_hits, checks)
    assert not echo.is_echo(pcm16_to_float(said[:block]), t0 + 60)  # long after playback
