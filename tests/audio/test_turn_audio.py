"""``bench.stt.turn_audio``: a real recorded answer as a live turn hands it to the
recognizer (the VAD's cut, the pre-roll, the squeeze of a long pause)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from audio.speech_set import load_speech_set
from audio.vad import FRAME_SAMPLES
from bench.stt import turn_audio
from bench.voice_set import read_clip

PAUSED = Path(__file__).resolve().parents[1] / "data" / "turns" / "dev" / "paused"


def _loud_energy(audio: np.ndarray) -> float:
    frames = audio[:len(audio) // FRAME_SAMPLES * FRAME_SAMPLES].reshape(-1, FRAME_SAMPLES)
    rms = np.sqrt(np.mean(frames ** 2, axis=1))
    return float(np.sum(frames[rms >= 0.02] ** 2))


def test_paused_answers_keep_their_words_and_lose_much_of_their_pauses() -> None:
    turns_s = clips_s = pauses_s = 0.0
    for clip in load_speech_set(PAUSED)[:12]:
        pcm = read_clip(clip)
        turn = turn_audio(pcm).audio
        assert turn.dtype == np.float32
        # Every loud frame of the answer is in the turn (the pre-roll keeps the first word,
        # the squeeze keeps the quiet onset of the word after a pause).
        assert _loud_energy(turn) >= 0.98 * _loud_energy(pcm.astype(np.float32) / 32768.0)
        turns_s += len(turn) / 16000
        clips_s += len(pcm) / 16000
        pauses_s += sum(length for _, length in clip.pauses)
    # Long unvoiced runs keep 300 ms at each end (a stray voiced frame in a pause splits it).
    assert clips_s - turns_s > 0.25 * pauses_s


def test_silence_is_no_turn() -> None:
    silent = turn_audio(np.zeros(16000, dtype=np.int16))
    assert len(silent.audio) == 0 and silent.voice_end_s is None


def test_the_voice_end_is_timed_near_the_recordings_own() -> None:
    from bench.stt import voice_end_lag
    from bench.voice_set import voiced_end_s

    clips = [(c, read_clip(c)) for c in load_speech_set(PAUSED)[:12]]
    turns = {c.name: turn_audio(pcm) for c, pcm in clips}
    lags = [(end - voiced_end_s(pcm)) * 1000 for c, pcm in clips
            if (end := turns[c.name].voice_end_s) is not None]
    assert len(lags) == 12
    # Most ends within a few frames of the recording's voiced end (a soft last word or a
    # breath moves a few either way).
    assert sum(abs(lag) <= 150 for lag in lags) >= 8
    summary = voice_end_lag(clips, turns)
    assert summary["finished"] == 12 and -60 <= float(str(summary["p50"])) <= 90
