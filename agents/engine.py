"""The interview engine: agents over Redis-held state, one committed step at a time.

Every step loads the versioned state, computes in code (and, if configured, with a model),
then commits the new state together with the events it produces. A conflicting writer makes
the step reload and try again, so two processes never overwrite each other. An answer is
committed (acknowledged) before it is evaluated; ``recover`` finishes any acknowledged answer
that a killed process left unevaluated.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import redis.asyncio as aioredis

from agents import difficulty as difficulty_rules
from agents.approach import PointGrade, grade_approach_async
from agents.coding_round import CodingPort, CodingRound, Said
from agents.evaluate import EvaluateAgent
from agents.feedback import FeedbackAgent
from agents.grading import Reason
from agents.knowledge import KnowledgeAgent
from agents.names import spoken_topic
from agents.orchestrator import Action, Decision, Limits, Orchestrator, transition
from agents.question import Pick
from agents.question_bank import QuestionBank, Topic
from agents.resume import parse_resume
from agents.state import AmendPoint, InterviewState, Phase, PointScore, SessionConfig, Turn
from agents.summary import Report, final_report, rolling_summary, should_roll
from agents.turn_budget import TURN_MODEL_BUDGET_S
from core.errors import AppError
from core.events import (
    AnswerAmendedEvent,
    FeedbackEvent,
    QuestionEvent,
    QuestionPhase,
    SessionEndEvent,
    StateEvent,
    TranscriptFinalEvent,
    wire,
)
from store import keys
from store.events import EventLog, now_ms
from store.profiles import ProfileStore
from store.session_state import SessionStateStore, VersionConflict

CANONICAL_TOPICS = [t.value for t in Topic]
# Events an evaluation produces; an amended answer supersedes them.
SUPERSEDABLE = frozenset({"feedback", "question", "state", "coding_task"})
# The recogniser's mean word probability below which a spoken answer is flagged for a human.
# Measured with tiny.en: the 33 real recorded clips of tests/data/real_speech score 0.967-0.998
# (median 0.993); what it "hears" in 3 s of noise scores about 0.80.
LOW_TRANSCRIPT_CONFIDENCE = 0.9
LOW_TRANSCRIPT_FLAG = "low transcript confidence"
ROLE_TOPICS = {
    "backend": ["databases", "networking", "concurrency", "system_design", "python",
                "data_structures", "algorithms", "operating_systems"],
    "frontend": ["networking", "data_structures", "algorithms", "python", "system_design"],
    "infra": ["operating_systems", "networking", "system_design", "concurrency"],
    "sre": ["operating_systems", "networking", "system_design", "concurrency"],
    "data": ["databases", "python", "algorithms", "data_structures"],
}


class InterviewError(AppError):
    """A request the interview cannot take now; ``code`` is stable, ``message`` says why."""

    status = 409  # the interview is not in a state to take it
    statuses: ClassVar[dict[str, int]] = {
        "not_found": 404, "too_large": 413, "empty_answer": 422, "invalid_input": 422,
        "judge_unavailable": 503, "voice_unavailable": 503}
    retryable_codes: ClassVar[frozenset[str]] = frozenset({"conflict"})

    def __init__(self, code: str, message: str):
        super().__init__(message, code=code)


class _NeedCodingTask(Exception):
    """Raised inside a step when the decision needs a coding problem not fetched yet."""


@dataclass
class StepResult:
    # Wire forms of core.events models; after the commit, the recorded ones (seq, t_ms).
    events: list[dict[str, Any]] = field(default_factory=list)
    spoken: list[str] = field(default_factory=list)  # what the interviewer says, in order
    speak_turn_id: str | None = None


def plan_topics(role: str, resume_topics: list[str], weak_topics: list[str],
                focus_topic: str | None = None) -> list[str]:
    role_l = role.lower()
    base: list[str] = []
    for key, topics in ROLE_TOPICS.items():
        if key in role_l:
            base = topics
            break
    base = base or CANONICAL_TOPICS
    ordered: list[str] = []
    focus = [focus_topic] if focus_topic else []
    for t in [*focus, *weak_topics, *resume_topics, *base, "projects", "behavioral"]:
        if t not in ordered:
            ordered.append(t)
    return ordered


log = logging.getLogger(__name__)

PREPARED_KEEP = 64  # answers graded ahead, per process


@dataclass
class _Judgement:
    """An answer's evaluation and feedback, made before it was committed or after."""

    evaluation: Any
    feedback: Any
    reviews: list[Any]
    dont_know: bool
    hint_next: str | None = None  # the smaller question a hint leads to


class InterviewEngine:
    def __init__(self, redis: aioredis.Redis, bank: QuestionBank, provider: Any, *,
                 limits: Limits | None = None, coding: CodingPort | None = None,
                 coding_round: CodingRound | None = None,
                 report_url: Callable[[str], str] = lambda sid: f"/sessions/{sid}/report"):
        self.redis = redis
        self.bank = bank
        self.provider = provider
        self.limits = limits or Limits()
        self.coding = coding
        self.coding_round = coding_round or CodingRound()
        self.report_url = report_url
        self.states: SessionStateStore[InterviewState] = SessionStateStore(redis, InterviewState)
        self.events = EventLog(redis)
        self.profiles = ProfileStore(redis)
        self.orchestrator = Orchestrator(bank, self.limits)
        self.knowledge = KnowledgeAgent(bank)
        self.evaluator = EvaluateAgent(provider, bank=bank)
        self.feedback_agent = FeedbackAgent(provider)
        # Answers being graded and worded ahead (prepare_answer), for the answer that
        # follows. A task, not a result: an answer that arrives while its grading is still
        # running waits for it instead of grading the same words a second time.
        self._prepared: OrderedDict[tuple[str, str, str], asyncio.Task[_Judgement]] = \
            OrderedDict()

    # ---- lifecycle -------------------------------------------------------------------

    async def create(self, config: SessionConfig) -> InterviewState:
        session_id = secrets.token_hex(8)
        resume = parse_resume(config.resume_text)
        weak = (await self.profiles.weak_points(config.candidate_id)
                if config.joins_profile else [])
        weak_keys = [m.key for m in weak]
        weak_topics: list[str] = []
        for key in weak_keys:
            topic = (key.split(":", 1)[1] if key.startswith("topic:")
                     else self._topic_of(key.split("/", 1)[0]))
            if topic and topic not in weak_topics:
                weak_topics.append(topic)
        state = InterviewState(
            session_id=session_id, config=config,
            difficulty=difficulty_rules.from_self_ratings(config.self_ratings),
            topic_plan=plan_topics(config.role, [t.value for t in resume.topics], weak_topics,
                                   config.focus_topic),
            skills=resume.skills, weak_points=weak_keys, origin_ms=now_ms(),
        )
        await self.states.commit(session_id, state, 0, [self._state_event(state)])
        await self.redis.sadd(keys.SESSIONS_INDEX, session_id)
        return state

    def _topic_of(self, question_id: str) -> str | None:
        q = self.bank.questions.get(question_id)
        return q.topic.value if q else None

    async def load(self, session_id: str) -> InterviewState:
        loaded = await self.states.load(session_id)
        if loaded is None:
            raise InterviewError("not_found", f"no session {session_id!r}")
        return loaded.doc

    async def _step(self, session_id: str,
                    fn: Callable[[InterviewState], StepResult | None]) -> StepResult:
        """Load, apply ``fn`` (pure on the state), commit with its events; retry on conflict."""
        for _ in range(8):
            loaded = await self.states.load(session_id)
            if loaded is None:
                raise InterviewError("not_found", f"no session {session_id!r}")
            result = fn(loaded.doc)
            if result is None:
                return StepResult()
            try:
                _, recorded = await self.states.commit(session_id, loaded.doc, loaded.version,
                                                       result.events)
            except VersionConflict:
                continue
            result.events = recorded
            return result
        raise InterviewError("conflict", "the session is busy; retry")

    def _t(self, state: InterviewState) -> int:
        return max(0, now_ms() - state.origin_ms)

    def _state_event(self, state: InterviewState) -> dict[str, Any]:
        return wire(StateEvent(phase=state.phase.value, difficulty=state.difficulty.value,
                               questions_asked=state.main_questions_asked,
                               answered=len(state.answered),
                               max_questions=state.config.max_questions))

    def _ask(self, state: InterviewState, pick: Pick, result: StepResult) -> None:
        turn = Turn(turn_id=secrets.token_hex(6), question_id=pick.question.id,
                    followup_id=pick.followup.id if pick.followup else None,
                    phase=pick.phase, text=pick.text, topic=pick.question.topic.value,
                    difficulty=pick.question.difficulty, asked_t_ms=self._t(state))
        if pick.phase != state.phase:
            transition(state, pick.phase)
        state.turns.append(turn)
        state.current_turn_id = turn.turn_id
        if pick.followup is None:
            state.followup_depth = 0
            state.series_topic = turn.topic
            state.asked_question_ids.append(pick.question.id)
        else:
            state.followup_depth += 1
        result.events.append(wire(QuestionEvent(
            text=turn.text, question_id=pick.followup.id if pick.followup else pick.question.id,
            phase=cast(QuestionPhase, turn.phase.value), turn_id=turn.turn_id)))
        result.spoken.append(turn.text)
        result.speak_turn_id = turn.turn_id

    async def start(self, session_id: str) -> StepResult:
        """Ask the first question. Idempotent: a started session is left as it is."""
        coding_task = None
        state = await self.load(session_id)
        if state.phase == Phase.init and "concepts" not in state.config.rounds:
            coding_task = await self._pick_coding(state)

        def fn(state: InterviewState) -> StepResult | None:
            if state.phase != Phase.init:
                return None
            state.started_at = time.time()
            result = StepResult()
            decision = self.orchestrator.first(state)
            self._apply(state, decision, result, coding_task)
            return result

        return await self._step(session_id, fn)

    async def _pick_coding(self, state: InterviewState) -> dict[str, Any] | None:
        if self.coding is None or "coding" not in state.config.rounds:
            return None
        return await self.coding.pick_problem(state.difficulty.value, [])

    def _apply(self, state: InterviewState, decision: Decision, result: StepResult,
               coding_task: dict[str, Any] | None) -> None:
        if decision.action == Action.ask and decision.pick is not None:
            self._ask(state, decision.pick, result)
        elif decision.action == Action.coding and coding_task is not None:
            said = Said()
            self.coding_round.open(state, coding_task, self._t(state), said)
            self._add(result, said)
        else:
            self._finish(state, result, decision.reason or "interview complete")
        result.events.append(self._state_event(state))

    def _finish(self, state: InterviewState, result: StepResult, reason: str) -> None:
        if state.phase == Phase.ended:
            return
        if state.phase != Phase.final_feedback:
            state.phase = Phase.final_feedback  # every live phase may end the interview
        report = final_report(state, self._coding_summary(state))
        text = self._closing_words(report)
        result.events.append(wire(FeedbackEvent(kind="comment", text=text, final=True)))
        result.spoken.append(text)
        transition(state, Phase.ended)
        state.ended_reason = reason
        state.current_turn_id = None
        result.events.append(wire(SessionEndEvent(report_url=self.report_url(state.session_id))))

    def _closing_words(self, report: Report) -> str:
        parts = ["That is the end of our interview. Thank you."]
        if report.overall_score is not None:
            parts.append(f"Overall you scored {round(report.overall_score * 100)} out of 100.")
        strong_topics = sorted((t for t, s in report.ability.items() if s >= 0.7),
                               key=lambda t: -report.ability[t])
        if strong_topics:
            parts.append("You were strongest in " + " and ".join(
                spoken_topic(t) for t in strong_topics[:2]) + ".")
        weak_topics = sorted({t for t, s in report.ability.items() if s < 0.6})
        if weak_topics:
            parts.append("Next time, work on " + " and ".join(
                spoken_topic(t) for t in weak_topics[:2]) + ".")
        parts.append("Your full report is ready.")
        return " ".join(parts)

    def _coding_summary(self, state: InterviewState) -> dict[str, Any] | None:
        return self.coding_round.summary(state)

    @staticmethod
    def _add(result: StepResult, said: Said) -> None:
        result.events.extend(said.events)
        result.spoken.extend(said.spoken)
        if said.speak_turn_id is not None:
            result.speak_turn_id = said.speak_turn_id

    # ---- answers ---------------------------------------------------------------------

    async def accept_answer(self, session_id: str, text: str, *,
                            emit_transcript: bool = True,
                            transcript_confidence: float | None = None) -> StepResult:
        """Acknowledge an answer: commit it on the current turn (and its transcript event).
        ``transcript_confidence`` is the recogniser's for a spoken answer; a low one flags
        the turn for a human (the grade rests on words that may not have been said)."""
        text = text.strip()
        if not text:
            raise InterviewError("empty_answer", "the answer is empty; say or type something")

        def fn(state: InterviewState) -> StepResult | None:
            if state.phase in (Phase.init,):
                raise InterviewError("not_started", "send {\"type\": \"start\"} first")
            if state.phase in (Phase.final_feedback, Phase.ended):
                raise InterviewError("ended", "the interview has ended")
            turn = state.current_turn
            if turn is None:
                raise InterviewError("no_question", "there is no open question")
            if turn.answer is not None and turn.phase != Phase.coding:
                raise InterviewError("already_answered",
                                     "this question already has an answer; wait for the next")
            turn.answer = text if turn.answer is None else f"{turn.answer}\n{text}"
            turn.answered_t_ms = self._t(state)
            if transcript_confidence is not None:
                turn.transcript_confidence = transcript_confidence
                if (transcript_confidence < LOW_TRANSCRIPT_CONFIDENCE
                        and LOW_TRANSCRIPT_FLAG not in turn.reviewer_flags):
                    turn.reviewer_flags.append(LOW_TRANSCRIPT_FLAG)
            state.amend_point = None  # a new answer: the previous one is final
            events = ([wire(TranscriptFinalEvent(text=text, turn_id=turn.turn_id))]
                      if emit_transcript else [])
            return StepResult(events=events)

        return await self._step(session_id, fn)

    async def answer(self, session_id: str, text: str, *,
                     emit_transcript: bool = True,
                     transcript_confidence: float | None = None,
                     hold_phase_change: bool = False) -> StepResult:
        """Accept and then evaluate an answer; returns all events and what to say. The turn's
        model budget counts from here: a slow accept (a loaded Redis) leaves the models less.
        ``hold_phase_change``: the answer may still go on (a doubtful end of a spoken turn):
        a move into the coding round or the end waits for ``advance``."""
        received_s = time.monotonic()
        # A new answer makes the last one final: a move its doubtful end held back happens
        # first, and this answer goes to whatever comes next.
        advanced = await self.advance(session_id)
        accepted = await self.accept_answer(session_id, text, emit_transcript=emit_transcript,
                                            transcript_confidence=transcript_confidence)
        evaluated = await self.evaluate_pending(session_id, received_s=received_s,
                                                hold_phase_change=hold_phase_change)
        return StepResult(advanced.events + accepted.events + evaluated.events,
                          advanced.spoken + evaluated.spoken,
                          evaluated.speak_turn_id or advanced.speak_turn_id)

    async def advance(self, session_id: str) -> StepResult:
        """Make the move a doubtful end held back (the coding round, or the end), now that
        the answer can no longer go on. Idempotent: nothing held, nothing done."""
        state = await self.load(session_id)
        if not state.advance_held:
            return StepResult()
        coding_task: dict[str, Any] | None = None
        coding_fetched = False

        def fn(state: InterviewState) -> StepResult | None:
            if not state.advance_held:
                return None
            state.advance_held = False
            state.amend_point = None  # the answer is final now
            result = StepResult()
            decision = self.orchestrator.decide_next(state)
            if decision.action == Action.coding and not coding_fetched:
                raise _NeedCodingTask
            self._apply(state, decision, result, coding_task)
            return result

        try:
            return await self._step(session_id, fn)
        except _NeedCodingTask:
            coding_task, coding_fetched = await self._pick_coding(state), True
            return await self._step(session_id, fn)

    async def recover(self, session_id: str) -> StepResult:
        """Finish an acknowledged answer a killed process left unevaluated, or a move it held
        back (idempotent)."""
        evaluated = await self.evaluate_pending(session_id)
        advanced = await self.advance(session_id)
        return StepResult(evaluated.events + advanced.events,
                          evaluated.spoken + advanced.spoken,
                          advanced.speak_turn_id or evaluated.speak_turn_id)

    async def evaluate_pending(self, session_id: str, *,
                               received_s: float | None = None,
                               hold_phase_change: bool = False) -> StepResult:
        """Evaluate the open answer; ``received_s`` (``time.monotonic()``) is when it arrived,
        where the turn's model budget starts (default: now)."""
        budget_ends_s = (time.monotonic() if received_s is None else received_s
                         ) + TURN_MODEL_BUDGET_S
        state = await self.load(session_id)
        turn = state.current_turn
        if turn is None or turn.answer is None or turn.score is not None:
            return StepResult()
        if turn.phase == Phase.coding:
            return await self._coding_talk(session_id, turn.turn_id)
        after_seq = await self.events.last_seq(session_id)
        judged = await self._take_prepared((session_id, turn.turn_id, turn.answer))
        if judged is None:
            judged = await self._judge(state, turn, turn.answer, budget_ends_s)
        evaluation, fb, reviews = judged.evaluation, judged.feedback, judged.reviews
        dont_know = judged.dont_know
        # A coding problem is fetched only when the decision turns out to be "coding"; the
        # step is then computed again from freshly loaded state (nothing was committed).
        coding_task: dict[str, Any] | None = None
        coding_fetched = False
        turn_id = turn.turn_id
        profile_scores: dict[str, float] = {}

        def fn(state: InterviewState) -> StepResult | None:
            cur = state.current_turn
            if cur is None or cur.turn_id != turn_id or cur.score is not None:
                return None  # someone else finished this turn
            state.amend_point = None
            before = state.model_dump_json()
            cur.score = evaluation.score
            cur.dont_know = dont_know
            cur.hint_next = judged.hint_next
            cur.points = [PointScore.model_validate(p, from_attributes=True)
                          for p in evaluation.points]
            cur.feedback_kind, cur.feedback_text = fb.kind, fb.text
            if evaluation.voters_disagree:
                cur.reviewer_flags.append("rubric and model scores disagree")
            if any(not r.accepted for r in reviews):
                cur.reviewer_flags.append("feedback failed review at least once")
            if evaluation.rubric_only:
                # Phrases only: a right answer in other words may have been missed.
                cur.reviewer_flags.append("graded by the rubric alone")
            result = StepResult()
            result.events.append(wire(FeedbackEvent(kind=fb.kind, text=fb.text,
                                                    turn_id=cur.turn_id,
                                                    score=evaluation.score)))
            result.spoken.append(fb.text)
            self.orchestrator.record_score(state, evaluation.score)
            if should_roll(state):
                state.summaries.append(rolling_summary(state))
            probe = self.orchestrator.decide_next(state.model_copy(deep=True))
            if hold_phase_change and probe.action != Action.ask:
                # A doubtful end: the feedback now, the coding round or the end once the
                # answer can no longer go on (advance).
                state.advance_held = True
                result.events.append(self._state_event(state))
            else:
                decision = self.orchestrator.decide_next(state)
                if decision.action == Action.coding and not coding_fetched:
                    raise _NeedCodingTask
                self._apply(state, decision, result, coding_task)
            if state.phase != Phase.ended:
                state.amend_point = AmendPoint(turn_id=turn_id, before=before,
                                               after_seq=after_seq)
            profile_scores.clear()
            profile_scores.update({f"{cur.question_id}/{p.point_id}": p.coverage
                                   for p in cur.points})
            profile_scores[f"topic:{cur.topic}"] = evaluation.score
            return result

        try:
            result = await self._step(session_id, fn)
        except _NeedCodingTask:
            coding_task, coding_fetched = await self._pick_coding(state), True
            result = await self._step(session_id, fn)
        if result.events and state.config.joins_profile:
            await self.profiles.record(state.config.candidate_id, session_id, profile_scores)
        return result

    async def _judge(self, state: InterviewState, turn: Turn, answer: str,
                     budget_ends_s: float) -> _Judgement:
        """Grade ``answer`` to ``turn`` and word the feedback (nothing is committed)."""
        question = self.bank.get(turn.question_id)
        knowledge = self.knowledge.for_question(question, turn.followup_id)
        evaluation = await self.evaluator.evaluate(turn.text, answer, knowledge,
                                                   budget_ends_s=budget_ends_s)
        if evaluation.off_topic and evaluation.answer_about is None:
            evaluation.answer_about = self.knowledge.about(answer, exclude=question.id)
        dont_know = evaluation.reason is Reason.dont_know
        plan = self.orchestrator.hint_plan(state) if dont_know else None
        fb, reviews = await self.feedback_agent.feedback(
            question, evaluation, answer=answer, hint=plan.hint if plan else None,
            budget_ends_s=budget_ends_s)
        hint_next = plan.pick.followup.id if plan and plan.pick.followup else None
        return _Judgement(evaluation, fb, list(reviews), dont_know, hint_next)

    async def prepare_answer(self, session_id: str, text: str) -> list[str]:
        """Grade and word the answer ``text`` would be to the open question, without
        committing anything, and keep the result for when that answer arrives (``answer``
        then only commits it). Returns what would be said first (the feedback), so the
        voice can synthesize it ahead; [] when there is nothing to prepare."""
        text = text.strip()
        state = await self.load(session_id)
        turn = state.current_turn
        if (not text or turn is None or turn.answer is not None or turn.phase == Phase.coding
                or state.phase in (Phase.init, Phase.final_feedback, Phase.ended)):
            return []
        key = (session_id, turn.turn_id, text)
        task = self._prepared.get(key)
        if task is None:
            task = asyncio.create_task(
                self._judge(state, turn, text, time.monotonic() + TURN_MODEL_BUDGET_S),
                name="engine-prepare")
            # A grading nobody waits for any more must not leave an unread exception.
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
            self._prepared[key] = task
            while len(self._prepared) > PREPARED_KEEP:
                self._prepared.popitem(last=False)[1].cancel()
        # Shielded: the voice session drops a preparation when speech resumes, but the
        # grading may still serve the answer (the same words after a cough).
        judged = await asyncio.shield(task)
        return [judged.feedback.text]

    async def _take_prepared(self, key: tuple[str, str, str]) -> _Judgement | None:
        """The judgement prepared for exactly this answer, waiting for it if it is still
        being made; None when there is none or it failed (the caller grades afresh)."""
        task = self._prepared.pop(key, None)
        if task is None:
            return None
        await asyncio.wait({task})
        if task.cancelled():
            return None
        if task.exception() is not None:
            log.warning("a prepared grading failed; grading the answer again",
                        exc_info=task.exception())
            return None
        return task.result()

    async def amend_answer(self, session_id: str, turn_id: str, text: str, *,
                           hold_phase_change: bool = False) -> StepResult:
        """The candidate went on after a false end of turn: take back the evaluation of their
        answer on ``turn_id``, make ``text`` (the whole answer) its answer, and evaluate it
        again, once, against the same question. The taken-back events stay in the stream;
        an ``answer_amended`` event names them (``supersedes``), so playback and reports
        show what happened."""
        received_s = time.monotonic()
        text = text.strip()
        if not text:
            raise InterviewError("empty_answer", "the answer is empty; say or type something")
        state = await self.load(session_id)
        point = state.amend_point
        if point is None or point.turn_id != turn_id:
            raise InterviewError("not_amendable", "that answer can no longer be changed; "
                                                  "answer the current question instead")
        recorded = await self.events.range(session_id, point.after_seq)
        superseded = [e["seq"] for e in recorded if e.get("type") in SUPERSEDABLE]

        def fn(state: InterviewState) -> StepResult | None:
            current = state.amend_point
            if current is None or current.turn_id != turn_id:
                raise InterviewError("not_amendable", "that answer can no longer be changed")
            restored = InterviewState.model_validate_json(current.before)
            turn = next(t for t in restored.turns if t.turn_id == turn_id)
            turn.answer = text
            turn.answered_t_ms = self._t(restored)
            turn.reviewer_flags.append("answer amended after a pause")
            for name in InterviewState.model_fields:
                setattr(state, name, getattr(restored, name))
            state.amend_point = None
            return StepResult(events=[wire(AnswerAmendedEvent(turn_id=turn_id, text=text,
                                                              supersedes=superseded))])

        amended = await self._step(session_id, fn)
        evaluated = await self.evaluate_pending(session_id, received_s=received_s,
                                                hold_phase_change=hold_phase_change)
        return StepResult(amended.events + evaluated.events, evaluated.spoken,
                          evaluated.speak_turn_id)

    async def _coding_talk(self, session_id: str, turn_id: str) -> StepResult:
        """Talk during the coding round: the coding round answers it (the complexity talk
        after an accepted submit, which may end the round and so the interview). All the
        round's talk so far is graded against the problem's assessment points first, off the
        event loop and outside the state's transaction (agents/approach.py)."""
        grades: list[PointGrade] = []
        before = await self.load(session_id)
        talk_turn = before.current_turn
        if before.coding_points and talk_turn is not None and talk_turn.turn_id == turn_id:
            problem = before.coding_problem or {}
            grades = await grade_approach_async(
                talk_turn.answer or "", before.coding_points, self.evaluator.grader,
                f"{problem.get('title', '')}. {problem.get('statement', '')}")

        def fn(state: InterviewState) -> StepResult | None:
            cur = state.current_turn
            if cur is None or cur.turn_id != turn_id:
                return None
            self.coding_round.heard_approach(state, grades, self._t(state))
            said, result = Said(), StepResult()
            over = self.coding_round.talk(state, cur, self._t(state), said)
            self._add(result, said)
            if over:
                self._finish(state, result, "coding round complete")
                result.events.append(self._state_event(state))
            return result

        return await self._step(session_id, fn)

    # ---- coding round -----------------------------------------------------------------

    async def on_judge_result(self, session_id: str, result: dict[str, Any]) -> StepResult:
        """Speak about a finished submission, once per submission (evidence first), or about
        the judge's timing of an accepted one (``complexity_measured``)."""

        def fn(state: InterviewState) -> StepResult | None:
            said, out = Said(), StepResult()
            if result.get("type") == "complexity_measured":
                over = self.coding_round.on_complexity(state, result, said)
                self._add(out, said)
                if over:
                    self._finish(state, out, "coding round complete")
                    out.events.append(self._state_event(state))
                return out  # committed even when silent: the timing is kept for the claim
            if not self.coding_round.on_result(state, result, self._t(state), said):
                return None
            self._add(out, said)
            return out

        return await self._step(session_id, fn)

    async def offer_hint(self, session_id: str) -> StepResult:
        """The candidate has been silent and not editing for the hint time (the caller keeps
        that clock, ``agents.coding_hints.IdleHints``): the next hint, unasked. Nothing when
        not solving a problem or when the ladder is used up."""

        def fn(state: InterviewState) -> StepResult | None:
            said, out = Said(), StepResult()
            if not self.coding_round.hint(state, self._t(state), said, asked=False):
                return None
            self._add(out, said)
            out.speak_turn_id = state.current_turn_id
            return out

        return await self._step(session_id, fn)

    async def end(self, session_id: str, reason: str = "ended by the candidate") -> StepResult:
        def fn(state: InterviewState) -> StepResult | None:
            if state.phase == Phase.ended:
                return None
            result = StepResult()
            self._finish(state, result, reason)
            result.events.append(self._state_event(state))
            return result

        return await self._step(session_id, fn)

    async def make_practice(self, session_id: str, of: str, question_id: str) -> None:
        """Make a new, not yet started session a practice of ``question_id`` from session
        ``of``: it asks that one question, grades it the same way, and ends."""
        if question_id not in self.bank.questions:
            raise InterviewError("invalid_input", f"no question {question_id!r} in the bank")

        def fn(state: InterviewState) -> StepResult | None:
            if state.phase != Phase.init:
                raise InterviewError("started", "a started session cannot become a practice")
            state.config.practice_of, state.config.practice_question_id = of, question_id
            state.config.max_questions, state.config.rounds = 1, ["concepts"]
            return StepResult(events=[self._state_event(state)])

        await self._step(session_id, fn)

    async def report(self, session_id: str, state: InterviewState | None = None) -> Report:
        """The session's report; ``state`` when the caller has just loaded it."""
        state = state if state is not None else await self.load(session_id)
        review = await self.redis.hgetall(keys.session_review(session_id))
        return final_report(state, self._coding_summary(state), review or None, self.bank)
