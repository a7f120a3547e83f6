"""The committed real-speech dev set is what its tsv files say it is."""

from __future__ import annotations

import wave

import numpy as np
import pytest

from audio.speech_set import REPO_SET, SpeechClip, load_speech_set, parse_pauses

FOLDERS = ["plain", "paused"]


def _read(clip: SpeechClip) -> np.ndarray:
    with wave.open(str(clip.path), "rb") as handle:
        assert handle.getframerate() == 16000, clip.name
        assert handle.getnchannels() == 1, clip.name
        assert handle.getsampwidth() == 2, clip.name
        assert handle.getcomptype() == "NONE", clip.name
        data = handle.readframes(handle.getnframes())
    return np.frombuffer(data, dtype="<i2").astype(np.float64) / 32768.0


def _rms_db(x: np.ndarray) -> float:
    return float(20 * np.log10(np.sqrt(np.mean(x * x)) + 1e-12))


def _speech_db(x: np.ndarray) -> float:
    """Level of the loud part of a clip: the 95th percentile of 30 ms frame levels."""
    frames = x[: len(x) // 480 * 480].reshape(-1, 480)
    return float(np.percentile(10 * np.log10(np.mean(frames * frames, axis=1) + 1e-12), 95))


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_listed_clip_exists_and_is_16k_mono_pcm16(folder: str) -> None:
    clips = load_speech_set(REPO_SET / folder)
    assert len(clips) >= 10
    assert len({c.name for c in clips}) == len(clips)
    for clip in clips:
        assert clip.path.is_file(), clip.path
        assert clip.text and clip.source and clip.licence, clip.name
        samples = _read(clip)
        seconds = len(samples) / 16000
        limit = 12.0 + sum(d for _, d in clip.pauses)
        assert 3.0 <= seconds <= limit, (clip.name, seconds)
        assert np.abs(samples).max() > 0.05, clip.name


def test_plain_folder_lists_every_wav_it_holds() -> None:
    listed = {c.name for c in load_speech_set(REPO_SET / "plain")}
    on_disk = {p.name for p in (REPO_SET / "plain").glob("*.wav")}
    assert listed == on_disk
    assert len(listed) >= 20


def test_paused_clips_are_plain_clips_with_low_level_noise_pauses() -> None:
    plain = {c.name: c for c in load_speech_set(REPO_SET / "plain")}
    paused = load_speech_set(REPO_SET / "paused")
    for clip in paused:
        assert clip.name in plain, clip.name
        original = plain[clip.name]
        assert clip.text == original.text
        assert 1 <= len(clip.pauses) <= 2, clip.name
        samples = _read(clip)
        seconds = len(samples) / 16000
        base = len(_read(original)) / 16000
        assert seconds == pytest.approx(base + sum(d for _, d in clip.pauses), abs=0.01)
        speech = _speech_db(_read(original))
        for start, length in clip.pauses:
            assert 1.0 <= length <= 2.5, (clip.name, length)
            # Mid-clip: a quarter of the clip or more on each side of the pause.
            assert start >= 0.2 * base and start + length <= seconds - 0.2 * base, clip.name
            span = samples[int(start * 16000):int((start + length) * 16000)]
            level = _rms_db(span)
            assert np.count_nonzero(span) > 0.9 * len(span), f"{clip.name}: digital zeros"
            assert -75.0 < level < -45.0, (clip.name, level)
            assert level < speech - 30.0, (clip.name, level, speech)


def test_pause_column_parses() -> None:
    assert parse_pauses("") == []
    assert parse_pauses("1.5:2.0,4.25:1.1") == [(1.5, 2.0), (4.25, 1.1)]
    with pytest.raises(ValueError):
        parse_pauses("1.5")
    with pytest.raises(ValueError):
        parse_pauses("1.5:0")
