"""A spoken answer the recogniser was unsure of is flagged for a human in the report."""

from __future__ import annotations

from typing import Any

from agents.engine import LOW_TRANSCRIPT_CONFIDENCE, LOW_TRANSCRIPT_FLAG, InterviewEngine
from agents.providers.rubric import RubricProvider
from agents.question_bank import load_question_bank
from agents.state import SelfRatings, SessionConfig

BANK = load_question_bank()


async def answered_with(aredis: Any, confidence: float | None) -> Any:
    engine = InterviewEngine(aredis, BANK, RubricProvider())
    state = await engine.create(SessionConfig(
        candidate_id="erin", role="generalist", mode="voice", max_questions=1,
        self_ratings=SelfRatings(algorithms=3, engineering=3, projects=3)))
    await engine.start(state.session_id)
    turn = (await engine.load(state.session_id)).current_turn
    await engine.answer(state.session_id, BANK.get(turn.question_id).reference_answer,
                        emit_transcript=False, transcript_confidence=confidence)
    report = await engine.report(state.session_id)
    return next(t for t in report.turns if t.turn_id == turn.turn_id), report


async def test_a_doubtful_transcript_is_flagged(aredis: Any) -> None:
    turn, report = await answered_with(aredis, LOW_TRANSCRIPT_CONFIDENCE - 0.1)
    assert LOW_TRANSCRIPT_FLAG in turn.flags and LOW_TRANSCRIPT_FLAG in report.reviewer_flags


async def test_a_clear_or_typed_answer_is_not(aredis: Any) -> None:
    for confidence in (0.99, None):
        turn, report = await answered_with(aredis, confidence)
        assert LOW_TRANSCRIPT_FLAG not in turn.flags
