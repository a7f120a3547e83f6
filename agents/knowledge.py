"""KnowledgeAgent: the standard answer and assessment points for what was just asked.

For a bank question or an authored follow-up the answer is in the bank. A follow-up probes
some of its parent's points. A free-form question (model-written) gets the closest bank
question by keyword overlap; below a similarity floor "no standard answer" is explicit.
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.grading import PreparedAnswer
from agents.question_bank import AssessmentPoint, Misconception, Question, QuestionBank


@dataclass(frozen=True)
class Knowledge:
    has_standard_answer: bool
    reference_answer: str | None
    points: list[AssessmentPoint]
    misconceptions: list[Misconception]
    source_question_id: str | None


NO_STANDARD_ANSWER = Knowledge(False, None, [], [], None)


class KnowledgeAgent:
    def __init__(self, bank: QuestionBank):
        self.bank = bank

    def for_question(self, question: Question, followup_id: str | None = None) -> Knowledge:
        if followup_id is None:
            return Knowledge(True, question.reference_answer, list(question.assessment_points),
                             list(question.misconceptions), question.id)
        followup = next((f for f in question.followups if f.id == followup_id), None)
        if followup is None:
            return self.lookup(question.text)
        points = [question.point(pid) for pid in followup.probes]
        # A follow-up is graded on the points it probes, renormalised to weight 1.
        total = sum(p.weight for p in points)
        points = [p.model_copy(update={"weight": p.weight / total}) for p in points]
        misc = [m for m in question.misconceptions if m.point in set(followup.probes)]
        return Knowledge(True, question.reference_answer, points, misc, question.id)

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
