"""KnowledgeAgent: the standard answer and assessment points for what was just asked.

For a bank question or a follow-up the answer is in the bank. A follow-up (authored, or the
smaller question after a hint, ``agents.hints``) probes some of its parent's points. A
free-form question (model-written) gets the closest bank question by keyword overlap; below a
similarity floor "no standard answer" is explicit.
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.grading import STOP_WORDS, PreparedAnswer, stem
from agents.hints import followup_by_id
from agents.names import answer_subject
from agents.question_bank import AssessmentPoint, Misconception, Question, QuestionBank


@dataclass(frozen=True)
class Knowledge:
    has_standard_answer: bool
    reference_answer: str | None
    points: list[AssessmentPoint]
    misconceptions: list[Misconception]
    source_question_id: str | None
    # Further acceptable reference answers (public data sets give several); the nearest counts.
    alternative_references: tuple[str, ...] = ()
    # The share of the reference answer the points stand for (a follow-up probes some of its
    # parent's points): how long a full answer to them is expected to be.
    reference_share: float = 1.0

    @classmethod
    def of(cls, question: Question) -> Knowledge:
        """What grading knows of a bank question asked as a main question."""
        return cls(True, question.reference_answer, list(question.assessment_points),
                   list(question.misconceptions), question.id)


NO_STANDARD_ANSWER = Knowledge(False, None, [], [], None)
_STOP_STEMS = {stem(w) for w in STOP_WORDS}


class KnowledgeAgent:
    def __init__(self, bank: QuestionBank):
        self.bank = bank
        self._index: dict[str, set[str]] = {}

    def for_question(self, question: Question, followup_id: str | None = None) -> Knowledge:
        if followup_id is None:
            return Knowledge.of(question)
        followup = followup_by_id(question, followup_id)
        if followup is None:
            return self.lookup(question.text)
        points = [question.point(pid) for pid in followup.probes]
        # A follow-up is graded on the points it probes, renormalised to weight 1.
        total = sum(p.weight for p in points)
        share = total / (sum(p.weight for p in question.assessment_points) or 1.0)
        points = [p.model_copy(update={"weight": p.weight / total}) for p in points]
        misc = [m for m in question.misconceptions if m.point in set(followup.probes)]
        return Knowledge(True, question.reference_answer, points, misc, question.id,
                         reference_share=min(1.0, share))

    def about(self, answer: str, exclude: str | None = None, floor: float = 0.12,
              ) -> str | None:
        """What an (off-topic) answer seems to be about: the topic, in words, of the bank
        question whose text and reference answer share the most words with it, if any shares
        enough (``agents.names.answer_subject``)."""
        target = {s for s in PreparedAnswer.of(answer).stems if s not in _STOP_STEMS}
        if not target:
            return None
        best, best_sim = None, 0.0
        for q in self.bank.questions.values():
            if q.id == exclude:
                continue
            stems = self._index.get(q.id)
            if stems is None:
                stems = {s for s in PreparedAnswer.of(q.text + " " + q.reference_answer).stems
                         if s not in _STOP_STEMS}
                self._index[q.id] = stems
            sim = len(target & stems) / max(1, len(target | stems))
            if sim > best_sim:
                best, best_sim = q, sim
        if best is None or best_sim < floor:
            return None
        asked = self.bank.questions.get(exclude or "")
        return answer_subject(best.topic.value, asked.topic.value if asked else None)

    def lookup(self, text: str, floor: float = 0.25) -> Knowledge:
        """Retrieval over the bank for a question that is not authored there."""
        target = set(PreparedAnswer.of(text).stems)
        best, best_sim = None, 0.0
        for q in self.bank.questions.values():
            stems = set(PreparedAnswer.of(q.text).stems)
            sim = len(target & stems) / max(1, len(target | stems))
            if sim > best_sim:
                best, best_sim = q, sim
        if best is None or best_sim < floor:
            return NO_STANDARD_ANSWER
        return self.for_question(best)
