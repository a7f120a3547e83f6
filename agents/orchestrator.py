"""The orchestrator: an explicit state machine whose ``decide_next`` is code.

init → warmup → initial ⇄ followup … → (coding) → final_feedback → ended.

Rules (seed 002 / seed 000):
- a first "I don't know" on any question gets a hint and a smaller question, the correction
  only a second miss (``hint_plan``);
- follow up while depth < max depth and the answer showed enough to build on (≥ 0.3);
  exit when score ≥ 0.8 and depth ≥ max depth (or follow-ups run out);
- N consecutive low scores in a series → change series (topic) and ease difficulty;
- difficulty starts from self-ratings and moves with the ability shown;
- a question budget and a time budget end the concepts round.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import StrEnum

from agents import difficulty as difficulty_rules
from agents.hints import derived_followup, derived_hint, derived_id, followup_by_id
from agents.question import Pick, QuestionAgent
from agents.question_bank import QuestionBank
from agents.state import InterviewState, Phase

ALLOWED = {
    Phase.init: {Phase.warmup, Phase.initial, Phase.coding, Phase.final_feedback},
    # A warm-up "I don't know" gets a hint and a smaller question (a follow-up).
    Phase.warmup: {Phase.initial, Phase.followup, Phase.coding, Phase.final_feedback},
    Phase.initial: {Phase.initial, Phase.followup, Phase.coding, Phase.final_feedback},
    Phase.followup: {Phase.initial, Phase.followup, Phase.coding, Phase.final_feedback},
    Phase.coding: {Phase.final_feedback},
    Phase.final_feedback: {Phase.ended},
    Phase.ended: set(),
}
FOLLOWUP_FLOOR = 0.3
FOLLOWUP_EXIT_SCORE = 0.8


class TransitionError(Exception):
    """A transition the state machine does not allow."""


def transition(state: InterviewState, to: Phase) -> None:
    if to not in ALLOWED[state.phase]:
        raise TransitionError(f"cannot go from {state.phase} to {to}")
    state.phase = to


class Action(StrEnum):
    ask = "ask"
    coding = "coding"
    final = "final"


@dataclass(frozen=True)
class Decision:
    action: Action
    pick: Pick | None = None
    reason: str = ""


@dataclass(frozen=True)
class HintPlan:
    """What a first "I don't know" gets: a hint, then a smaller question."""

    hint: str
    pick: Pick


@dataclass(frozen=True)
class Limits:
    max_followup_depth: int = 2
    low_score_threshold: float = 0.4
    low_score_streak: int = 2
    session_seconds: float = 45 * 60


class Orchestrator:
    def __init__(self, bank: QuestionBank, limits: Limits):
        self.bank = bank
        self.limits = limits
        self.questions = QuestionAgent(bank)

    def first(self, state: InterviewState) -> Decision:
        if "concepts" not in state.config.rounds:
            return Decision(Action.coding, reason="coding round only")
        practice = state.config.practice_question_id
        if practice is not None and practice in self.bank.questions:
            return Decision(Action.ask, Pick(self.bank.get(practice), None, Phase.initial),
                            "practice: the same question again")
        pick = self.questions.warmup(state) or self.questions.next_main(state)
        if pick is None:
            return Decision(Action.final, reason="the bank has no question for this plan")
        return Decision(Action.ask, pick, "warmup")

    def _budget_left(self, state: InterviewState) -> bool:
        if state.main_questions_asked >= state.config.max_questions:
            return False
        if state.started_at and time.time() - state.started_at > self.limits.session_seconds:
            return False
        return True

    def _after_concepts(self, reason: str, state: InterviewState) -> Decision:
        if "coding" in state.config.rounds:
            return Decision(Action.coding, reason=reason)
        return Decision(Action.final, reason=reason)

    def decide_next(self, state: InterviewState) -> Decision:
        """Called after the current turn was evaluated; ``state`` already holds its score."""
        turn = state.current_turn
        if turn is None or turn.score is None:
            raise TransitionError("decide_next needs an evaluated current turn")
        score = turn.score
        question = self.bank.get(turn.question_id)
        if turn.hint_next is not None:
            # Seed 002: a first "I don't know" gets a hint and a smaller sub-question, on
            # every question and before any other rule; the correction comes if that does
            # not land either (``hint_plan``).
            followup = followup_by_id(question, turn.hint_next)
            if followup is not None:
                return Decision(Action.ask, Pick(question, followup, Phase.followup),
                                "hint and a smaller sub-question")
        if state.config.practice_question_id is not None:
            return Decision(Action.final, reason="practice: the question was answered again")

        # Error threshold: N low scores in a row in this series → change series, ease off.
        if state.low_streak >= self.limits.low_score_streak:
            state.low_streak = 0
            state.difficulty = difficulty_rules.step(state.difficulty, -1)
            if not self._budget_left(state):
                return self._after_concepts("question budget used", state)
            pick = self.questions.next_main(state, avoid_topic=turn.topic)
            if pick is None:
                return self._after_concepts("no more questions", state)
            return Decision(Action.ask, pick, f"{self.limits.low_score_streak} low scores in "
                                              f"{turn.topic}: change series, easier")

        if turn.phase != Phase.warmup and not self._warmup_series(state, question.id):
            depth = state.followup_depth
            exit_now = score >= FOLLOWUP_EXIT_SCORE and depth >= self.limits.max_followup_depth
            if not exit_now and depth < self.limits.max_followup_depth and score >= FOLLOWUP_FLOOR:
                coverage = self._coverage(state, question.id)
                pick = self.questions.followup(state, question, coverage)
                if pick is not None:
                    return Decision(Action.ask, pick, f"follow-up at depth {depth + 1}")

        if not self._budget_left(state):
            return self._after_concepts("question budget used", state)
        pick = self.questions.next_main(state)
        if pick is None:
            return self._after_concepts("no more questions", state)
        return Decision(Action.ask, pick, "next main question")

    def hint_plan(self, state: InterviewState) -> HintPlan | None:
        """Before scoring an "I don't know" on the current turn: the hint and the smaller
        question it leads to, or None when this question already had its hint (the
        correction comes now). Main and warm-up questions use their authored hint and an
        authored follow-up probing the weakest point, when one is left; a follow-up (or a
        question whose follow-ups are used up) gets a hint made from the point missing
        (``agents.hints``) and a smaller question about that point alone."""
        turn = state.current_turn
        if turn is None or turn.phase == Phase.coding:
            return None
        question = self.bank.get(turn.question_id)
        if any(t.hint_next for t in state.turns if t.question_id == question.id):
            return None
        coverage = self._coverage(state, question.id)
        used = {t.followup_id for t in state.turns if t.followup_id}
        if turn.followup_id is None:
            pick = self.questions.followup(state, question, coverage)
            probes = [p.id for p in question.assessment_points]
        else:
            pick = None
            asked = followup_by_id(question, turn.followup_id)
            probes = list(asked.probes) if asked else [p.id for p in question.assessment_points]
        if pick is None:
            fresh = [p for p in question.assessment_points
                     if p.id in probes and derived_id(question, p) not in used]
            if not fresh:
                return None
            # The weakest point the candidate has shown least of, the heaviest first.
            point = min(fresh, key=lambda p: (coverage.get(p.id, 0.0), -p.weight))
            pick = Pick(question, derived_followup(question, point), Phase.followup)
        assert pick.followup is not None
        if turn.followup_id is None and question.hints:
            hint = question.hints[0]
        else:
            weakest = min(pick.followup.probes, key=lambda pid: coverage.get(pid, 0.0))
            hint = derived_hint(question, question.point(weakest))
        return HintPlan(hint, pick)

    def _warmup_series(self, state: InterviewState, question_id: str) -> bool:
        """The question was the warm-up: a hint's smaller question is as far as it goes."""
        return any(t.question_id == question_id and t.phase == Phase.warmup
                   for t in state.turns)

    def _coverage(self, state: InterviewState, question_id: str) -> dict[str, float]:
        """Best coverage per point of ``question_id`` over its main turn and follow-ups."""
        best: dict[str, float] = {}
        for t in state.turns:
            if t.question_id == question_id:
                for p in t.points:
                    best[p.point_id] = max(best.get(p.point_id, 0.0), p.coverage)
        return best

    def record_score(self, state: InterviewState, score: float) -> None:
        """Update streaks, ability and difficulty after an evaluated turn."""
        turn = state.current_turn
        assert turn is not None
        if score < self.limits.low_score_threshold:
            state.low_streak += 1
        else:
            state.low_streak = 0
        old = state.ability.get(turn.topic)
        state.ability[turn.topic] = round(score if old is None else 0.5 * old + 0.5 * score, 3)
        if turn.followup_id is None and turn.phase != Phase.warmup:
            mains = [t.score for t in state.turns if t.followup_id is None
                     and t.score is not None and t.phase != Phase.warmup]
            state.difficulty = difficulty_rules.adjust(state.difficulty,
                                                       [s for s in mains if s is not None])
