""""I don't know" the same everywhere (issue 24, item 5): the first time on a question it gets
a hint and a smaller question, never the answer; the correction only after a second miss."""

from __future__ import annotations

import re
from typing import Any

import pytest

from agents.engine import InterviewEngine
from agents.evaluate import judge
from agents.feedback import bank_feedback
from agents.grading import Reason, says_dont_know
from agents.hints import DERIVED, area_of, derived_id, gives_away, parent_question_id
from agents.messages import Evaluation
from agents.orchestrator import Limits, Orchestrator
from agents.providers.rubric import RubricProvider
from agents.question_bank import Question, QuestionBank, load_question_bank
from agents.review import vote_no_leak
from agents.state import InterviewState, Phase, SelfRatings, SessionConfig, Turn

BANK = load_question_bank()
QUESTIONS = sorted(BANK.questions.values(), key=lambda q: q.id)
IDK = "I don't know."


def _config() -> SessionConfig:
    return SessionConfig(candidate_id="idk", role="backend", mode="text",
                         self_ratings=SelfRatings(algorithms=3, engineering=3, projects=3))


def _state(q: Question, phase: Phase, followup_id: str | None = None,
           text: str | None = None, earlier: list[Turn] | None = None) -> InterviewState:
    turn = Turn(turn_id="t-now", question_id=q.id, followup_id=followup_id, phase=phase,
                text=text or q.text, topic=q.topic.value, difficulty=q.difficulty,
                asked_t_ms=0, answer=IDK)
    return InterviewState(session_id="idk-session", config=_config(), phase=phase,
                          turns=[*(earlier or []), turn], current_turn_id=turn.turn_id,
                          asked_question_ids=[q.id])


def _dont_know(q: Question) -> Evaluation:
    j = judge(IDK, q.assessment_points, q.misconceptions)
    assert j.reason is Reason.dont_know
    return Evaluation(score=j.score, has_standard_answer=True, points=j.points,
                      misconceptions=[], reason=j.reason)


def _secrets(q: Question) -> list[str]:
    """What the first reply must not say: the correction, the reference answer's sentences,
    the forbidden hints (as tests/server/test_candidate_visibility.py scans them)."""
    said = " ".join([q.text, *q.hints])
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", q.reference_answer)
                 if len(s) >= 40 and s not in said]
    return [q.feedback.correction, *sentences, *q.forbidden_hints]


def _assert_hint(q: Question, state: InterviewState, orchestrator: Orchestrator) -> str:
    plan = orchestrator.hint_plan(state)
    assert plan is not None, q.id
    assert plan.pick.followup is not None and plan.pick.phase == Phase.followup
    fb = bank_feedback(q, _dont_know(q), hint=plan.hint)
    assert fb.kind == "guidance" and "Here is a hint:" in fb.text, (q.id, fb.text)
    assert "smaller part" in fb.text
    for secret in _secrets(q):
        assert secret not in fb.text and secret not in plan.pick.text, (q.id, secret)
    assert vote_no_leak(fb, q.forbidden_hints).ok, (q.id, fb.text)
    for p in plan.pick.followup.probes:
        if plan.hint not in q.hints:  # a hint made from the point never says its words
            assert not gives_away(plan.hint, q, q.point(p)), (q.id, p, plan.hint)
        if plan.pick.followup.id.startswith(q.id + DERIVED):
            assert not gives_away(plan.pick.text, q, q.point(p)), (q.id, p, plan.pick.text)
    return plan.hint


@pytest.mark.parametrize("phase", [Phase.warmup, Phase.initial])
def test_first_dont_know_on_every_bank_question_gets_a_hint(phase: Phase) -> None:
    orchestrator = Orchestrator(BANK, Limits())
    hinted = 0
    for q in QUESTIONS:
        hint = _assert_hint(q, _state(q, phase), orchestrator)
        assert hint == q.hints[0]  # the authored one, where there is one
        hinted += 1
    assert hinted == len(BANK)  # 100 % of the bank's questions


def test_questions_without_an_authored_hint_or_follow_up_get_a_hint_made_from_the_point() -> None:
    bare = QuestionBank(q.model_copy(update={"hints": [], "followups": []}) for q in QUESTIONS)
    orchestrator = Orchestrator(bare, Limits())
    for q in bare.questions.values():
        state = _state(q, Phase.initial)
        plan = orchestrator.hint_plan(state)
        assert plan is not None and plan.pick.followup is not None
        # The smaller question asks about one point alone, the one the hint is made from.
        point = q.point(plan.pick.followup.probes[0])
        assert plan.pick.followup.id == derived_id(q, point)
        assert plan.hint == area_of(q, point).hint
        _assert_hint(q, state, orchestrator)


def test_dont_know_on_every_follow_up_gets_a_hint_made_from_its_point() -> None:
    orchestrator = Orchestrator(BANK, Limits())
    n = 0
    for q in QUESTIONS:
        for f in q.followups:
            main = Turn(turn_id="t-main", question_id=q.id, phase=Phase.initial, text=q.text,
                        topic=q.topic.value, difficulty=q.difficulty, asked_t_ms=0,
                        answer="something", score=0.6)
            state = _state(q, Phase.followup, f.id, f.text, earlier=[main])
            hint = _assert_hint(q, state, orchestrator)
            plan = orchestrator.hint_plan(state)
            assert plan is not None and plan.pick.followup is not None
            assert set(plan.pick.followup.probes) <= set(f.probes)  # smaller than the follow-up
            assert hint not in q.hints or len(q.hints) == 0
            n += 1
    assert n == sum(len(q.followups) for q in QUESTIONS)


def test_a_second_miss_on_the_same_question_gets_the_correction() -> None:
    orchestrator = Orchestrator(BANK, Limits())
    for q in QUESTIONS:
        first = _state(q, Phase.initial)
        plan = orchestrator.hint_plan(first)
        assert plan is not None and plan.pick.followup is not None
        hinted = first.turns[-1].model_copy(update={"hint_next": plan.pick.followup.id,
                                                    "turn_id": "t-first", "score": 0.0})
        second = _state(q, Phase.followup, plan.pick.followup.id, plan.pick.text,
                        earlier=[hinted])
        assert orchestrator.hint_plan(second) is None
        fb = bank_feedback(q, _dont_know(q), hint=None)
        assert fb.kind == "correction" and q.feedback.correction in fb.text


def test_equivalents_of_i_dont_know_are_recognised() -> None:
    for said in ("I don't know.", "No idea.", "Not sure, sorry.", "I can't remember.",
                 "I cannot recall.", "I don’t know", "No clue, honestly."):
        assert says_dont_know(said), said
    for said in ("Java is pass by value.", "I remember it keeps the rows sorted."):
        assert not says_dont_know(said), said


def test_derived_follow_up_ids_name_their_question() -> None:
    q = BANK.get("db-index")
    fid = derived_id(q, q.point("cost"))
    assert parent_question_id(fid) == "db-index"
    assert parent_question_id("db-index-cost") is None


async def _answer_all(engine: InterviewEngine, answers: list[str]) -> list[dict[str, Any]]:
    state = await engine.create(_config().model_copy(update={"max_questions": 3}))
    events = list((await engine.start(state.session_id)).events)
    for text in answers:
        events += (await engine.answer(state.session_id, text)).events
    return events


async def test_dont_know_without_an_authored_hint_gets_a_hint_then_the_correction(
        aredis: Any) -> None:
    """A live text interview on a bank whose questions have no authored hints nor follow-ups:
    the warm-up's "I don't know" gets a hint and a smaller question about one point, not the
    answer; the second "I don't know" on it gets the correction, and a new question follows."""
    bare = QuestionBank(q.model_copy(update={"hints": [], "followups": []}) for q in QUESTIONS)
    engine = InterviewEngine(aredis, bare, RubricProvider())
    events = await _answer_all(engine, [IDK, IDK])
    questions = [e for e in events if e["type"] == "question"]
    feedback = [e for e in events if e["type"] == "feedback" and not e.get("final")]
    warmup = bare.get(questions[0]["question_id"])
    assert questions[0]["phase"] == "warmup"
    # First: a hint and a smaller question, never the answer.
    assert feedback[0]["kind"] == "guidance" and "Here is a hint" in feedback[0]["text"]
    for secret in _secrets(warmup):
        assert secret not in feedback[0]["text"]
    smaller = questions[1]
    assert smaller["phase"] == "followup"
    assert parent_question_id(smaller["question_id"]) == warmup.id
    point_id = smaller["question_id"].split(DERIVED, 1)[1]
    assert smaller["text"] == area_of(warmup, warmup.point(point_id)).question
    # Second miss on the same question: the correction, then another question.
    assert feedback[1]["kind"] == "correction"
    assert warmup.feedback.correction in feedback[1]["text"]
    assert questions[2]["phase"] == "initial" and questions[2]["question_id"] != warmup.id


async def test_dont_know_on_an_authored_follow_up_gets_a_hint_not_the_answer(
        aredis: Any) -> None:
    engine = InterviewEngine(aredis, BANK, RubricProvider())
    state = await engine.create(_config())
    await engine.start(state.session_id)
    s = await engine.load(state.session_id)
    first = s.current_turn
    assert first is not None
    # A good warm-up answer, then (a main question) a good answer to get an authored
    # follow-up, on which the candidate does not know.
    await engine.answer(state.session_id, BANK.get(first.question_id).reference_answer)
    for _ in range(4):
        s = await engine.load(state.session_id)
        turn = s.current_turn
        assert turn is not None
        if turn.followup_id is not None:
            break
        await engine.answer(state.session_id, BANK.get(turn.question_id).reference_answer)
    assert turn.followup_id is not None and DERIVED not in turn.followup_id
    result = await engine.answer(state.session_id, "Sorry, I can't remember.")
    fb = next(e for e in result.events if e["type"] == "feedback")
    q = BANK.get(turn.question_id)
    assert fb["kind"] == "guidance" and "Here is a hint" in fb["text"]
    assert q.feedback.correction not in fb["text"]
    nxt = next(e for e in result.events if e["type"] == "question")
    assert parent_question_id(nxt["question_id"]) == q.id
