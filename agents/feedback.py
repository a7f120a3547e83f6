"""FeedbackAgent: what to say about an answer, in the order evidence → suggestion → judgement.

The kind is decided in code from the score: < 0.3 correction, < 0.6 guidance, else comment.
Wording comes from the bank (rubric) or a model (reviewed; bank text is the fallback).
"""

from __future__ import annotations

import json

from agents.messages import Evaluation, Feedback, FeedbackKind, ModelFeedback
from agents.providers.base import LanguageProvider
from agents.question_bank import Question
from agents.review import ReviewResult, reviewed

CORRECTION_BELOW = 0.3
GUIDANCE_BELOW = 0.6


def feedback_kind(score: float) -> FeedbackKind:
    if score < CORRECTION_BELOW:
        return "correction"
    if score < GUIDANCE_BELOW:
        return "guidance"
    return "comment"


def _point_label(point: dict[str, object]) -> str:
    text = str(point.get("text", "")).rstrip(".")
    return text[:1].lower() + text[1:]


def _evidence(evaluation: Evaluation, kind: FeedbackKind) -> str:
    covered = [p for p in evaluation.points if float(str(p["coverage"])) >= 0.5]
    missing = [p for p in evaluation.points if float(str(p["coverage"])) < 0.5]
    parts: list[str] = []
    if evaluation.misconceptions:
        parts.append(f"You said that {evaluation.misconceptions[0]}, which is not right.")
    if covered:
        parts.append("You covered " + "; and ".join(_point_label(p) for p in covered[:2]) + ".")
    if missing and kind != "comment":
        # Name what is missing by its concept, never by the full point (that would be the answer).
        names: list[str] = []
        for p in missing[:2]:
            concepts = p.get("concepts_missing") or []
            names.append(str(concepts[0]) if isinstance(concepts, list) and concepts
                         else str(p["point_id"]).replace("-", " "))
        parts.append("I did not hear much about " + " or ".join(names) + ".")
    if not parts:
        parts.append("Your answer did not address the question yet." if kind != "comment"
                     else "Your answer addressed the question.")
    return " ".join(parts)


def bank_feedback(question: Question, evaluation: Evaluation) -> Feedback:
    kind = feedback_kind(evaluation.score)
    evidence = _evidence(evaluation, kind)
    if kind == "correction":
        suggestion, judgement = question.feedback.correction, "This one needs more work."
    elif kind == "guidance":
        suggestion, judgement = question.feedback.guidance, "You are partly there."
    else:
        suggestion, judgement = "", question.feedback.comment
    text = " ".join(s for s in (evidence, suggestion, judgement) if s)
    return Feedback(kind=kind, text=text, evidence=evidence, suggestion=suggestion,
                    judgement=judgement, source="bank")


_SYSTEM = (
    "You are a calm, precise technical interviewer giving spoken feedback (under 60 words). "
    "Return JSON with evidence (what the candidate said or missed), suggestion (what to "
    "consider), judgement (one short sentence). Never reveal forbidden hints. "
)


class FeedbackAgent:
    def __init__(self, provider: LanguageProvider):
        self.provider = provider

    async def feedback(self, question: Question, evaluation: Evaluation,
                       ) -> tuple[Feedback, list[ReviewResult]]:
        fallback = bank_feedback(question, evaluation)
        kind = fallback.kind

        async def produce(reasons: list[str]) -> Feedback:
            if not self.provider.has_model:
                return fallback
            user = json.dumps({
                "question": question.text, "feedback_kind": kind, "score": evaluation.score,
                "points": [{"text": p["text"], "coverage": p["coverage"]}
                           for p in evaluation.points],
                "misconceptions": evaluation.misconceptions,
                "never_say": question.forbidden_hints,
                "previous_attempt_problems": reasons,
            })
            m = await self.provider.complete_json(_SYSTEM, user, ModelFeedback)
            text = " ".join(s.strip() for s in (m.evidence, m.suggestion, m.judgement) if s)
            return Feedback(kind=kind, text=text, evidence=m.evidence.strip(),
                            suggestion=m.suggestion.strip(), judgement=m.judgement.strip(),
                            source="model")

        return await reviewed(produce, fallback, forbidden=question.forbidden_hints,
                              question=question.text, provider=self.provider)
