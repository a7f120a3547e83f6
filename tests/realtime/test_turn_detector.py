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
