"""End-of-turn signals and the policy that combines them (pure, no models)."""

from __future__ import annotations

import pytest

from realtime.end_of_turn import EndOfTurnSignals, TurnTakingSettings, decide
from realtime.transcript_cues import transcript_cue
from realtime.transcript_stitching import agreed_prefix, join_segments

S = TurnTakingSettings()


@pytest.mark.parametrize("text", [
    "A hash table stores keys and", "It is faster because", "so I would put it in the",
    "We could use a", "The trick is, um", "and then, you know", "It depends on,",
    "First we sort the input. Then we", "Unless a system is established.",
    "It depends. If the list is sorted.",
])
def test_open_clauses_mean_wait(text: str) -> None:
    cue = transcript_cue(text)
    assert cue.open_clause, text
    verdict = decide(EndOfTurnSignals(0.97, cue, "conversation", False, 5.0), S)
    assert not verdict.finished and verdict.end_after_ms == S.think_ms


@pytest.mark.parametrize("text", [
    "A hash table stores keys and values.", "It runs in O(n log n).", "That's it.",
    "I would use a heap", "Threads share memory; processes do not.",
    "Because lookups take constant time.", "If the list is sorted, use binary search.",
])
def test_closed_sentences_are_not_open(text: str) -> None:
    assert not transcript_cue(text).open_clause, text


def test_words_that_may_end_a_sentence_need_a_full_stop() -> None:
    assert transcript_cue("that is it").open_clause
    assert not transcript_cue("that is it.").open_clause


def test_finished_audio_and_text_reply_fast() -> None:
    verdict = decide(EndOfTurnSignals(0.93, transcript_cue("It uses a heap."),
                                      "conversation", False, 4.0), S)
    assert verdict.finished and verdict.end_after_ms == S.complete_ms


def test_unfinished_audio_waits_up_to_the_think_limit() -> None:
    verdict = decide(EndOfTurnSignals(0.05, transcript_cue("It uses a heap."),
                                      "conversation", False, 4.0), S)
    assert not verdict.finished and verdict.end_after_ms == S.think_ms


def test_unsure_audio_lets_the_candidate_think() -> None:
    # Phrase borders inside real sentences score in the middle: no middle window.
    for p in (0.3, 0.6, 0.85):
        verdict = decide(EndOfTurnSignals(p, transcript_cue("It uses a heap."),
                                          "conversation", False, 4.0), S)
        assert not verdict.finished and verdict.end_after_ms == S.think_ms


def test_phase_and_hard_questions_buy_patience() -> None:
    cue = transcript_cue("I loop over the array.")
    coding = decide(EndOfTurnSignals(0.95, cue, "coding", False, 4.0), S)
    assert coding.end_after_ms == S.coding_complete_ms > S.complete_ms
    thinking = decide(EndOfTurnSignals(0.05, cue, "conversation", True, 4.0), S)
    assert thinking.end_after_ms == S.think_ms + S.hard_question_extra_ms
    coding_thinking = decide(EndOfTurnSignals(0.05, cue, "coding", False, 4.0), S)
    assert coding_thinking.end_after_ms == S.coding_think_ms


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


def test_a_young_turn_must_sound_very_finished() -> None:
    cue = transcript_cue("That was a bonus.")
    early = decide(EndOfTurnSignals(0.93, cue, "conversation", False, 1.4), S)
    assert not early.finished and early.end_after_ms == S.think_ms
    sure = decide(EndOfTurnSignals(0.99, cue, "conversation", False, 1.4), S)
    assert sure.finished and sure.end_after_ms == S.complete_ms
    later = decide(EndOfTurnSignals(0.93, cue, "conversation", False, 3.0), S)
    assert later.finished
