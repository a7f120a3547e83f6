"""The candidate's approach talk in the coding round, graded against the problem's
assessment points by the concepts grader (issue 22, item 4).

A problem's points are plain sentences ("The stack must be empty at the end"); the grader
wants points with concepts (the phrases it listens for). Each point's concepts are its own
content words, about 40 % of them needed, as for a question graded against its reference
answer alone (``agents.grading.derive_points``); the cross-encoder then credits the same
idea in other words. Everything the candidate said or typed during the round is graded at
once, so an explanation spread over several remarks counts; a point keeps the best coverage
it ever had, with the clause that showed it.

The follow-up on a missing point names only its *area* (the cost, an edge case, how the code
works), never the point: the points stay server-side, like hidden tests.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from agents.evaluate import in_grading_pool, judge
from agents.grading import clauses, content_words
from agents.question_bank import AssessmentPoint, Concept
from agents.semantic import SemanticGrader

COVERED = 0.5  # a point's coverage from here up counts as said
_MAX_TALK_CHARS = 6000  # the latest part of a long round's talk is graded

Area = Literal["cost", "edge", "mechanism"]
_AREA_PATTERNS: tuple[tuple[Area, re.Pattern[str]], ...] = (
    ("cost", re.compile(r"o\(|\bcost|complex|time\b|space|memory|linear|quadratic|logarithm"
                        r"|\bn log|\bn\^|overflow|64-bit|fast|slow", re.IGNORECASE)),
    ("edge", re.compile(r"empty|negative|zero|\bedge|corner|overflow|duplicate|reject|invalid"
                        r"|\bmust\b|\bend\b|boundar|single|all-", re.IGNORECASE)),
)


@dataclass(frozen=True)
class PointGrade:
    point_id: str
    coverage: float
    quote: str | None  # the candidate's clause that showed it


def approach_points(points: list[dict[str, str]]) -> list[AssessmentPoint]:
    """The problem's points as the grader's points (equal weights)."""
    out: list[AssessmentPoint] = []
    for p in points:
        words = list(dict.fromkeys(w for w in content_words(p["text"]) if len(w) > 1))[:12]
        if not words:
            continue
        concepts = [Concept(name=w, phrases=[w]) for w in words]
        out.append(AssessmentPoint(id=_slug(p["id"]), text=p["text"][:300], weight=1.0,
                                   concepts=concepts,
                                   required=max(1, min(len(words), math.ceil(len(words) * 0.4)))))
    if out:
        share = 1.0 / len(out)
        out = [p.model_copy(update={"weight": share}) for p in out]
    return out


def _slug(point_id: str) -> str:
    slug = re.sub(r"[^a-z0-9-]+", "-", point_id.lower()).strip("-")
    return slug or "p"


def grade_approach(talk: str, points: list[dict[str, str]], grader: SemanticGrader | None,
                   problem_text: str) -> list[PointGrade]:
    """Coverage of each point by ``talk`` (all the round's remarks). CPU-bound: run it in a
    worker thread (the engine uses the grading pool)."""
    graded = approach_points(points)
    text = talk.strip()[-_MAX_TALK_CHARS:]
    if not graded or not text:
        return []
    ids = {_slug(p["id"]): p["id"] for p in points}
    texts = {p.id: p.text for p in graded}
    j = judge(text, graded, reference=None, grader=grader, question=problem_text)
    talk_clauses = clauses(text)
    out = []
    for jp in j.points:
        point_id = jp.point_id
        quote = jp.evidence[0] if jp.evidence else None
        if grader is not None and len(talk_clauses) > 1 and point_id in texts:
            # A point's words are often shared with its neighbours ("stack" in three of
            # them): the clause that states this point is the one the embedder finds.
            quote = grader.locate(texts[point_id], talk_clauses, authored=False,
                                  others=[t for i, t in texts.items() if i != point_id])
        out.append(PointGrade(point_id=ids.get(point_id, point_id),
                              coverage=round(jp.coverage, 3),
                              quote=quote))
    return out


async def grade_approach_async(talk: str, points: list[dict[str, str]],
                               grader: SemanticGrader | None,
                               problem_text: str) -> list[PointGrade]:
    """``grade_approach`` on the grading pool: the event loop keeps streaming meanwhile."""
    return await in_grading_pool(grade_approach, talk, points, grader, problem_text)


def area_of(point_text: str) -> Area:
    """What a follow-up about this point may name: its cost, an edge case, or (else) how the
    code works."""
    for area, pattern in _AREA_PATTERNS:
        if pattern.search(point_text):
            return area
    return "mechanism"


def missing_point(points: list[dict[str, str]], coverage: dict[str, float],
                  asked: list[str]) -> dict[str, str] | None:
    """The first point the talk has not covered and the interviewer has not asked about."""
    for p in points:
        if coverage.get(p["id"], 0.0) < COVERED and p["id"] not in asked:
            return p
    return None
