"""Weak points of a candidate carry into that candidate's next interview."""

from __future__ import annotations

from typing import Any

from agents.engine import InterviewEngine
from agents.providers.rubric import RubricProvider
from agents.question_bank import load_question_bank
from agents.state import SelfRatings, SessionConfig

BANK = load_question_bank()


def config(candidate: str) -> SessionConfig:
    return SessionConfig(candidate_id=candidate, role="generalist", mode="text",
                         self_ratings=SelfRatings(algorithms=3, engineering=3, projects=3),
                         max_questions=2)


async def run(engine: InterviewEngine, candidate: str, answer) -> Any:  # noqa: ANN001
    state = await engine.create(config(candidate))
    await engine.start(state.session_id)
    for _ in range(10):
        s = await engine.load(state.session_id)
        turn = s.current_turn
        if turn is None:
            break
        await engine.answer(state.session_id, answer(turn))
    return await engine.load(state.session_id)


async def test_weak_topic_leads_the_next_interview(aredis: Any) -> None:
    engine = InterviewEngine(aredis, BANK, RubricProvider())
    good = lambda t: BANK.get(t.question_id).reference_answer  # noqa: E731

    def weak_on_first_main(t):  # noqa: ANN001, ANN202
        return "I don't know." if t.phase.value == "initial" else good(t)

    first = await run(engine, "carol", weak_on_first_main)
    weak_turn = next(t for t in first.turns if t.phase.value == "initial")
    assert weak_turn.score is not None and weak_turn.score < 0.3

    second = await engine.create(config("carol"))
    assert any(k.startswith(weak_turn.question_id + "/") for k in second.weak_points)
    assert second.topic_plan[0] == weak_turn.topic
    await engine.start(second.session_id)
    s2 = await engine.answer(second.session_id, good((await engine.load(
        second.session_id)).current_turn))
    asked = [e for e in s2.events if e["type"] == "question"]
    # The first main question of the next session probes the weak topic.
    assert asked and (await engine.load(second.session_id)).turns[1].topic == weak_turn.topic

    # Another candidate is not affected by carol's profile.
    other = await engine.create(config("dave"))
    assert other.weak_points == []
    report = await engine.report(second.session_id)
    assert report.carried_weak_points == second.weak_points
    # The report says how each carried weak point went this time.
    assert [c.key for c in report.compared_with_earlier] == second.weak_points
    assert all(c.status in ("improved", "still weak", "not asked")
               for c in report.compared_with_earlier)


def test_carried_weak_points_are_compared_with_this_interview() -> None:
    from agents.summary import PointEvidence, compare_with_earlier

    def ev(qid: str, pid: str, score: float) -> PointEvidence:
        return PointEvidence(question_id=qid, point_id=pid, point=f"{pid} text", score=score,
                             weight=1.0, evidence=[])

    got = compare_with_earlier(["q1/a", "q1/b", "q2/c"], [ev("q1", "a", 0.9), ev("q1", "b", 0.2)])
    assert [(c.key, c.status, c.score) for c in got] == [
        ("q1/a", "improved", 0.9), ("q1/b", "still weak", 0.2), ("q2/c", "not asked", None)]
    assert got[0].point == "a text"


async def test_rubric_only_grading_is_marked_for_a_human() -> None:
    from agents.evaluate import EvaluateAgent
    from agents.knowledge import KnowledgeAgent

    q = BANK.get("ds-hash-table")
    k = KnowledgeAgent(BANK).for_question(q)
    alone = await EvaluateAgent(RubricProvider(), use_semantic=False).evaluate(
        q.text, q.reference_answer, k)
    assert alone.rubric_only
    both = await EvaluateAgent(RubricProvider(), bank=BANK).evaluate(
        q.text, q.reference_answer, k)
    assert not both.rubric_only
