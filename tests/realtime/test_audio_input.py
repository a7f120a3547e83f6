"""Refusals of bad audio are clear and leave the input usable."""

from __future__ import annotations

import numpy as np
import pytest

from realtime.audio_input import AudioInput
from realtime.errors import VoiceInputError


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def pcm(ms: int, rate: int = 16000) -> bytes:
    return np.full(rate * ms // 1000, 1000, dtype="<i2").tobytes()


def refused(audio: AudioInput, data: bytes) -> str:
    with pytest.raises(VoiceInputError) as err:
        audio.frames(data)
    assert err.value.message
    return err.value.code


def test_audio_before_config_and_bad_config_are_refused() -> None:
    audio = AudioInput(Clock())
    assert refused(audio, pcm(20)) == "audio_not_configured"
    with pytest.raises(VoiceInputError) as err:
        audio.configure(11025, "pcm_s16le")
    assert err.value.code == "unsupported_sample_rate"
    with pytest.raises(VoiceInputError) as err:
        audio.configure(16000, "opus")
    assert err.value.code == "unsupported_encoding"


def test_bad_frames_are_refused_and_good_ones_still_pass() -> None:
    clock = Clock()
    audio = AudioInput(clock)
    audio.configure(16000, "pcm_s16le")
    assert refused(audio, b"\x00\x01\x02") == "bad_audio_frame"
    assert refused(audio, b"") == "bad_audio_frame"
    assert refused(audio, pcm(400)) == "audio_frame_too_large"
    frames = audio.frames(pcm(60))
    assert [len(f) for f, _ in frames] == [480, 480]
    assert frames[0][1] < frames[1][1] == clock.now


def test_audio_faster_than_real_time_is_refused() -> None:
    clock = Clock()
    audio = AudioInput(clock)
    audio.configure(16000, "pcm_s16le")
    codes = []
    for _ in range(80):  # 8 s of audio in no time
        try:
            audio.frames(pcm(100))
        except VoiceInputError as exc:
            codes.append(exc.code)
    assert codes and set(codes) == {"audio_too_fast"}
    clock.now += 1.0  # after a second of real time a second of audio is welcome again
    assert audio.frames(pcm(100))


def test_other_rates_are_resampled_to_16k() -> None:
    clock = Clock()
    audio = AudioInput(clock)
    audio.configure(48000, "pcm_s16le")
    total = 0
    for _ in range(50):  # 1 s at 48 kHz in 20 ms frames
        clock.now += 0.02
        total += sum(len(f) for f, _ in audio.frames(pcm(20, 48000)))
    assert 15000 <= total <= 16000
