"""A false end of turn: the candidate goes on after the interviewer began to reply. The
whole answer replaces the half, is evaluated once more against the same question, and the
event stream says which events it supersedes (real Redis, rubric provider)."""

from __future__ import annotations

from typing import Any

import pytest

from agents.engine import InterviewEngine, InterviewError
from agents.providers.rubric import RubricProvider
from agents.question_bank import load_question_bank
from agents.state import Phase, SelfRatings, SessionConfig

BANK = load_question_bank()


async def started(engine: InterviewEngine, max_questions: int = 4) -> str:
    state = await engine.create(SessionConfig(
        candidate_id="amend", role="backend", mode="voice",
        self_ratings=SelfRatings(algorithms=3, engineering=3, projects=3),
        max_questions=max_questions))
    await engine.start(state.session_id)
    return state.session_id


async def test_an_amended_answer_is_graded_whole_against_its_own_question(aredis: Any) -> None:
    engine = InterviewEngine(aredis, BANK, RubricProvider())
    sid = await started(engine)
    state = await engine.load(sid)
    first = state.current_turn
    assert first is not None
    reference = BANK.get(first.question_id).reference_answer
    words = reference.split()
    half, rest = " ".join(words[:4]), " ".join(words[4:])
    cut = await engine.answer(sid, half)
    cut_feedback = [e for e in cut.events if e["type"] == "feedback"]
    cut_question = [e for e in cut.events if e["type"] == "question"]
    assert cut_feedback and cut_question  # the interviewer moved on after half an answer
    moved = await engine.load(sid)
    assert moved.current_turn_id != first.turn_id

    amended = await engine.amend_answer(sid, first.turn_id, f"{half} {rest}")
    [note] = [e for e in amended.events if e["type"] == "answer_amended"]
    assert note["turn_id"] == first.turn_id and note["text"] == f"{half} {rest}"
    superseded = set(note["supersedes"])
    assert {e["seq"] for e in cut_feedback + cut_question} <= superseded
    [feedback] = [e for e in amended.events if e["type"] == "feedback"]
    assert feedback["turn_id"] == first.turn_id
    assert feedback["score"] > cut_feedback[0]["score"]  # the whole answer covers more

    state = await engine.load(sid)
    turn = next(t for t in state.turns if t.turn_id == first.turn_id)
    assert turn.answer == f"{half} {rest}" and turn.score == feedback["score"]
    assert "answer amended after a pause" in turn.reviewer_flags
    # The question asked after the half answer is gone; exactly one question follows.
    assert cut_question[0]["turn_id"] not in {t.turn_id for t in state.turns}
    assert [t.turn_id for t in state.turns].index(first.turn_id) == len(state.turns) - 2
    assert len(state.answered) == 1


async def test_only_the_last_answer_can_be_amended_and_only_once_answered_on(
        aredis: Any) -> None:
    engine = InterviewEngine(aredis, BANK, RubricProvider())
    sid = await started(engine)
    first = (await engine.load(sid)).current_turn
    assert first is not None
    with pytest.raises(InterviewError) as err:
        await engine.amend_answer(sid, first.turn_id, "nothing evaluated yet")
    assert err.value.code == "not_amendable"
    await engine.answer(sid, "I am not sure.")
    second = (await engine.load(sid)).current_turn
    assert second is not None
    await engine.answer(sid, "No idea either.")
    with pytest.raises(InterviewError) as err:  # a later answer made the first one final
        await engine.amend_answer(sid, first.turn_id, "I am not sure. Actually, it is ...")
    assert err.value.code == "not_amendable"
    state = await engine.load(sid)
    assert state.phase != Phase.ended and len(state.answered) == 2


async def test_a_doubtful_end_does_not_end_the_interview_until_it_is_advanced(
        aredis: Any) -> None:
    engine = InterviewEngine(aredis, BANK, RubricProvider())
    sid = await started(engine, max_questions=1)
    # Answer until the next move would end the interview, each time holding the move.
    for _ in range(8):
        state = await engine.load(sid)
        assert state.current_turn is not None
        turn_id = state.current_turn.turn_id
        held = await engine.answer(sid, "I don't know.", hold_phase_change=True)
        state = await engine.load(sid)
        if state.advance_held:
            break
        assert any(e["type"] == "question" for e in held.events)  # an ask is never held
    else:
        raise AssertionError("the interview never reached its end")
    assert not any(e["type"] in ("session_end", "question") for e in held.events)
    assert any(e["type"] == "feedback" for e in held.events)  # the feedback is said now
    assert state.phase not in (Phase.final_feedback, Phase.ended)
    # The answer went on: the amendment takes the held move back with the evaluation.
    amended = await engine.amend_answer(sid, turn_id, "I don't know. Maybe a B-tree?",
                                        hold_phase_change=True)
    assert not any(e["type"] == "session_end" for e in amended.events)
    assert (await engine.load(sid)).advance_held
    # The window passed: the move happens, once.
    moved = await engine.advance(sid)
    assert any(e["type"] == "session_end" for e in moved.events)
    assert (await engine.advance(sid)).events == []
    state = await engine.load(sid)
    assert state.phase == Phase.ended and not state.advance_held


async def test_a_new_answer_makes_the_held_move_first(aredis: Any) -> None:
    engine = InterviewEngine(aredis, BANK, RubricProvider())
    sid = await started(engine, max_questions=1)
    for _ in range(8):
        await engine.answer(sid, "I don't know.", hold_phase_change=True)
        if (await engine.load(sid)).advance_held:
            break
    else:
        raise AssertionError("the interview never reached its end")
    # Typed while the move was held: not "already answered"; the move happens first.
    with pytest.raises(InterviewError) as refused:
        await engine.answer(sid, "One more thing.")
    assert refused.value.code == "ended"  # the held move was the end: nothing to answer
    state = await engine.load(sid)
    assert state.phase == Phase.ended and not state.advance_held
