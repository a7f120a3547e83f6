"""Turn-taking decisions from a stream of voiced / silent 30 ms frames."""

from __future__ import annotations

import numpy as np

from realtime.frames import (
    AudioFrame,
    SpeechPaused,
    SpeechResumed,
    SpeechStarted,
    TurnDropped,
    TurnEnded,
)
from realtime.turn_detector import TurnDetector

FRAME = np.zeros(480, dtype=np.int16)


def run(detector: TurnDetector, pattern: str, start: float = 0.0) -> list[tuple[int, object]]:
    """'#' voiced 30 ms, '.' silent 30 ms, 'e' voiced but echo."""
    out = []
    for i, c in enumerate(pattern):
        frame = AudioFrame(FRAME, start + (i + 1) * 0.03, voiced=c in "#e", echo=c == "e")
        out += [(i, e) for e in detector.push(frame)]
    return out


def test_a_turn_ends_after_the_silence_window() -> None:
    d = TurnDetector(silence_ms=500)
    events = run(d, "...." + "#" * 20 + "." * 6 + "#" * 10 + "." * 20)
    kinds = [type(e) for _, e in events]
    assert kinds == [SpeechStarted, SpeechPaused, SpeechResumed, SpeechPaused, TurnEnded]
    ended = events[-1][1]
    assert isinstance(ended, TurnEnded) and ended.reason == "silence"
    # The window counts from the last voiced frame (index 39): 17 silent frames = 510 ms.
    assert events[-1][0] == 39 + 17
    assert abs(ended.voiced_end_at - 40 * 0.03) < 1e-9


def test_coding_phase_waits_longer() -> None:
    d = TurnDetector(silence_ms=2500)
    events = run(d, "#" * 20 + "." * 60)  # 1.8 s of thinking is not the end
    assert not any(isinstance(e, TurnEnded) for _, e in events)
    events = run(d, "." * 30)
    assert any(isinstance(e, TurnEnded) for _, e in events)


def test_a_click_does_not_open_a_turn_and_a_cough_is_dropped() -> None:
    d = TurnDetector(silence_ms=300)
    assert run(d, ".#..#..##...") == []
    events = run(d, "####" + "." * 12)
    assert [type(e) for _, e in events] == [SpeechStarted, SpeechPaused, TurnDropped]


def test_echo_is_not_speech_and_explicit_end_works() -> None:
    d = TurnDetector(silence_ms=500)
    assert run(d, "e" * 40) == []
    run(d, "#" * 20)
    [ended] = d.end_turn(now=99.0)
    assert isinstance(ended, TurnEnded) and ended.reason == "explicit"
    assert d.end_turn(now=100.0) == []


def test_a_finished_verdict_ends_the_pause_early_and_a_stale_one_is_ignored() -> None:
    d = TurnDetector(silence_ms=3000)
    events = run(d, "#" * 20 + "." * 6)
    paused = events[-1][1]
    assert isinstance(paused, SpeechPaused) and paused.pause == 1
    assert d.set_verdict(paused.turn, paused.pause + 1, 300, True, now=1.0) == []  # stale
    assert d.set_verdict(paused.turn, paused.pause, 400, True, now=20 * 0.03 + 0.18) == []
    events = run(d, "." * 10, start=26 * 0.03)
    ended = [e for _, e in events if isinstance(e, TurnEnded)]
    assert len(ended) == 1 and ended[0].reason == "complete"
    assert ended[0].silence_window_ms == 400


def test_a_verdict_after_the_window_passed_ends_at_once() -> None:
    d = TurnDetector(silence_ms=3000)
    run(d, "#" * 20 + "." * 20)  # 600 ms of silence, no verdict yet
    [ended] = d.set_verdict(1, 1, 400, True, now=40 * 0.03)
    assert isinstance(ended, TurnEnded) and ended.reason == "complete"


def test_thinking_waits_for_the_think_limit_and_speech_clears_the_verdict() -> None:
    d = TurnDetector(silence_ms=3000)
    run(d, "#" * 20 + "." * 6)
    d.set_verdict(1, 1, 3000, False, now=1.0)
    events = run(d, "." * 60 + "#" * 10 + "." * 6, start=26 * 0.03)  # 1.8 s of thinking
    kinds = [type(e) for _, e in events]
    assert TurnEnded not in kinds and kinds[:2] == [SpeechResumed, SpeechPaused]
    assert events[1][1].pause == 2  # type: ignore[union-attr]
    events = run(d, "." * 100, start=102 * 0.03)
    ended = [e for _, e in events if isinstance(e, TurnEnded)]
    assert ended and ended[0].reason == "silence"  # the new pause had no verdict


def test_a_client_that_stops_sending_is_ended_on_the_wall_clock() -> None:
    d = TurnDetector(silence_ms=3000)
    run(d, "#" * 20 + "." * 6)
    last = 26 * 0.03
    d.set_verdict(1, 1, 400, True, now=last)
    assert d.tick(last + 0.1) == []  # frames may still come
    [ended] = d.tick(20 * 0.03 + 0.45)
    assert isinstance(ended, TurnEnded) and ended.reason == "complete"
    assert d.tick(99.0) == []


def test_room_noise_blips_inside_a_pause_neither_resume_it_nor_reset_its_verdict() -> None:
    # Runs of 60-120 ms of "voice" inside a noisy pause (the dev set's inserted pauses have
    # them) used to resume the pause, so a fresh verdict was asked later in the silence.
    d = TurnDetector(silence_ms=3000)
    run(d, "#" * 20 + "." * 6)
    d.set_verdict(1, 1, 1200, "unsure", now=26 * 0.03)
    events = run(d, "." * 10 + "####" + "." * 10 + "###" + "." * 10, start=26 * 0.03)
    assert not any(isinstance(e, (SpeechResumed, SpeechPaused)) for _, e in events)
    assert d.pause == 1
    # The blips counted as silence: the first verdict's 1.2 s ends the turn on time.
    ended = [(i, e) for i, e in events if isinstance(e, TurnEnded)]
    assert len(ended) == 1 and ended[0][1].reason == "unsure"
    assert abs(ended[0][1].ended_at - (20 * 0.03 + 1.2)) < 1e-6


def test_a_pause_never_ends_during_a_sound_and_a_long_enough_one_resumes() -> None:
    d = TurnDetector(silence_ms=3000)
    run(d, "#" * 20 + "." * 6)
    d.set_verdict(1, 1, 300, "complete", now=26 * 0.03)
    # The window passes while a sound is under way: no end until it stops...
    events = run(d, "####", start=26 * 0.03)
    assert events == []
    events = run(d, ".", start=30 * 0.03)
    assert [type(e) for _, e in events] == [TurnEnded]
    # ...and a verdict that arrives mid-sound waits for it, and the sound that goes on
    # long enough is speech: the pause is over and its verdict forgotten.
    d = TurnDetector(silence_ms=3000)
    run(d, "#" * 20 + "." * 20)
    assert run(d, "###", start=40 * 0.03) == []
    assert d.set_verdict(1, 1, 300, "complete", now=43 * 0.03) == []
    events = run(d, "##" + "." * 6, start=43 * 0.03)
    assert [type(e) for _, e in events] == [SpeechResumed, SpeechPaused]
    assert events[1][1].pause == 2  # type: ignore[union-attr]
