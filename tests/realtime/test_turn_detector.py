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
    """'#' voiced 30 ms, '.' silent 30 ms, 'e' voiced but echo, 'b' voiced but not clear
    (a breath, the fading tail of a word)."""
    out = []
    for i, c in enumerate(pattern):
        frame = AudioFrame(FRAME, start + (i + 1) * 0.03, voiced=c in "#eb", echo=c == "e",
                           clear=False if c == "b" else None)
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


def test_a_breath_after_the_last_word_does_not_delay_the_end() -> None:
    d = TurnDetector(silence_ms=400)
    # Words to frame 19, then 150 ms of breath and silence: the voice ended at frame 19.
    events = run(d, "#" * 20 + "bbbbb" + "." * 20)
    kinds = [type(e) for _, e in events]
    assert kinds == [SpeechStarted, SpeechPaused, TurnEnded]
    paused, ended = events[1][1], events[2][1]
    assert isinstance(paused, SpeechPaused) and abs(paused.voiced_end_at - 20 * 0.03) < 1e-9
    assert isinstance(ended, TurnEnded) and abs(ended.voiced_end_at - 20 * 0.03) < 1e-9
    assert events[2][0] == 19 + 14  # 420 ms after the last clear frame, breath included
    # Counted as voice, the breath would have ended the turn 150 ms later.
    old = TurnDetector(silence_ms=400)
    assert run(old, "#" * 25 + "." * 20)[-1][0] == 24 + 14


def test_soft_voice_past_the_tail_is_speech_and_is_never_talked_over() -> None:
    d = TurnDetector(silence_ms=400)
    # 900 ms of voice that is not clear after the last clear word: its first 300 ms are a
    # tail (the pause begins), the rest is soft speech, which resumes the turn.
    events = run(d, "#" * 20 + "b" * 30 + "." * 20)
    kinds = [type(e) for _, e in events]
    assert kinds == [SpeechStarted, SpeechPaused, SpeechResumed, SpeechPaused, TurnEnded]
    assert events[1][0] == 24 and events[2][0] == 31  # RESUME_MS of soft voice past the tail
    assert events[-1][0] == 49 + 14  # the end counts from the soft voice's end
    ended = events[-1][1]
    assert isinstance(ended, TurnEnded) and abs(ended.voiced_end_at - 50 * 0.03) < 1e-9


def test_soft_voice_after_a_thinking_pause_resumes_it_at_once() -> None:
    d = TurnDetector(silence_ms=400)
    events = run(d, "#" * 20 + "." * 12 + "bbbbbb" + "." * 20)
    kinds = [type(e) for _, e in events]
    assert kinds == [SpeechStarted, SpeechPaused, SpeechResumed, SpeechPaused, TurnEnded]
    assert events[2][0] == 20 + 12 + 1  # the second soft frame (RESUME_MS = 60)
