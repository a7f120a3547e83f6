"""The rules the agents follow, in code: difficulty, follow-ups, thresholds, review."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from agents import difficulty
from agents.engine import InterviewEngine, plan_topics
from agents.evaluate import EvaluateAgent
from agents.feedback import FeedbackAgent, feedback_kind
from agents.knowledge import KnowledgeAgent
from agents.messages import ModelEvaluation, ModelFeedback, ModelVote
from agents.orchestrator import TransitionError, transition
from agents.providers.base import LanguageProvider, ProviderCapabilities, T
from agents.question import is_duplicate
from agents.question_bank import Difficulty, load_question_bank
from agents.resume import parse_resume
from agents.state import InterviewState, Phase, SelfRatings, SessionConfig

BANK = load_question_bank()


@pytest.mark.parametrize(("ratings", "level"), [
    ((1, 1, 1), Difficulty.easy), ((3, 3, 2), Difficulty.easy), ((3, 3, 3), Difficulty.medium),
    ((4, 4, 3), Difficulty.medium), ((4, 4, 4), Difficulty.hard), ((5, 5, 5), Difficulty.hard),
])
def test_difficulty_from_self_ratings(ratings: tuple[int, int, int], level: Difficulty) -> None:
    a, e, p = ratings
    assert difficulty.from_self_ratings(SelfRatings(algorithms=a, engineering=e,
                                                    projects=p)) == level


def test_difficulty_moves_with_answers() -> None:
    assert difficulty.adjust(Difficulty.medium, [0.9, 0.85]) == Difficulty.hard
    assert difficulty.adjust(Difficulty.medium, [0.1, 0.2]) == Difficulty.easy
    assert difficulty.adjust(Difficulty.medium, [0.9, 0.2]) == Difficulty.medium
    assert difficulty.adjust(Difficulty.hard, [0.9, 0.9]) == Difficulty.hard


@pytest.mark.parametrize(("score", "kind"), [
    (0.0, "correction"), (0.29, "correction"), (0.3, "guidance"), (0.59, "guidance"),
    (0.6, "comment"), (1.0, "comment")])
def test_feedback_thresholds(score: float, kind: str) -> None:
    assert feedback_kind(score) == kind


def test_state_machine_refuses_wrong_transitions() -> None:
    state = InterviewState(session_id="s", config=SessionConfig(
        candidate_id="c", role="r", mode="text",
        self_ratings=SelfRatings(algorithms=3, engineering=3, projects=3)))
    with pytest.raises(TransitionError):
        transition(state, Phase.followup)  # init → followup skips asking anything
    transition(state, Phase.warmup)
    transition(state, Phase.initial)
    transition(state, Phase.final_feedback)
    with pytest.raises(TransitionError):
        transition(state, Phase.initial)


def test_duplicate_questions_are_recognised() -> None:
    asked = ["How does a hash table work, and what is the cost of a lookup?"]
    assert is_duplicate("What is the cost of a lookup in a hash table, and how does it work?",
                        asked)
    assert not is_duplicate("Explain how TCP sets up a connection.", asked)


def test_resume_steers_topics() -> None:
    profile = parse_resume("Built Kafka pipelines and PostgreSQL schemas; tuned Postgres "
                           "indexes; some Python.")
    assert "kafka" in profile.skills and profile.topics[0].value == "databases"
    plan = plan_topics("backend", [t.value for t in profile.topics], ["networking"])
    assert plan[0] == "networking" and plan[1] == "databases"
    assert parse_resume(None).skills == []


async def drive(engine: InterviewEngine, answers: list[str], **cfg: Any) -> InterviewState:
    state = await engine.create(SessionConfig(
        candidate_id="rules", role="backend", mode="text",
        self_ratings=SelfRatings(algorithms=3, engineering=3, projects=3), **cfg))
    await engine.start(state.session_id)
    for text in answers:
        if (await engine.load(state.session_id)).phase == Phase.ended:
            break
        await engine.answer(state.session_id, text)
    return await engine.load(state.session_id)


def reference(state: InterviewState) -> str:
    turn = state.current_turn
    assert turn is not None
    return BANK.get(turn.question_id).reference_answer


async def test_follow_up_depth_is_bounded_and_exit_rule(aredis: Any) -> None:
    engine = InterviewEngine(aredis, BANK, FakeModel())
    state = await engine.create(SessionConfig(
        candidate_id="depth", role="backend", mode="text",
        self_ratings=SelfRatings(algorithms=3, engineering=3, projects=3), max_questions=3))
    await engine.start(state.session_id)
    for _ in range(12):
        s = await engine.load(state.session_id)
        if s.phase == Phase.ended:
            break
        await engine.answer(state.session_id, reference(s))
    s = await engine.load(state.session_id)
    depth, max_depth = 0, engine.limits.max_followup_depth
    for t in s.turns:
        depth = depth + 1 if t.followup_id else 0
        assert depth <= max_depth
    # Strong answers at max depth exit to a new main question.
    assert any(t.followup_id for t in s.turns)
    assert s.main_questions_asked == 3 and s.phase == Phase.ended


async def test_question_budget_and_rolling_summary(aredis: Any) -> None:
    engine = InterviewEngine(aredis, BANK, FakeModel())
    s = await drive(engine, ["I don't know"] * 12, max_questions=5)
    assert s.phase == Phase.ended and s.main_questions_asked <= 5
    assert len(s.answered) >= 5 and len(s.summaries) == len(s.answered) // 5
    assert s.summaries[0].startswith("After 5 answers")


class FakeModel(LanguageProvider):
    """A model provider that writes leaking feedback and votes everything down. A fake
    subclassing the real interface, for unit tests only."""

    name = "fake"
    capabilities = ProviderCapabilities(has_model=True, streaming=False, json_schema=True)

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def complete_json(self, system: str, user: str, schema: type[T]) -> T:
        self.calls.append(schema.__name__)
        if schema is ModelFeedback:
            return schema.model_validate(ModelFeedback(
                evidence="You said little.", suggestion="The answer is chaining or open "
                "addressing.", judgement="Try again.").model_dump())
        if schema is ModelVote:
            return schema.model_validate({"ok": False, "reason": "leaks"})
        if schema is ModelEvaluation:
            return schema.model_validate({"points": [
                {"point_id": "hashing", "covered": 1.0, "quote": "words never said"}]})
        raise AssertionError(schema)

    async def stream_text(self, system: str, user: str) -> AsyncIterator[str]:
        yield "unused"


async def test_review_vetoes_leaks_retries_then_falls_back_to_bank() -> None:
    model = FakeModel()
    q = BANK.get("ds-hash-table")
    knowledge = KnowledgeAgent(BANK).for_question(q)
    evaluation = await EvaluateAgent(model).evaluate(
        q.text, "you put things into buckets of an array and look them up", knowledge)
    # The model claimed coverage with a quote that is not in the answer: it counts for 0.
    assert evaluation.model_score == 0.0
    fb, reviews = await FeedbackAgent(model).feedback(q, evaluation)
    assert len(reviews) == 2 and not any(r.accepted for r in reviews)  # bounded retries
    assert [v.voter for v in reviews[0].votes] == ["no_leak", "shape", "model"]
    assert not reviews[0].votes[0].ok
    assert fb.source == "bank" and "chaining or open addressing" not in fb.text
    assert model.calls.count("ModelFeedback") == 2
