"""SummaryAgent: a rolling summary every 5 rounds, and the final report.

Both are built in code from the state: scores per assessment point, each with the
candidate's words it rests on (turn id and time offset), so a human can check every claim.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, computed_field

from agents.coding_score import overall_score
from agents.feedback import inline_sentence
from agents.grading import clauses
from agents.names import spoken_topic, weak_point_name
from agents.question_bank import QuestionBank
from agents.question_results import QuestionResult, question_results
from agents.state import InterviewState, Phase, Turn

ROLLING_EVERY = 5
WEAK_BELOW = 0.6


def rolling_summary(state: InterviewState) -> str:
    answered = state.answered
    if not answered:
        return "No answers yet."
    strong = sorted({t.topic for t in answered if (t.score or 0) >= 0.7})
    weak = sorted({t.topic for t in answered if (t.score or 0) < 0.4})
    points = {(t.question_id, p.point_id): p.coverage >= 0.5 for t in answered for p in t.points}
    mean = sum(t.score or 0 for t in answered) / len(answered)
    name = _topic_name
    return (f"After {len(answered)} answers (mean {mean:.2f}, difficulty "
            f"{state.difficulty.value}): strong in "
            f"{', '.join(name(t) for t in strong) or 'nothing yet'}; weak in "
            f"{', '.join(name(t) for t in weak) or 'nothing yet'}; "
            f"{sum(points.values())} of {len(points)} assessment points shown.")


def _topic_name(topic: str) -> str:
    return spoken_topic(topic)


Progress = Literal["finished", "abandoned", "in progress"]


def progress_of(phase: str, ended_reason: str | None) -> Progress:
    """What a reviewer wants to know of a session: over (and how), or still going."""
    if phase != Phase.ended.value:
        return "in progress"
    return "abandoned" if ended_reason == "abandoned" else "finished"


def reviewed_score(review: dict[str, Any] | None) -> float | None:
    """A reviewer's override from the report's ``review`` (Redis keeps strings)."""
    if not review:
        return None
    try:
        return float(review["overall_score"])
    except (KeyError, TypeError, ValueError):
        return None


def clock(t_ms: int | None) -> str:
    """A session offset as m:ss, the way a person reads a recording's time."""
    s = max(0, int(t_ms or 0)) // 1000
    return f"{s // 60}:{s % 60:02d}"


_sentence_case = inline_sentence


def should_roll(state: InterviewState) -> bool:
    n = len(state.answered)
    return n > 0 and n % ROLLING_EVERY == 0 and len(state.summaries) < n // ROLLING_EVERY


class PointEvidence(BaseModel):
    question_id: str
    point_id: str
    point: str
    score: float
    weight: float
    evidence: list[dict[str, Any]]  # {"turn_id", "t_ms", "quote"}
    misconceptions: list[str] = []
    question: str = ""  # what was asked, as the candidate heard it
    sentence: str = ""  # the point's result as a person would write it


class Note(BaseModel):
    """A strength or a weak point as a sentence, with the words it rests on and their time."""

    sentence: str
    quote: str
    turn_id: str
    t_ms: int | None


class ReportTurn(BaseModel):
    turn_id: str
    phase: str
    question: str
    answer: str | None
    score: float | None
    feedback_kind: str | None
    feedback: str | None
    asked_t_ms: int
    answered_t_ms: int | None
    flags: list[str] = []


class CarriedWeakPoint(BaseModel):
    """A weak point from the candidate's earlier interviews, and how it went this time."""

    key: str  # "<question id>/<point id>"
    point: str = ""
    label: str = ""  # the point in words, for a person (the key is for machines)
    status: Literal["improved", "still weak", "not asked"]
    score: float | None = None  # this interview's coverage, when it was asked again


class Report(BaseModel):
    session_id: str
    candidate_id: str
    role: str
    status: str
    overall_score: float | None
    difficulty: str
    ability: dict[str, float]
    assessment_points: list[PointEvidence]
    weak_points: list[str]  # sentences, each with its quote and time
    carried_weak_points: list[str]
    compared_with_earlier: list[CarriedWeakPoint] = []
    strengths: list[str]  # sentences, each with its quote and time
    strength_notes: list[Note] = []
    weak_notes: list[Note] = []
    weak_point_keys: list[str] = []  # "<question id>/<point id>", for machines
    summaries: list[str]
    turns: list[ReportTurn]
    coding: dict[str, Any] | None = None
    reviewer_flags: list[str]
    review: dict[str, Any] | None = None  # a human reviewer's override
    questions: list[QuestionResult] = []  # question by question, as a person reads it
    ended_reason: str | None = None
    practice_of: str | None = None  # a practice session: the session of the first attempt
    # Set by the server: {"of", "question_id", "question", "before": {...}, "after": {...}}.
    practice: dict[str, Any] | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def progress(self) -> Progress:
        return progress_of(self.status, self.ended_reason)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def final_score(self) -> float | None:
        """The score that stands: a reviewer's override when there is one, else the graded."""
        reviewed = reviewed_score(self.review)
        return reviewed if reviewed is not None else self.overall_score


def point_scores(state: InterviewState) -> list[PointEvidence]:
    """Per (question, point): the best coverage over the main turn and its follow-ups."""
    best: dict[tuple[str, str], PointEvidence] = {}
    asked: dict[str, str] = {}
    for t in state.answered:
        asked.setdefault(t.question_id, t.text)
        for p in t.points:
            key = (t.question_id, p.point_id)
            quotes = [{"turn_id": t.turn_id, "t_ms": t.answered_t_ms, "quote": q}
                      for q in p.evidence]
            cur = best.get(key)
            if cur is None or p.coverage > cur.score:
                best[key] = PointEvidence(question_id=t.question_id, point_id=p.point_id,
                                          point=p.text, score=p.coverage, weight=p.weight,
                                          evidence=quotes + (cur.evidence if cur else []),
                                          misconceptions=p.misconceptions,
                                          question=asked[t.question_id])
            else:
                cur.evidence.extend(quotes)
    for pe in best.values():
        pe.sentence = _point_sentence(pe)
    return list(best.values())


def _point_sentence(p: PointEvidence) -> str:
    point = _sentence_case(p.point)
    if p.misconceptions:
        return f"Said that {_sentence_case(p.misconceptions[0])}, which is not right."
    # A point's text may be a sentence or a fragment ("avoids a full table scan", a list of
    # terms): "showed that …" reads wrong with a fragment; this frame reads right with both.
    if p.score >= STRONG_AT:
        return f"Covered this: {point}."
    if p.score >= 0.5:
        return f"Partly covered this: {point}."
    return f"Did not cover this: {point}."


STRONG_AT = 0.7


def _first_words(answer: str | None) -> str:
    if not answer or not answer.strip():
        return ""
    cl = clauses(answer)
    return cl[0] if cl else answer.strip()


def notes(state: InterviewState, points: list[PointEvidence],
          ) -> tuple[list[Note], list[Note]]:
    """Strengths (points shown well) and weak points (shown weakly or not at all), each as a
    sentence with the candidate's words it rests on: for a missing point, what they said to
    that question instead."""
    first_turn: dict[str, Turn] = {}
    for t in state.answered:
        first_turn.setdefault(t.question_id, t)
    strong, weak = [], []
    for p in points:
        turn = first_turn.get(p.question_id)
        if turn is None:
            continue
        q = p.evidence[0] if p.evidence else None
        quote = str(q["quote"]) if q else _first_words(turn.answer)
        turn_id = str(q["turn_id"]) if q else turn.turn_id
        t_ms = q["t_ms"] if q else turn.answered_t_ms
        on = f"On “{p.question}”" if p.question else "In one answer"
        if p.score >= STRONG_AT and not p.misconceptions:
            sentence = f"{on}: you covered this: {_sentence_case(p.point)}."
            strong.append(Note(sentence=sentence, quote=quote, turn_id=turn_id, t_ms=t_ms))
        elif p.score < WEAK_BELOW or p.misconceptions:
            what = (f"you said that {_sentence_case(p.misconceptions[0])}, which is not right"
                    if p.misconceptions else
                    f"you only partly covered this: {_sentence_case(p.point)}" if p.score >= 0.3
                    else f"you did not cover this: {_sentence_case(p.point)}")
            weak.append(Note(sentence=f"{on}: {what}.", quote=quote, turn_id=turn_id,
                             t_ms=t_ms))
    return strong, weak


def _with_quote(n: Note) -> str:
    said = f" (you said “{n.quote}” at {clock(n.t_ms)})" if n.quote else ""
    return n.sentence.rstrip(".") + said + "."


def _turn_flags(t: Turn) -> list[str]:
    return list(t.reviewer_flags)


def compare_with_earlier(carried: list[str], points: list[PointEvidence],
                         bank: QuestionBank | None = None) -> list[CarriedWeakPoint]:
    """Each weak point carried in from earlier interviews: asked again and now covered
    (improved), asked and still under the bar, or not asked this time."""
    by_key = {f"{p.question_id}/{p.point_id}": p for p in points}
    out = []
    for key in carried:
        p = by_key.get(key)
        label = weak_point_name(key, bank)
        if p is None:
            out.append(CarriedWeakPoint(key=key, label=label, status="not asked"))
        else:
            out.append(CarriedWeakPoint(key=key, point=p.point, label=label, score=p.score,
                                        status="improved" if p.score >= WEAK_BELOW
                                        else "still weak"))
    return out


def _turn_score(t: Turn, coding: dict[str, Any] | None) -> float | None:
    """The coding turn is scored by the round (its score), not by grading its talk."""
    if t.phase == Phase.coding and coding:
        return coding.get("score")
    return t.score


def _coding_feedback(t: Turn, coding: dict[str, Any] | None) -> str | None:
    if t.phase != Phase.coding or not coding:
        return None
    submits = [a for a in coding.get("submissions", []) if a.get("kind") == "submit"]
    if not submits:
        return "Nothing was submitted."
    last = submits[-1]
    text = f"Last submit: {last.get('verdict')}, {last.get('passed')} of {last.get('total')} tests."
    hints = int(coding.get("hints_used") or 0)
    return text + (f" {hints} hint{'s' if hints != 1 else ''} used." if hints else "")


def final_report(state: InterviewState, coding: dict[str, Any] | None = None,
                 review: dict[str, Any] | None = None,
                 bank: QuestionBank | None = None) -> Report:
    """The report; with the ``bank``, names and (once ended) model answers come from it."""
    points = point_scores(state)
    graded = [t for t in state.answered if t.phase != Phase.coding]
    concepts = round(sum(t.score or 0 for t in graded) / len(graded), 3) if graded else None
    # The coding round counts with its own score (agents/coding_score.py, README Scoring).
    overall = overall_score(concepts, (coding or {}).get("score"))
    weak_keys = sorted({f"{p.question_id}/{p.point_id}" for p in points
                        if p.score < WEAK_BELOW})
    strong_notes, weak_notes = notes(state, points)
    flags = sorted({f for t in state.turns for f in _turn_flags(t)})
    if coding and coding.get("attempts", 0) >= 5:
        flags.append(f"many attempts on the coding problem ({coding['attempts']})")
    return Report(
        session_id=state.session_id, candidate_id=state.config.candidate_id,
        role=state.config.role, status=state.phase.value, overall_score=overall,
        difficulty=state.difficulty.value, ability=state.ability, assessment_points=points,
        weak_points=[_with_quote(n) for n in weak_notes],
        carried_weak_points=state.weak_points,
        compared_with_earlier=compare_with_earlier(state.weak_points, points, bank),
        strengths=[_with_quote(n) for n in strong_notes],
        strength_notes=strong_notes, weak_notes=weak_notes, weak_point_keys=weak_keys,
        summaries=state.summaries,
        turns=[ReportTurn(turn_id=t.turn_id, phase=t.phase.value, question=t.text,
                          answer=t.answer, score=_turn_score(t, coding),
                          feedback_kind=t.feedback_kind,
                          feedback=t.feedback_text or _coding_feedback(t, coding),
                          asked_t_ms=t.asked_t_ms,
                          answered_t_ms=t.answered_t_ms, flags=_turn_flags(t))
               for t in state.turns],
        coding=coding, reviewer_flags=flags, review=review,
        questions=question_results(state, bank), ended_reason=state.ended_reason,
        practice_of=state.config.practice_of,
    )
