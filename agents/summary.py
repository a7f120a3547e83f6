"""SummaryAgent: a rolling summary every 5 rounds, and the final report.

Both are built in code from the state: scores per assessment point, each with the
candidate's words it rests on (turn id and time offset), so a human can check every claim.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from agents.state import InterviewState, Phase, Turn

ROLLING_EVERY = 5
WEAK_BELOW = 0.6


def rolling_summary(state: InterviewState) -> str:
    answered = state.answered
    if not answered:
        return "No answers yet."
    strong = sorted({t.topic for t in answered if (t.score or 0) >= 0.7})
    weak = sorted({t.topic for t in answered if (t.score or 0) < 0.4})
    covered = sorted({p.point_id for t in answered for p in t.points if p.coverage >= 0.5})
    mean = sum(t.score or 0 for t in answered) / len(answered)
    shown = ", ".join(covered[:12]) or "none"
    return (f"After {len(answered)} answers (mean {mean:.2f}, difficulty "
            f"{state.difficulty.value}): strong in {', '.join(strong) or 'nothing yet'}; "
            f"weak in {', '.join(weak) or 'nothing yet'}; points shown: {shown}.")


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


class Report(BaseModel):
    session_id: str
    candidate_id: str
    role: str
    status: str
    overall_score: float | None
    difficulty: str
    ability: dict[str, float]
    assessment_points: list[PointEvidence]
    weak_points: list[str]
    carried_weak_points: list[str]
    strengths: list[str]
    summaries: list[str]
    turns: list[ReportTurn]
    coding: dict[str, Any] | None = None
    reviewer_flags: list[str]
    review: dict[str, Any] | None = None  # a human reviewer's override


def point_scores(state: InterviewState) -> list[PointEvidence]:
    """Per (question, point): the best coverage over the main turn and its follow-ups."""
    best: dict[tuple[str, str], PointEvidence] = {}
    for t in state.answered:
        for p in t.points:
            key = (t.question_id, p.point_id)
            quotes = [{"turn_id": t.turn_id, "t_ms": t.answered_t_ms, "quote": q}
                      for q in p.evidence]
            cur = best.get(key)
            if cur is None or p.coverage > cur.score:
                best[key] = PointEvidence(question_id=t.question_id, point_id=p.point_id,
                                          point=p.text, score=p.coverage, weight=p.weight,
                                          evidence=quotes + (cur.evidence if cur else []),
                                          misconceptions=p.misconceptions)
            else:
                cur.evidence.extend(quotes)
    return list(best.values())


def _turn_flags(t: Turn) -> list[str]:
    return list(t.reviewer_flags)


def final_report(state: InterviewState, coding: dict[str, Any] | None = None,
                 review: dict[str, Any] | None = None) -> Report:
    points = point_scores(state)
    graded = [t for t in state.answered if t.phase != Phase.coding]
    overall = round(sum(t.score or 0 for t in graded) / len(graded), 3) if graded else None
    weak = sorted({f"{p.question_id}/{p.point_id}" for p in points if p.score < WEAK_BELOW})
    strengths = sorted({t for t, s in state.ability.items() if s >= 0.7})
    flags = sorted({f for t in state.turns for f in _turn_flags(t)})
    if coding and coding.get("attempts", 0) >= 5:
        flags.append(f"many attempts on the coding problem ({coding['attempts']})")
    return Report(
        session_id=state.session_id, candidate_id=state.config.candidate_id,
        role=state.config.role, status=state.phase.value, overall_score=overall,
        difficulty=state.difficulty.value, ability=state.ability, assessment_points=points,
        weak_points=weak, carried_weak_points=state.weak_points, strengths=strengths,
        summaries=state.summaries,
        turns=[ReportTurn(turn_id=t.turn_id, phase=t.phase.value, question=t.text,
                          answer=t.answer, score=t.score, feedback_kind=t.feedback_kind,
                          feedback=t.feedback_text, asked_t_ms=t.asked_t_ms,
                          answered_t_ms=t.answered_t_ms, flags=_turn_flags(t))
               for t in state.turns],
        coding=coding, reviewer_flags=flags, review=review,
    )
