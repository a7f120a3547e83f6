"""``viva bench turns``: the text ceiling and the dev labels it reads, the natural gaps (pure,
no models)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import bench.turns as turns
from audio.speech_set import load_speech_set
from bench.turns import (
    READS_WHOLE,
    STOPS,
    Point,
    choose,
    held_out_operating_points,
    live_pauses,
    natural_gaps,
    points_of,
    read_whole_labels,
    simulate,
    stop_key,
    tally,
    text_ceiling,
    within,
)
from bench.voice_set import read_clip, voiced_end_s
from realtime.end_of_turn import TurnFusion, TurnTakingSettings

DEV = Path(__file__).resolve().parents[1] / "data" / "turns" / "dev"


def _stop(i: int, kind: str) -> Point:
    # Every stop sounds and is punctuated alike: only the words could tell them apart.
    return Point(f"c{i}.wav", f"s{i}", kind, 1.0 + i / 100, 2000 if kind == "pause" else None,
                 3.0, p_audio=0.9, text="We store it there.", p_text=None,
                 p_sentence_end=0.8, decode_ms=50.0, audio_ms=20.0)


def test_a_perfect_text_reader_separates_what_only_the_words_can() -> None:
    points = [_stop(i, "finished") for i in range(20)]
    points += [_stop(i, "pause") for i in range(20, 40)]
    labels = {stop_key(p.clip, p.at_s): p.kind == "finished" for p in points}
    out = text_ceiling(points, labels, TurnTakingSettings())
    assert out["perfect_text_reader"]["finished_fast_share"] == 1.0
    assert out["perfect_text_reader"]["cut_ins"] == 0
    # Without words that tell, a policy within the cut-in goal answers none of them fast.
    assert out["shipped_text_model"]["finished_fast_share"] == 0.0
    assert out["pauses_reading_whole"] == 0


def test_pauses_that_read_whole_are_counted_and_unlabelled_stops_refused() -> None:
    points = [_stop(i, "finished") for i in range(10)] + [_stop(i, "pause")
                                                          for i in range(10, 20)]
    labels = {stop_key(p.clip, p.at_s): True for p in points}
    out = text_ceiling(points, labels, TurnTakingSettings())
    assert (out["pauses_reading_whole"], out["of_those_sounding_finished"]) == (10, 10)
    del labels[stop_key(points[-1].clip, points[-1].at_s)]
    with pytest.raises(ValueError, match="no reads_whole label"):
        text_ceiling(points, labels, TurnTakingSettings())


def test_dev_labels_cover_every_dev_stop_and_only_dev() -> None:
    labels = read_whole_labels(DEV / READS_WHOLE)
    stops = {stop_key(p.clip, p.at_s) for p, _ in points_of(DEV) if p.kind in STOPS}
    assert set(labels) == stops
    assert not (DEV.parent / "test" / READS_WHOLE).exists()  # the test split is not labelled


def test_a_bad_label_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / READS_WHOLE
    bad.write_text("clip\tat_s\tkind\treads_whole\ttext\na.wav\t1.00\tpause\tyes\tWe store\n")
    with pytest.raises(ValueError, match="0 or 1"):
        read_whole_labels(bad)


def test_a_silence_inside_a_turn_is_a_natural_gap_of_its_length() -> None:
    clip = next(c for c in load_speech_set(DEV / "plain") if c.name == "rs_arctic_a0009.wav")
    pcm = read_clip(clip)
    end = voiced_end_s(pcm)
    voice = pcm[:int(end * 16000)]
    quiet = np.random.default_rng(0).normal(0, 30, 16000 * 7 // 10).astype(np.int16)
    twice = np.concatenate([voice, quiet, voice])
    gaps = natural_gaps(twice, before_s=len(twice) / 16000 - 0.5)
    # The clip's own gaps come twice; the 700 ms of room noise between the copies is one
    # more, at the first copy's end and at least that long.
    own = natural_gaps(voice, before_s=end)
    assert len(gaps) == 2 * len(own) + 1
    at_s, gap_ms = max(gaps, key=lambda g: g[1])
    assert abs(at_s - end) < 0.3 and 700 <= gap_ms <= 1100


def test_a_natural_gap_is_cut_into_when_the_wait_ends_before_the_voice_resumes() -> None:
    def gap(ms: int) -> Point:
        return Point("gap/c.wav", "s", "gap", 2.0, ms, 2.0, p_audio=0.99, text="We store it.",
                     p_text=0.9, p_sentence_end=0.99, decode_ms=50.0, audio_ms=20.0)

    settings = TurnTakingSettings()
    out = simulate([gap(settings.complete_ms - 30), gap(settings.complete_ms),
                    gap(settings.complete_ms + 300)], TurnFusion.load(), settings, ("audio", "text",
                    "full_stop", "sentence_end"))
    assert (out["natural_gaps"], out["natural_gap_cut_ins"]) == (3, 2)
    assert out["pauses"] == 0  # gaps are not the inserted pauses


def test_a_pause_past_the_think_limit_is_a_cut_in_no_operating_point_can_save() -> None:
    settings = TurnTakingSettings()
    think = settings.think_ms

    def pause(i: int, ms: int) -> Point:
        return Point(f"c{i}.wav", "s", "pause", 1.0, ms, 2.0)

    out = tally([(pause(0, think + 200), think), (pause(1, 1500), think),
                 (pause(2, 1000), 400)], settings)
    assert (out["pauses"], out["cut_ins"]) == (3, 2)
    assert (out["savable_pauses"], out["savable_cut_ins"]) == (2, 1)
    # So the budget is spent on the savable ones: a fast point whose only cut-ins are such
    # pauses beats a slow one that cuts in no more.
    fast = {"finished_p": 0.7, "unsure_p": 0.6, "cut_in_rate": 0.08,
            "savable_cut_in_rate": 0.0, "finished_wait_ms_mean": 900.0,
            "finished_wait_ms_p95": 3000.0}
    slow = {**fast, "finished_p": 0.98, "finished_wait_ms_mean": 2800.0}
    assert choose([slow, fast]) is fast
    over = {**fast, "savable_cut_in_rate": 0.06}
    assert choose([slow, over]) is slow


def test_the_operating_point_is_scored_on_speakers_the_fusion_never_saw(
        monkeypatch: pytest.MonkeyPatch) -> None:
    points = [replace(_stop(i, "finished" if i % 2 else "pause"), speaker=f"s{i % 3}",
                      p_audio=0.5 + i / 40) for i in range(12)]
    fitted_on: list[set[str]] = []
    real_fit = turns.fit_fusion

    def spy(pts: list[Point], use: tuple[str, ...], l2: float = 1.0) -> TurnFusion:
        fitted_on.append({p.speaker for p in pts})
        return real_fit(pts, use, l2)

    monkeypatch.setattr(turns, "fit_fusion", spy)
    rows = held_out_operating_points(points, TurnTakingSettings(), turns.FEATURES)
    # One fit per speaker, each without that speaker; every point scored once per row.
    assert sorted(map(sorted, fitted_on)) == [["s0", "s1"], ["s0", "s2"], ["s1", "s2"]]
    assert all(r["pauses"] == 6 and r["finished"] == 6 for r in rows)
    assert {(r["finished_p"], r["unsure_p"]) for r in rows} == {
        (f, u) for f in turns.GRID for u in turns.GRID if u < f}


def test_no_dev_pause_is_broken_up_by_its_own_room_noise() -> None:
    # Each inserted dev pause is one pause to the live detector: a noise blip that resumed
    # it would ask for a fresh verdict later in the silence (the live cut-ins of stop 45).
    # It ends where the speech after it starts, not before.
    for clip in load_speech_set(DEV / "paused"):
        pcm = read_clip(clip)
        _, pauses = live_pauses(pcm)
        for start, dur in clip.pauses:
            pieces = [(at_s, ms) for at_s, ms in pauses if within(at_s, ms, start, dur)]
            assert len(pieces) == 1, (clip.name, start, pieces)
            at_s, ms = pieces[0]
            assert at_s + ms / 1000 >= start + dur - 0.1, (clip.name, start, pieces)


def test_the_voiced_end_is_the_last_sound_not_a_click_after_it() -> None:
    rng = np.random.default_rng(1)
    room = rng.normal(0, 30, 16000 * 2).astype(np.int16)
    tone = (3000 * np.sin(np.arange(16000) * 2 * np.pi * 220 / 16000)).astype(np.int16)
    pcm = np.concatenate([room[:8000], tone, room])
    assert abs(voiced_end_s(pcm) - 1.5) < 0.031
    # A lone loud frame 600 ms later (a click, a lip smack) does not move the end...
    clicked = pcm.copy()
    clicked[int(2.1 * 16000):int(2.1 * 16000) + 480] = 3000
    assert abs(voiced_end_s(clicked) - 1.5) < 0.031
    # ...a last sound as long as a turn's onset does.
    word = pcm.copy()
    word[int(2.1 * 16000):int(2.1 * 16000) + 1440] = tone[:1440]
    assert abs(voiced_end_s(word) - 2.19) < 0.031
