"""The committed real-speech dev set is what its tsv files say it is."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest

from audio.speech_set import REPO_SET, TURN_SET, SpeechClip, load_speech_set, parse_pauses

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


# ------------------------------------------------------------------ tests/data/turns (issue 21)

SPLITS = ["dev", "test"]


def _turns(split: str, kind: str) -> list[SpeechClip]:
    return load_speech_set(TURN_SET / split / kind)


def test_old_sets_without_turn_columns_still_load(tmp_path: Path) -> None:
    (tmp_path / "transcripts.tsv").write_text("file\ttext\tsource\tlicence\na.wav\thi\ts\tCC0\n")
    (clip,) = load_speech_set(tmp_path)
    assert (clip.speaker, clip.end, clip.fillers, clip.pause_kind) == ("", "", 0, "")


def test_turn_columns_load_and_are_checked(tmp_path: Path) -> None:
    head = "file\ttext\tsource\tlicence\tpauses\tspeaker\tend\tfillers\tpause_kind\n"
    table = tmp_path / "transcripts.tsv"
    table.write_text(head + "a.wav\tum so\ts\tCC0\t1.0:1.5\tami:A\tfinished\t1\tnatural\n")
    (clip,) = load_speech_set(tmp_path)
    assert (clip.speaker, clip.end, clip.fillers, clip.pause_kind) == ("ami:A", "finished", 1,
                                                                       "natural")
    assert clip.pauses == [(1.0, 1.5)]
    table.write_text(head + "a.wav\tso\ts\tCC0\t\tami:A\tmaybe\t0\t\n")
    with pytest.raises(ValueError):
        load_speech_set(tmp_path)


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("kind", FOLDERS)
def test_turn_clips_are_16k_mono_pcm16_and_fully_labelled(split: str, kind: str) -> None:
    clips = _turns(split, kind)
    assert clips
    assert {c.name for c in clips} == {p.name for p in (TURN_SET / split / kind).glob("*.wav")}
    for clip in clips:
        assert clip.text and clip.source and clip.licence and clip.speaker, clip.name
        assert clip.end in ("finished", "cut"), clip.name
        samples = _read(clip)
        seconds = len(samples) / 16000
        assert 0.5 <= seconds <= 12.0 + sum(d for _, d in clip.pauses), (clip.name, seconds)
        assert np.abs(samples).max() > 0.05, clip.name
        if kind == "paused":
            assert clip.end == "finished", clip.name
            assert 1 <= len(clip.pauses) <= 2 and clip.pause_kind, clip.name
            for start, length in clip.pauses:
                assert 1.0 <= length <= 3.0, (clip.name, length)
                span = samples[int(start * 16000):int((start + length) * 16000)]
                assert np.count_nonzero(span) > 0.9 * len(span), f"{clip.name}: digital zeros"
                assert _rms_db(span) < _speech_db(samples) - 25.0, clip.name
        else:
            assert not clip.pauses and not clip.pause_kind, clip.name


def test_turn_set_is_split_by_speaker_and_big_enough() -> None:
    speakers = {s: {c.speaker for k in FOLDERS for c in _turns(s, k)} for s in SPLITS}
    assert not speakers["dev"] & speakers["test"]
    assert len(speakers["dev"] | speakers["test"]) >= 30
    assert len(speakers["test"]) >= 15
    plain = [c for s in SPLITS for c in _turns(s, "plain")]
    paused = [c for s in SPLITS for c in _turns(s, "paused")]
    assert len(plain) + len(paused) >= 150
    assert len(paused) >= 60
    cut = sum(c.end == "cut" for c in plain + paused)
    assert 0.25 <= cut / len(plain + paused) <= 0.5


def test_real_speech_speakers_are_only_in_dev() -> None:
    """The clips of tests/data/real_speech were looked at while tuning: never in test."""
    test_files = {c.name for k in FOLDERS for c in _turns("test", k)}
    assert not any(name.startswith("rs_") for name in test_files)
    reused = {c.speaker for k in FOLDERS for c in _turns("dev", k) if c.name.startswith("rs_")}
    test_speakers = {c.speaker for k in FOLDERS for c in _turns("test", k)}
    assert reused and not reused & test_speakers


def test_filler_counts_match_the_text() -> None:
    fillers = {"um", "uh", "erm", "er", "uhm", "hmm", "mm", "ah", "eh", "umm", "uh-huh"}
    for split in SPLITS:
        for kind in FOLDERS:
            for clip in _turns(split, kind):
                words = ["".join(ch for ch in w.lower() if ch.isalpha() or ch == "-")
                         for w in clip.text.split()]
                assert clip.fillers == sum(w in fillers for w in words), clip.name


def test_extra_dev_pauses_are_other_gaps_of_dev_recordings() -> None:
    """The dev-only extra paused copies (``<name>_x<k>.wav``): each is a finished dev
    utterance with one pause at another place than its main paused copy's and its other
    extras, and the test split has none (its figures stay comparable across stops)."""
    assert not [c for k in FOLDERS for c in _turns("test", k) if "_x" in c.name]
    paused = {c.name: c for c in _turns("dev", "paused")}
    plain = {c.name: c for c in _turns("dev", "plain")}
    extras = [c for c in paused.values() if "_x" in c.name]
    assert len(extras) >= 10
    places: dict[str, list[float]] = {}
    for name, clip in paused.items():
        stem = name.split("_x")[0].removesuffix(".wav")
        original = plain.get(f"{stem}.wav")
        assert original is not None and original.end == "finished", name
        assert (clip.speaker, clip.text) == (original.speaker, original.text), name
        shift = 0.0
        for at, duration in clip.pauses:   # each pause's place in the plain recording's time
            places.setdefault(stem, []).append(round(at - shift, 2))
            shift += duration
        if "_x" in name:
            assert len(clip.pauses) == 1, name
    for stem, at in places.items():
        assert all(abs(a - b) > 0.05 for i, a in enumerate(at) for b in at[i + 1:]), stem
