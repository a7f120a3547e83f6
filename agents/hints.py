"""Hints for "I don't know": a nudge and a smaller question, never the answer.

The first time a candidate says they do not know on a question (main, warm-up or follow-up),
the interviewer gives a hint and asks a smaller question; the correction comes only after a
second miss on the same question (``agents.orchestrator``). The hint is the question's
authored one when the main question was asked; otherwise it is made here from the point the
candidate is missing: it names the *area* of that point (its cost, a condition, an example,
the situation of a story...) and the smaller question asks about that area alone. Neither
says the point: ``gives_away`` checks that no word of the point (its text, its concepts'
phrases) that the question itself does not already say is in them, and a wording that would
is replaced by a plainer one.

A derived smaller question is a follow-up of the question that probes that one point; its id
(``derived_id``) says which, so grading and reports find its point like an authored one's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agents.grading import content_words, stem
from agents.question_bank import AssessmentPoint, FollowUp, Question

DERIVED = "--hint-"


@dataclass(frozen=True)
class Area:
    """An area a point can be about: how to recognise it, the hint and the smaller question."""

    name: str
    pattern: re.Pattern[str]
    hint: str
    question: str


def _area(name: str, pattern: str, hint: str, question: str) -> Area:
    return Area(name, re.compile(pattern, re.IGNORECASE), hint, question)


# In order: the first whose pattern matches the point's id and text is the point's area.
_OPEN_AREAS = [
    _area("situation", r"situation|background|context|goal|feedback\b|who needed",
          "Start with the situation: where you were and what was at stake",
          "What was the situation, in a sentence or two?"),
    _area("outcome", r"outcome|result|learn|reflect|prevent|change",
          "Think about what came of it, and what you would keep doing",
          "What came of it, and what would you keep doing?"),
    _area("motivation", r"motivat|interest|why this",
          "Think about what draws you to this kind of work",
          "What draws you to this role?"),
    _area("actions", r".",
          "Think about what you did yourself, in order",
          "What did you do yourself, first and then next?"),
]
_TECHNICAL_AREAS = [
    _area("example", r"example|such as|e\.g\.|concrete",
          "Think of one real case where this comes up",
          "Can you give me one concrete example, even a small one?"),
    _area("remedy", r"\bfix|prevent|avoid|mitigat|resolv|detect",
          "Think about what you would change so that the problem cannot happen",
          "How would you stop it from happening?"),
    _area("cost", r"o\(|\bcost|complex|time\b|space|memory|fast|slow|overhead|expensive|cheap"
                  r"|linear|logarithm|quadratic|constant",
          "Think about how much work it does, and what it needs to do it",
          "How much work does it take, and what does it need?"),
    _area("condition", r"condition|requir|\bneeds?\b|\bmust\b|only if|cause|when|fail",
          "Think about what has to be true for it to happen, or to work",
          "What has to be true for it to happen, or to work?"),
    _area("use", r"\buse|usage|suits|choice|choose|prefer|wins|good for",
          "Think about the kind of problem where you would reach for it",
          "Where would you reach for it, and why there?"),
    _area("definition", r"definition|describes|\bmeans\b|\bis an?\b",
          "Start from what it is, in one plain sentence",
          "In one plain sentence, what is it?"),
    _area("mechanism", r".",
          "Think about what happens inside, in order",
          "Can you walk me through what happens, in order?"),
]
# When an area's wording would say a word of the point: nothing but a nudge to start small.
PLAIN = [Area("plain", re.compile("."), "Take just one part of it, and start from what you do know",
              "Which part of it can you explain, even roughly?"),
         Area("plainer", re.compile("."), "Say it in your own words, however roughly",
              "What comes to mind first?"),
         Area("plainest", re.compile("."), "Let me put it more simply",
              "Where would you begin?")]
OPEN_TOPICS = {"projects", "behavioral"}


# Words that frame a hint ("think of an example") and say nothing of any answer, even where a
# point's concept lists them among its phrases ("for example", "step by step").
FRAMING = frozenset(stem(w) for w in (
    "example", "examples", "case", "step", "steps", "think", "thing", "way", "first", "next"))


def giveaway_stems(question: Question, point: AssessmentPoint) -> set[str]:
    """The point's key words (its concepts' names and phrases: what the grader listens for)
    that the question does not already say: a hint that says one says part of the answer."""
    said = {stem(w) for w in content_words(question.text)}
    material = " ".join([*(c.name for c in point.concepts),
                         *(ph for c in point.concepts for ph in c.phrases)])
    return {stem(w) for w in content_words(material) if len(w) > 2} - said - FRAMING


def gives_away(text: str, question: Question, point: AssessmentPoint) -> bool:
    return bool({stem(w) for w in content_words(text)} & giveaway_stems(question, point))


def area_of(question: Question, point: AssessmentPoint) -> Area:
    """The point's area, worded so that it says nothing of the point (else ``PLAIN``)."""
    areas = _OPEN_AREAS if question.topic.value in OPEN_TOPICS else _TECHNICAL_AREAS
    wording = f"{point.id.replace('-', ' ')} {point.text}"
    for area in areas:
        if area.pattern.search(wording):
            if not gives_away(f"{area.hint} {area.question}", question, point):
                return area
            break
    return next((a for a in PLAIN if not gives_away(f"{a.hint} {a.question}", question, point)),
                PLAIN[-1])


def derived_id(question: Question, point: AssessmentPoint) -> str:
    return f"{question.id}{DERIVED}{point.id}"


def derived_followup(question: Question, point: AssessmentPoint) -> FollowUp:
    """The smaller question about ``point`` alone, as a follow-up of ``question``."""
    return FollowUp(id=derived_id(question, point), text=area_of(question, point).question,
                    probes=[point.id])


def derived_hint(question: Question, point: AssessmentPoint) -> str:
    return area_of(question, point).hint


def followup_by_id(question: Question, followup_id: str) -> FollowUp | None:
    """An authored follow-up of ``question``, or a derived one (``derived_id``)."""
    for f in question.followups:
        if f.id == followup_id:
            return f
    prefix = question.id + DERIVED
    if followup_id.startswith(prefix):
        point_id = followup_id[len(prefix):]
        for p in question.assessment_points:
            if p.id == point_id:
                return derived_followup(question, p)
    return None


def parent_question_id(followup_id: str) -> str | None:
    """The question a derived follow-up's id belongs to (None for any other id)."""
    head, sep, _ = followup_id.partition(DERIVED)
    return head if sep else None
