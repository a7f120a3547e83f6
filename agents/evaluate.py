"""EvaluateAgent: how well an answer covers the assessment points, score 0..1.

Two graders in code, always: the rubric (points, concepts, negation, misconceptions: it finds
the candidate's words that show each point) and the semantic grader (a cross-encoder that
reads each point and the reference answer against the answer: it understands paraphrase and
sees an answer about something else). ``judge`` combines them with weights fitted on held-out
public questions, gates off-topic answers, and keeps for every point the candidate's own
words (verbatim clauses of the answer) that it rests on.

With a model configured, the model also judges each point and must quote the candidate's
words; a quote that is not in the answer voids that point's judgement. It is averaged with
the grader only if it answers within a deadline; a large gap flags the turn for a human.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from agents.fluency import order_factor
from agents.grading import (
    MISCONCEPTION_ANSWER_FACTOR,
    MISCONCEPTION_POINT_FACTOR,
    PointResult,
    PreparedAnswer,
    Reason,
    clauses,
    content_words,
    derive_points,
    grade,
    quote_for,
    stopword_share,
)
from agents.knowledge import Knowledge
from agents.messages import Evaluation, ModelEvaluation
from agents.names import answer_subject
from agents.providers.base import LanguageProvider, ProviderError
from agents.question_bank import AssessmentPoint, Misconception, QuestionBank
from agents.relevance import (
    OPEN_CONTRAST_BY,
    OPEN_TOPICS,
    Relevance,
    RelevanceGate,
    default_embedder,
)
from agents.semantic import SemanticGrader, default_grader
from agents.turn_budget import MIN_MODEL_CALL_S, model_deadline

T = TypeVar("T")
_GRADING = ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1),
                              thread_name_prefix="grader")


async def in_grading_pool(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on the grading pool (CPU-bound model calls off the event loop)."""
    return await asyncio.get_running_loop().run_in_executor(_GRADING, fn, *args)

_SYSTEM = (
    "You grade a job candidate's spoken answer against assessment points. For each point "
    "return covered (0..1) and a short exact quote of the candidate's words that shows it "
    "(empty if none). Do not invent quotes. Reply with JSON only."
)
DISAGREEMENT = 0.4
MODEL_DEADLINE_S = 0.8  # the live turn never waits longer than this for a model's judgement
KEYWORD_LIST_CAP = 0.35  # terms listed without a sentence around them
DONT_KNOW_CAP, SHORT_CAP = 0.1, 0.3
WORD_SALAD_CAP = 0.0
_HEDGE = re.compile(r"\b(not sure|(?:do\s*n[o']?t|dont) know|no idea|not certain|"
                    r"(?:can'?t|cannot) remember)\b", re.IGNORECASE)
OFF_TOPIC_CAP = 0.1
GATE_RUBRIC_BELOW = 0.5  # an answer that shows half the points by their phrases is on topic,
GATE_STRONG_MARGIN = 0.5  # unless it sits this much nearer another bank question: then the
# phrases are shared vocabulary (a scaling story names "cache" and "memory" too), not an answer


@dataclass
class Judgement:
    score: float
    points: list[PointResult]
    misconceptions: list[str]
    reason: Reason = Reason.none
    off_topic: bool = False
    relevance: float | None = None  # the semantic grader's best match with the question
    rubric_score: float = 0.0
    parts: dict[str, float] = field(default_factory=dict)
    about: str | None = None  # what an off-topic answer is about, when the gate knows
    near_topic: bool = False  # gated as an answer to another question of a near topic
    gate: Relevance | None = None  # the relevance gate's verdict, when it was asked


def _cap(result: Judgement, cap: float, reason: Reason) -> None:
    """No point is credited above ``cap`` and none is quoted, whatever words it shares."""
    result.reason = reason
    result.score = round(min(result.score, cap), 3)
    for p in result.points:
        p.coverage, p.evidence = min(p.coverage, cap), []


def _gate(result: Judgement, cap: float) -> None:
    """An answer about something else: no point is credited, whatever words it shares."""
    result.off_topic = True
    _cap(result, cap, Reason.off_topic)


def _is_keyword_list(answer: str) -> bool:
    return len(content_words(answer)) >= 5 and stopword_share(answer) < 0.15


def _quotes(answer: str, excerpts: list[str]) -> list[str]:
    seen: list[str] = []
    for e in excerpts:
        q = quote_for(answer, e)
        if q and q not in seen:
            seen.append(q)
    return seen


def judge(answer: str, points: list[AssessmentPoint],
          misconceptions: list[Misconception] | None = None, *,
          reference: str | None = None,
          grader: SemanticGrader | None = None,
          relevance: Relevance | None = None, authored: bool = False,
          question: str | None = None, alternatives: tuple[str, ...] = (),
          reference_share: float = 1.0) -> Judgement:
    """Grade ``answer`` against ``points`` (and the reference answer, when there is one).
    ``relevance`` is the gate's verdict on whether the answer is about this question;
    ``authored`` says the points are the bank's (not cut from a reference answer);
    ``question`` lets the grader discount the question's own words; ``alternatives`` are
    further acceptable reference answers; ``reference_share`` the part of the reference answer
    ``points`` stand for."""
    # What the candidate says they are unsure of ("I'm not sure what happens when two keys
    # collide") is not evidence: neither the rubric nor the model sees those clauses.
    sure = [c for c in clauses(answer) if not _HEDGE.search(c)]
    graded = " ".join(sure) if sure else answer
    g = grade(graded, points, misconceptions)
    # The judgement's own records: ``g.points`` keep the rubric's coverage and excerpts.
    judged = [replace(p, evidence=_quotes(answer, p.evidence)) for p in g.points]
    result = Judgement(g.score, judged, g.misconceptions, g.reason, rubric_score=g.score)
    if g.reason is Reason.empty:
        return result
    order = 1.0 if g.reason is Reason.dont_know else order_factor(answer)
    if order == 0.0:
        # Its words in no sentence order (``agents.fluency``): whatever keywords it shares, it
        # says nothing, and no clause of it is quoted back as evidence.
        _cap(result, WORD_SALAD_CAP, Reason.word_salad)
        return result
    # "I don't know" and one-word answers are what they are, not answers to another question.
    # A near-topic answer (the gate's verdict, ``agents.relevance``) is gated whatever its
    # rubric coverage: the phrases it shows are the vocabulary the two questions share.
    gated = (relevance is not None and relevance.off_topic
             and (relevance.near_topic or g.score < GATE_RUBRIC_BELOW
                  or relevance.margin >= GATE_STRONG_MARGIN)
             and g.reason not in (Reason.dont_know, Reason.short))
    if gated:
        # About another question: capped whatever the model would add, so it is not run.
        assert relevance is not None
        result.relevance = round(relevance.own, 3)
        result.near_topic = relevance.near_topic
        _gate(result, OFF_TOPIC_CAP)
        return result
    if grader is None:
        return result
    ev = grader.evidence(graded, reference, [p.text for p in g.points],
                         authored=authored, question=question, alternatives=alternatives,
                         reference_share=reference_share)
    if g.misconceptions:
        # The model reads meaning, not the authored wrong claims: cut what it credits.
        cut = [s * (MISCONCEPTION_POINT_FACTOR if pr.misconceptions else 1.0)
               for s, pr in zip(ev.points, g.points, strict=True)]
        ev = replace(ev, reference=ev.reference * MISCONCEPTION_ANSWER_FACTOR
                     if ev.reference >= 0 else ev.reference, points=cut,
                     cos=ev.cos * MISCONCEPTION_ANSWER_FACTOR,
                     cos_demoted=ev.cos_demoted * MISCONCEPTION_ANSWER_FACTOR)
    weights = [p.weight for p in g.points]
    score = grader.combine(g.score, [p.coverage for p in g.points], ev, weights,
                           authored=authored)
    result.relevance = round(relevance.own if relevance is not None else ev.relevance, 3)
    result.parts = {"rubric": g.score, "semantic_points": round(ev.points_mean(weights), 3),
                    "semantic_reference": round(ev.reference, 3),
                    "similarity_demoted": round(ev.cos_demoted, 3)}
    # "I don't know" is not about another subject, however little the model finds in it.
    if g.reason is not Reason.dont_know and grader.off_topic(g.score, ev, authored=authored):
        result.score = score
        _gate(result, grader.calibration(authored).off_topic_cap)
        return result
    many_clauses = sure
    for jp, s, pr in zip(judged, ev.points, g.points, strict=True):
        jp.semantic = round(s, 3)
        credit = round(grader.point_credit(pr.coverage, s, ev, authored=authored), 3)
        jp.coverage = credit
        if credit > pr.coverage and not jp.evidence and many_clauses:
            # Credited (even partly) in other words than the concepts' phrases: every score
            # points at evidence, so quote the clause that states the point.
            jp.evidence = [grader.locate(pr.text, many_clauses, authored=authored,
                                         others=[o.text for o in g.points if o is not pr])]
    if g.reason is Reason.dont_know:
        score = min(score, DONT_KNOW_CAP)
    elif g.reason is Reason.short and (authored or reference is None):
        # A bank question asks for an explanation: three words are not one. Against a reference
        # answer of its own (``viva grade``) a short answer may be complete ("By turning off
        # the electricity."), and the combination fitted on such answers already weighs it.
        score = min(score, SHORT_CAP)
    elif _is_keyword_list(answer):
        score, result.reason = min(score, KEYWORD_LIST_CAP), Reason.keyword_list
    if order < 1.0:
        # Between the word-order bars: the credit stands in proportion.
        score *= order
        for jp in judged:
            jp.coverage = round(jp.coverage * order, 3)
    result.score = round(score, 3)
    return result


class EvaluateAgent:
    def __init__(self, provider: LanguageProvider, grader: SemanticGrader | None = None, *,
                 bank: QuestionBank | None = None, use_semantic: bool = True,
                 model_deadline_s: float = MODEL_DEADLINE_S):
        self.provider = provider
        self.grader = grader if grader is not None or not use_semantic else default_grader()
        embedder = default_embedder() if use_semantic else None
        self.gate = RelevanceGate(embedder, bank) if embedder is not None else None
        self.bank = bank
        self.model_deadline_s = model_deadline_s

    def warm(self) -> None:
        """Load the models, embed the bank and read its reference answers now, not on the
        first answer."""
        if self.gate is not None:
            self.gate.warm()
        if self.grader is not None and self.bank is not None:
            for q in self.bank.questions.values():
                if q.reference_answer:
                    self.grader.prepare(q.reference_answer, [p.text for p in q.assessment_points])

    def judge(self, question_text: str, answer: str, knowledge: Knowledge) -> Judgement:
        points = knowledge.points
        if not knowledge.has_standard_answer:
            # No standard answer: grade against the question's own terms, and say so.
            points = derive_points(question_text)
        relevance = None
        if self.gate is not None and answer.strip():
            relevance = self.gate.check(answer, knowledge.source_question_id, question_text,
                                        knowledge.reference_answer)
        j = self._grade(question_text, answer, knowledge, points, relevance)
        j.gate = relevance
        if j.off_topic and relevance is not None and relevance.nearest_other and self.bank:
            other = self.bank.get(relevance.nearest_other)
            asked = self.bank.questions.get(knowledge.source_question_id or "")
            j.about = answer_subject(other.topic.value, asked.topic.value if asked else None)
        elif self._answers_another_story(answer, j, relevance, knowledge):
            # Another story, not another subject: no "that answer is about a past experience"
            # to a behavioural question; the feedback says it does not answer this one.
            j.near_topic = True
            _gate(j, OFF_TOPIC_CAP)
        return j

    def _grade(self, question_text: str, answer: str, knowledge: Knowledge,
               points: list[AssessmentPoint], relevance: Relevance | None) -> Judgement:
        return judge(answer, points, knowledge.misconceptions,
                     reference=knowledge.reference_answer, grader=self.grader,
                     relevance=relevance, authored=knowledge.source_question_id is not None,
                     question=question_text, alternatives=knowledge.alternative_references,
                     reference_share=knowledge.reference_share)

    def _answers_another_story(self, answer: str, j: Judgement, relevance: Relevance | None,
                               knowledge: Knowledge) -> bool:
        """Open questions (projects, behavioural) invite stories, and stories sit near each
        other for the embedder, so its near-topic rule lets most through. The grader tells
        them apart better: an answer to an open bank question that it credits clearly more
        (``OPEN_CONTRAST_BY``) as the answer to the nearest other open question answers that
        one. One more grading, only for a credited answer to an open main question."""
        asked = knowledge.source_question_id
        if (self.bank is None or relevance is None or asked is None
                or knowledge.reference_share < 1.0 or j.off_topic
                or j.reason is not Reason.none or j.score <= OFF_TOPIC_CAP):
            return False
        contrast = self.story_contrast(answer, asked, j.score, relevance)
        return contrast is not None and contrast > OPEN_CONTRAST_BY

    def story_contrast(self, answer: str, asked: str, score: float,
                       relevance: Relevance) -> float | None:
        """The answer's grade as the answer to the nearest other open bank question, minus
        ``score`` (its grade for ``asked``); None unless ``asked`` is an open question."""
        if (self.bank is None or relevance.nearest_of_kind is None
                or self.bank.get(asked).topic.value not in OPEN_TOPICS):
            return None
        other = self.bank.get(relevance.nearest_of_kind)
        theirs = self._grade(other.text, answer, Knowledge.of(other),
                             list(other.assessment_points), None)
        return theirs.score - score

    async def evaluate(self, question_text: str, answer: str, knowledge: Knowledge, *,
                       budget_ends_s: float | None = None) -> Evaluation:
        """The grader's evaluation, averaged with a model's judgement when one answers within
        its deadline and within what the turn's budget has left once the grading is done
        (``budget_ends_s``: see ``agents.turn_budget``)."""
        # The cross-encoder runs in a thread (onnxruntime releases the GIL): the event loop
        # keeps streaming audio meanwhile. Its own pool, one thread per core: on asyncio's
        # default pool (cores + 4 threads) a burst of answers starved the event loop.
        loop = asyncio.get_running_loop()
        j = await loop.run_in_executor(_GRADING, self.judge, question_text, answer, knowledge)
        evaluation = Evaluation(score=j.score, has_standard_answer=knowledge.has_standard_answer,
                                points=j.points, misconceptions=j.misconceptions,
                                reason=j.reason, off_topic=j.off_topic, relevance=j.relevance,
                                answer_about=j.about,
                                rubric_only=self.grader is None and j.reason is not Reason.empty)
        if self.provider.has_model and j.reason is Reason.none:
            deadline = model_deadline(self.model_deadline_s, budget_ends_s)
            try:
                if deadline < MIN_MODEL_CALL_S:
                    raise TimeoutError  # the grading spent the turn: no model this time
                model_score = await asyncio.wait_for(
                    self._model_score(question_text, answer, j.points), deadline)
            except TimeoutError:
                model_score, evaluation.model_late = None, True
            if model_score is not None:
                evaluation.model_score = model_score
                evaluation.voters_disagree = abs(model_score - j.score) > DISAGREEMENT
                evaluation.score = round((j.score + model_score) / 2, 3)
        return evaluation

    async def _model_score(self, question_text: str, answer: str,
                           points: list[PointResult]) -> float | None:
        user = json.dumps({
            "question": question_text,
            "answer": answer,
            "points": [{"point_id": p.point_id, "text": p.text} for p in points],
        })
        for _ in range(2):  # one retry for a retryable failure, in this one place
            try:
                result = await self.provider.complete_json(_SYSTEM, user, ModelEvaluation)
                break
            except ProviderError as exc:
                if not exc.retryable:
                    return None
        else:
            return None
        answer_words = " ".join(PreparedAnswer.of(answer).words)
        by_id = {j.point_id: j for j in result.points}
        total = sum(p.weight for p in points) or 1.0
        score = 0.0
        for p in points:
            j = by_id.get(p.point_id)
            if j is None:
                continue
            quote = " ".join(PreparedAnswer.of(j.quote).words)
            if j.covered > 0 and (not quote or quote not in answer_words):
                continue  # an unsupported claim of coverage counts for nothing
            score += p.weight / total * j.covered
        return round(score, 3)
