"""The turn controller on a made-up clock: frames carry their own times, nothing sleeps."""

from __future__ import annotations

import numpy as np

from realtime.end_of_turn import EndOfTurnVerdict, TurnTakingSettings
from realtime.end_of_turn_judge import JudgedPause
from realtime.frames import (
    AudioFrame,
    BackChannel,
    Interruption,
    ReplyReleased,
    SpeechPaused,
    SpeechStarted,
    TurnDropped,
    TurnEnded,
    TurnFrame,
    Utterance,
)
from realtime.turn_controller import SpokenAnswer, TurnController

FRAME = np.zeros(480, dtype=np.int16)
S = TurnTakingSettings()


class Clock:
    def __init__(self) -> None:
        self.t = 0.0


def feed(c: TurnController, clock: Clock, pattern: str,
         speaking: bool = False) -> list[TurnFrame]:
    """'#' voiced 30 ms, '.' silent 30 ms."""
    out: list[TurnFrame] = []
    for ch in pattern:
        clock.t += 0.03
        out += c.audio(AudioFrame(FRAME, clock.t, voiced=ch == "#",
                                  interviewer_speaking=speaking))
    return out


def judged(turn: int, pause: int, verdict: EndOfTurnVerdict) -> JudgedPause:
    return JudgedPause(turn, pause, 0.5, 0.5, "some words", verdict)


def ended_turn(c: TurnController, clock: Clock) -> TurnEnded:
    feed(c, clock, "#" * 30 + "." * 6)
    [ended] = c.verdict(judged(c.detector.turn, c.detector.pause,
                               EndOfTurnVerdict(150, True, "finished", 0.9)), clock.t)
    assert isinstance(ended, TurnEnded) and ended.reason == "complete"
    return ended


def test_a_sure_verdict_ends_at_once_and_an_unsure_one_waits_its_window() -> None:
    c, clock = TurnController(S), Clock()
    frames = feed(c, clock, "#" * 30 + "." * 6)
    assert [type(f) for f in frames] == [SpeechStarted, SpeechPaused]
    wait = c.verdict(judged(1, 1, EndOfTurnVerdict(2000, False, "unsure", 0.5)), clock.t)
    assert wait == []
    frames = feed(c, clock, "." * 60)  # 180 ms + 1.8 s of silence: still waiting
    assert not any(isinstance(f, TurnEnded) for f in frames)
    [ended] = feed(c, clock, "." * 3)
    assert isinstance(ended, TurnEnded) and ended.reason == "unsure"
    assert c.end_summary(1) is not None and not c.sure_end(1)


def test_a_stale_verdict_is_ignored() -> None:
    c, clock = TurnController(S), Clock()
    feed(c, clock, "#" * 30 + "." * 6 + "#" * 5 + "." * 6)  # two pauses
    assert c.verdict(judged(1, 1, EndOfTurnVerdict(150, True, "finished", 0.9)), clock.t) == []
    assert c.detector.in_turn


def test_let_me_think_holds_the_floor_and_earns_one_backchannel() -> None:
    c, clock = TurnController(S), Clock()
    feed(c, clock, "#" * 30 + "." * 6)
    hold = EndOfTurnVerdict(S.hold_ms, False, "holds the floor", holds_floor=True)
    assert c.verdict(judged(1, 1, hold), clock.t) == []
    said: list[TurnFrame] = []
    ended: list[TurnFrame] = []
    for _ in range(int(S.hold_ms / 30) + 10):  # silence past the hold
        frames = feed(c, clock, ".")
        frames += c.tick(clock.t)
        said += [f for f in frames if isinstance(f, BackChannel)]
        ended += [f for f in frames if isinstance(f, TurnEnded)]
        if ended:
            break
    assert len(said) == 1
    assert said[0].at - 0.03 * 30 >= S.backchannel_ms / 1000 - 0.2  # not before its time
    assert len(ended) == 1 and ended[0].reason == "hold"  # not before the hold ran out
    assert ended[0].ended_at - ended[0].voiced_end_at >= S.hold_ms / 1000 - 0.05


def test_typing_holds_the_floor_while_coding_only() -> None:
    for phase, expect_end in (("coding", False), ("conversation", True)):
        c, clock = TurnController(S), Clock()
        c.set_context(phase, False, "Write a function.")
        feed(c, clock, "#" * 30 + "." * 6)
        c.verdict(judged(1, 1, EndOfTurnVerdict(1000, True, "finished", 0.9)), clock.t)
        ended = []
        for _ in range(60):  # 1.8 s, typing all along
            c.activity(clock.t)
            ended += [f for f in feed(c, clock, ".") if isinstance(f, TurnEnded)]
        assert bool(ended) == expect_end, phase
    # ... and once the typing stops, the window counts from the last keystroke.
    c, clock = TurnController(S), Clock()
    c.set_context("coding", False, "Write a function.")
    feed(c, clock, "#" * 30 + "." * 6)
    c.verdict(judged(1, 1, EndOfTurnVerdict(1000, True, "finished", 0.9)), clock.t)
    for _ in range(60):
        c.activity(clock.t)
        feed(c, clock, ".")
    last_key = clock.t
    ended = [f for _ in range(40) for f in feed(c, clock, ".") if isinstance(f, TurnEnded)]
    assert len(ended) == 1 and 0.95 <= ended[0].ended_at - last_key <= 1.1


def test_speech_soon_after_an_end_continues_the_answer_and_holds_its_reply() -> None:
    c, clock = TurnController(S), Clock()
    first = ended_turn(c, clock)
    c.answered(first.turn, SpokenAnswer("q-1", "That was a bonus."))
    [started] = feed(c, clock, "." * 20 + "#" * 3)  # 0.6 s later, the reply not heard yet
    assert isinstance(started, SpeechStarted) and started.continues == first.turn
    assert c.amends(started.turn) == SpokenAnswer("q-1", "That was a bonus.")
    reply = Utterance(["Noted."], "q-2")
    assert c.reply(first.turn, reply) is None  # held: the answer goes on


def test_a_cough_after_an_end_releases_the_held_reply() -> None:
    c, clock = TurnController(S), Clock()
    first = ended_turn(c, clock)
    c.answered(first.turn, SpokenAnswer("q-1", "It is a heap."))
    feed(c, clock, "." * 10 + "#" * 4)  # a cough: opens a turn, too little voice
    reply = Utterance(["Good."], "q-2")
    assert c.reply(first.turn, reply) is None
    frames = feed(c, clock, "." * 120)
    assert any(isinstance(f, TurnDropped) for f in frames)
    [released] = [f for f in frames if isinstance(f, ReplyReleased)]
    assert released.utterance is reply and released.turn == first.turn


def test_a_held_move_waits_for_a_going_on_to_be_decided() -> None:
    """A cough that outlasts the amend window leaves the answer's held move undecided until
    it is dropped; words that amend the answer decide it too."""
    c, clock = TurnController(S), Clock()
    first = ended_turn(c, clock)
    c.answered(first.turn, SpokenAnswer("q-1", "It is a heap."))
    assert not c.going_on_undecided(first.turn)
    [started] = feed(c, clock, "." * 10 + "#" * 4)
    assert started.continues == first.turn
    assert c.going_on_undecided(first.turn)
    feed(c, clock, "." * 120)  # dropped as a noise
    assert not c.going_on_undecided(first.turn) and not c.went_on(first.turn)

    second = ended_turn(c, clock)
    c.answered(second.turn, SpokenAnswer("q-2", "A queue."))
    [more] = feed(c, clock, "." * 10 + "#" * 30)
    assert c.going_on_undecided(second.turn)
    c.answered(more.turn, SpokenAnswer("q-2", "A queue, with two stacks."))
    assert not c.going_on_undecided(second.turn) and c.went_on(second.turn)


def test_speech_after_the_next_question_began_is_a_new_answer() -> None:
    heard_at: list[float] = []

    def reply_closed(since: float, now: float) -> bool:
        return any(since <= t <= now for t in heard_at)

    c, clock = TurnController(S, reply_closed=reply_closed), Clock()
    first = ended_turn(c, clock)
    c.answered(first.turn, SpokenAnswer("q-1", "It is a heap."))
    feed(c, clock, "." * 10)
    heard_at.append(clock.t)  # the reply's first sentence has been played
    [started] = feed(c, clock, "." * 5 + "#" * 3)
    assert isinstance(started, SpeechStarted) and started.continues is None
    assert c.amends(started.turn) is None and c.amendments_refused == 1
    assert c.reply(first.turn, Utterance(["Good."], "q-2")) is not None  # never held


def test_amendments_do_not_chain_past_the_window() -> None:
    c, clock = TurnController(S), Clock()
    first = ended_turn(c, clock)
    c.answered(first.turn, SpokenAnswer("q-1", "It is a heap."))
    feed(c, clock, "." * round(S.amend_window_ms / 30 + 5))
    [started] = feed(c, clock, "#" * 3)
    assert isinstance(started, SpeechStarted) and started.continues is None


def test_coding_talk_is_never_amended() -> None:
    c, clock = TurnController(S), Clock()
    c.set_context("coding", False, "Write a function.")
    first = ended_turn(c, clock)
    c.answered(first.turn, SpokenAnswer("q-1", "I loop over it.", "coding"))
    [started] = feed(c, clock, "." * 5 + "#" * 3)
    assert isinstance(started, SpeechStarted) and started.continues is None


def test_talking_over_the_interviewer_is_one_interruption_per_run() -> None:
    c, clock = TurnController(S), Clock()
    frames = feed(c, clock, "#" * 4, speaking=True)
    assert frames == []  # 120 ms over the interviewer: not yet a turn
    frames = feed(c, clock, "#" * 20, speaking=True)
    kinds = [type(f) for f in frames]
    assert kinds == [SpeechStarted, Interruption]
