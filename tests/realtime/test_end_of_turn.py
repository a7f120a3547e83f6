"""End-of-turn signals and the policy that combines them (pure, no models)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest

from realtime.end_of_turn import (
    FUSION_FILE,
    EndOfTurnSignals,
    TurnFusion,
    TurnTakingSettings,
    decide,
)
from realtime.end_of_turn_judge import EndOfTurnJudge, PauseContext
from realtime.frames import PauseText
from realtime.transcript_cues import transcript_cue
from realtime.transcript_stitching import agreed_prefix, join_segments, keep_agreed_words

S = TurnTakingSettings()


@pytest.mark.parametrize("text", [
    "A hash table stores keys and", "It is faster because", "so I would put it in the",
    "We could use a", "The trick is, um", "and then, you know", "It depends on,",
    "First we sort the input. Then we", "Unless a system is established.",
    "It depends. If the list is sorted.", "We store it in.",
])
def test_open_clauses_mean_wait(text: str) -> None:
    cue = transcript_cue(text)
    assert cue.open_clause, text
    verdict = decide(EndOfTurnSignals(0.97, cue, "conversation", False, 5.0), S)
    assert not verdict.finished and verdict.end_after_ms == S.open_clause_ms > S.think_ms


@pytest.mark.parametrize("text", [
    "A hash table stores keys and values.", "It runs in O(n log n).", "That's it.",
    "I would use a heap", "Threads share memory; processes do not.",
    "Because lookups take constant time.", "If the list is sorted, use binary search.",
    "I guess I was lucky though.", "What is it for?",
])
def test_closed_sentences_are_not_open(text: str) -> None:
    assert not transcript_cue(text).open_clause, text


def test_words_that_may_end_a_sentence_need_a_full_stop() -> None:
    assert transcript_cue("that is it").open_clause
    assert not transcript_cue("that is it.").open_clause


def test_finished_audio_and_text_reply_fast() -> None:
    # Both models say finished (the audio alone, at the dev-fitted point, is only unsure).
    verdict = decide(EndOfTurnSignals(0.97, transcript_cue("It uses a heap."),
                                      "conversation", False, 4.0, 0.9), S)
    assert verdict.finished and verdict.end_after_ms == S.complete_ms


def test_unfinished_audio_waits_up_to_the_think_limit() -> None:
    verdict = decide(EndOfTurnSignals(0.05, transcript_cue("It uses a heap."),
                                      "conversation", False, 4.0), S)
    assert not verdict.finished and verdict.end_after_ms == S.think_ms


def test_the_open_clause_wait_outlasts_every_dev_pause() -> None:
    """The open-clause wait is kept short (a misread finished answer waits all of it), but
    longer than every mid-sentence pause of the dev split's paused answers: cutting it below
    the longest thinking pause brings the cut-ins back."""
    from audio.speech_set import load_speech_set

    folder = Path(__file__).resolve().parents[1] / "data" / "turns" / "dev" / "paused"
    longest = max(length for clip in load_speech_set(folder) for _, length in clip.pauses)
    assert 2.5 <= longest and longest * 1000 < S.open_clause_ms
    assert S.open_clause_ms > S.think_ms


def test_an_open_clause_keeps_the_floor_past_the_think_limit() -> None:
    # "... because" is a sentence still being built, however finished the audio sounds.
    for phase, think in (("conversation", S.think_ms), ("coding", S.coding_think_ms)):
        verdict = decide(EndOfTurnSignals(0.99, transcript_cue("I picked a heap because"),
                                          phase, False, 4.0, 0.9), S)  # type: ignore[arg-type]
        assert not verdict.finished and not verdict.holds_floor
        assert verdict.end_after_ms == max(S.open_clause_ms, think) > S.think_ms


def test_the_surer_the_signals_the_shorter_the_wait() -> None:
    # LiveKit-style: between "unlikely" and "finished" the wait falls from the think limit
    # to the unsure window as the fused probability rises; never below the unsure window.
    waits = []
    for p in (0.02, 0.3, 0.5, 0.7, 0.8, 0.9, 0.97):
        verdict = decide(EndOfTurnSignals(p, transcript_cue("It uses a heap."),
                                          "conversation", False, 4.0, p), S)
        waits.append(verdict.end_after_ms)
        if not verdict.finished:
            assert S.unsure_ms <= verdict.end_after_ms <= S.think_ms
        else:
            assert verdict.end_after_ms == S.complete_ms
    assert waits == sorted(waits, reverse=True) and waits[0] == S.think_ms
    assert waits[-1] == S.complete_ms


def test_the_text_model_can_overrule_finished_sounding_audio() -> None:
    cue = transcript_cue("I would use a heap")
    reads_unfinished = decide(EndOfTurnSignals(0.95, cue, "conversation", False, 4.0, 0.02), S)
    reads_finished = decide(EndOfTurnSignals(0.95, cue, "conversation", False, 4.0, 0.98), S)
    assert reads_finished.finished and not reads_unfinished.finished
    assert reads_unfinished.end_after_ms > reads_finished.end_after_ms


def test_asking_for_time_holds_the_floor_past_the_think_limit() -> None:
    for text in ("Let me think.", "Hmm, give me a second.", "It is a heap. Let me see"):
        verdict = decide(EndOfTurnSignals(0.99, transcript_cue(text), "conversation", False,
                                          4.0, 0.99), S)
        assert verdict.holds_floor and not verdict.finished, text
        assert verdict.end_after_ms >= S.hold_ms > S.think_ms
    assert not transcript_cue("We use a second hash function.").holds_floor


def test_phase_and_hard_questions_buy_patience() -> None:
    cue = transcript_cue("I loop over the array.")
    coding = decide(EndOfTurnSignals(0.95, cue, "coding", False, 4.0), S)
    assert coding.end_after_ms == S.coding_complete_ms > S.complete_ms
    thinking = decide(EndOfTurnSignals(0.05, cue, "conversation", True, 4.0), S)
    assert thinking.end_after_ms == S.think_ms + S.hard_question_extra_ms
    coding_thinking = decide(EndOfTurnSignals(0.05, cue, "coding", False, 4.0), S)
    assert coding_thinking.end_after_ms == S.coding_think_ms


@pytest.mark.parametrize("text", ["Can I get a hint?", "I'm stuck. Could you give me a hint?",
                                  "I get a hint, please."])
def test_a_request_for_a_hint_is_answered_at_once_even_while_coding(text: str) -> None:
    cue = transcript_cue(text)
    assert cue.asks_for_help and not cue.open_clause
    for phase in ("coding", "conversation"):
        # Audio that sounds unsure, a young turn: a statement would wait long here.
        verdict = decide(EndOfTurnSignals(0.3, cue, phase, False, 1.2, p_text=0.2), S)
        assert verdict.finished and verdict.end_after_ms == S.complete_ms, (phase, verdict)
    statement = decide(EndOfTurnSignals(0.3, transcript_cue("I sort the array first."),
                                        "coding", False, 1.2, p_text=0.2), S)
    assert not statement.finished and statement.end_after_ms > S.coding_complete_ms


@pytest.mark.parametrize("text", ["Can I get a hint, and", "No hints, please.",
                                  "Thanks for the hint."])
def test_talk_about_hints_is_not_a_request(text: str) -> None:
    assert not transcript_cue(text).asks_for_help


def test_hard_cap_ends_a_monologue_at_its_next_pause() -> None:
    verdict = decide(EndOfTurnSignals(0.01, transcript_cue("and"), "conversation", False,
                                      S.max_turn_s + 1), S)
    assert verdict.finished and verdict.end_after_ms == S.complete_ms


def test_without_the_audio_model_the_text_decides() -> None:
    closed = decide(EndOfTurnSignals(None, transcript_cue("It uses a heap."), "conversation",
                                     False, 3.0), S)
    assert closed.finished and closed.end_after_ms == S.unsure_ms
    unknown = decide(EndOfTurnSignals(None, None, "conversation", False, 3.0), S)
    assert not unknown.finished and unknown.end_after_ms == S.think_ms


def test_stitching_drops_a_repeated_border_and_keeps_real_words() -> None:
    assert join_segments(["The printing press was invented by", "invented by Gutenberg."]) \
        == "The printing press was invented by invented by Gutenberg."  # 2 words: kept
    assert join_segments(["and the Gutenberg press began", "the Gutenberg press began printing"]) \
        == "and the Gutenberg press began printing"
    assert join_segments(["", "Hello there.", "  "]) == "Hello there."


def test_local_agreement_prefix() -> None:
    assert agreed_prefix("A stack is last in", "A stack is last-in, first out") == "A stack is"
    assert agreed_prefix("", "anything") == ""
    assert agreed_prefix("The heap, is", "the heap is a tree") == "the heap is"


def test_a_young_turn_must_sound_surer() -> None:
    # A turn under 2 s is rarely a whole interview answer: the same signals weigh less.
    cue = transcript_cue("That was a bonus.")
    fusion = TurnFusion.load()
    assert fusion.short_turn < 0
    early = decide(EndOfTurnSignals(0.85, cue, "conversation", False, 1.4, 0.6), S)
    later = decide(EndOfTurnSignals(0.85, cue, "conversation", False, 3.0, 0.6), S)
    assert (early.p_finished or 0) < (later.p_finished or 0)
    assert early.end_after_ms >= later.end_after_ms


def test_the_shipped_operating_point_is_the_one_fitted_on_dev() -> None:
    data = json.loads(FUSION_FILE.read_text())
    assert "test" not in Path(data["fit"]).parts  # never fitted on a test split
    point = data["operating_point"]
    assert (S.finished_p, S.unsure_p) == (point["finished_p"], point["unsure_p"])
    assert TurnFusion.load().audio == data["weights"]["audio"]


def test_the_final_keeps_words_two_decodes_agreed_on() -> None:
    assert keep_agreed_words("Hopefully we can learn from our mistakes",
                             "Hopefully, we can learn from marba stakes.") \
        == "Hopefully, we can learn from our mistakes."
    # A longer revision, or one with no agreed context before it, is the final's.
    assert keep_agreed_words("The heap is", "The heap is a tree.") == "The heap is a tree."
    assert keep_agreed_words("a b c d", "x b c d") == "x b c d"
    assert keep_agreed_words("we sort it then scan", "we sort the input in place first") \
        == "we sort the input in place first"


def test_the_recognizers_full_stop_moves_the_verdict() -> None:
    # The same sound and words: Whisper's P(a closing mark after the last word) decides.
    cue = transcript_cue("It uses a heap.")
    fusion = TurnFusion.load()
    assert fusion.sentence_end > 0  # fitted on dev: a likelier full stop, a likelier end
    closed = decide(EndOfTurnSignals(0.9, cue, "conversation", False, 3.0, 0.3, 0.97), S,
                    fusion)
    open_ = decide(EndOfTurnSignals(0.9, cue, "conversation", False, 3.0, 0.3, 0.05), S,
                   fusion)
    unknown = decide(EndOfTurnSignals(0.9, cue, "conversation", False, 3.0, 0.3, None), S,
                     fusion)
    assert closed.finished and closed.end_after_ms == S.complete_ms
    assert not open_.finished and open_.end_after_ms == S.think_ms
    assert (open_.p_finished or 0) < (unknown.p_finished or 0) < (closed.p_finished or 0)
    assert "closing mark=0.97" in closed.reason


async def test_the_judge_reads_the_full_stop_heard_at_the_pause() -> None:
    heard: dict[int, PauseText] = {1: PauseText("It uses a heap.", 0.97),
                                   2: PauseText("It uses a heap.", 0.05)}

    def pause_text(turn: int, pause: int) -> asyncio.Future[PauseText]:
        future: asyncio.Future[PauseText] = asyncio.get_running_loop().create_future()
        future.set_result(heard[pause])
        return future

    judge = EndOfTurnJudge(None, None, pause_text, S, fusion=TurnFusion(
        bias=-1.0, sentence_end=1.5, full_stop=0.0, short_turn=0.0))
    context = PauseContext("conversation", False, "What is a priority queue?", 3.0)
    closed = await judge.verdict(1, 1, np.zeros(160, np.float32), context)
    open_ = await judge.verdict(1, 2, np.zeros(160, np.float32), context)
    assert closed.p_sentence_end == 0.97 and open_.p_sentence_end == 0.05
    assert closed.verdict.finished and not open_.verdict.finished
    assert closed.summary()["p_sentence_end"] == 0.97
    assert closed.summary()["heard"] == "It uses a heap." and closed.summary()["turn_s"] == 3.0
