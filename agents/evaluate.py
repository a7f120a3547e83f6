"""EvaluateAgent: how well an answer covers the assessment points, score 0..1.

The rubric grade (code) is always computed. With a model configured, the model also judges
each point and must quote the candidate's words; a quote that is not in the answer voids
that point's judgement. The two are averaged; a large gap flags the turn for a human.
"""

from __future__ import annotations

import json

from agents.grading import PreparedAnswer, derive_points, grade
from agents.knowledge import Knowledge
from agents.messages import Evaluation, ModelEvaluation
from agents.providers.base import LanguageProvider, ProviderError

_SYSTEM = (
    "You grade a job candidate's spoken answer against assessment points. For each point "
    "return covered (0..1) and a short exact quote of the candidate's words that shows it "
    "(empty if none). Do not invent quotes. Reply with JSON only."
)
DISAGREEMENT = 0.4


class EvaluateAgent:
    def __init__(self, provider: LanguageProvider):
        self.provider = provider

    async def evaluate(self, question_text: str, answer: str, knowledge: Knowledge,
                       ) -> Evaluation:
        points = knowledge.points
        if not knowledge.has_standard_answer:
            # No standard answer: grade against the question's own terms, and say so.
            points = derive_points(question_text)
        g = grade(answer, points, knowledge.misconceptions)
        point_dicts: list[dict[str, object]] = [
            {"point_id": p.point_id, "text": p.text, "weight": p.weight,
             "coverage": p.coverage, "evidence": p.evidence, "misconceptions": p.misconceptions,
             "concepts_missing": p.concepts_missing}
            for p in g.points]
        evaluation = Evaluation(score=g.score, has_standard_answer=knowledge.has_standard_answer,
                                points=point_dicts, misconceptions=g.misconceptions,
                                reason=g.reason)
        if self.provider.has_model and g.reason == "":
            model_score = await self._model_score(question_text, answer, g.points)
            if model_score is not None:
                evaluation.model_score = model_score
                evaluation.voters_disagree = abs(model_score - g.score) > DISAGREEMENT
                evaluation.score = round((g.score + model_score) / 2, 3)
        return evaluation

    async def _model_score(self, question_text: str, answer: str, points: list) -> float | None:
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
