"""FeedbackAgent: what to say about an answer, in the order evidence → suggestion → judgement.

The kind is decided in code from the score: < 0.3 correction, < 0.6 guidance, else comment;
a first "I don't know" on a question gets a hint (a smaller sub-question follows): guidance.
The bank wording is built from the point's authored text and the candidate's own words
(quoted verbatim), never from concept names or ids. An off-topic answer is named as such.
A model may reword it (reviewed; checked against the question's own material; bounded by a
deadline); the bank wording is the fallback and is what a late model leaves in place.
"""

from __future__ import annotations

import asyncio
import json
import re

from agents.fluency import FUNCTION_WORDS, words
from agents.grading import PointResult, Reason, content_words, stem
from agents.messages import Evaluation, Feedback, FeedbackKind, ModelFeedback
from agents.providers.base import LanguageProvider, ProviderError
from agents.question_bank import Question, QuestionBank
from agents.review import ReviewResult, reviewed
from agents.turn_budget import MIN_MODEL_CALL_S, model_deadline

CORRECTION_BELOW = 0.3
GUIDANCE_BELOW = 0.6
FEEDBACK_DEADLINE_S = 0.9  # model wording, at most (and no more than the turn has left)
GROUNDED_SHARE = 0.6  # share of a model's content words that must come from the question
# A bare list of the right terms: the authored guidance ("You have some of the letters")
# would not be true of it; this is.
NAMED_NOT_EXPLAINED = ("You named the terms, but a list does not explain them. Say what each "
                       "one means, and why it matters here.")
NOT_A_SENTENCE = "I could not follow that as a sentence: can you say it in your own words?"
NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
# Words any feedback uses; they state no fact about the topic.
_FEEDBACK_WORDS = {stem(w) for w in (
    "said say says saying answer answered mention mentioned explain explained think consider "
    "little more again part parts point points good right wrong correct incorrect missing "
    "partly clear clearly well also next time review idea ideas example examples covered "
    "cover question start detail details try trying work needs need heard hear").split()}


def feedback_kind(score: float) -> FeedbackKind:
    if score < CORRECTION_BELOW:
        return "correction"
    if score < GUIDANCE_BELOW:
        return "guidance"
    return "comment"


def inline_sentence(text: str) -> str:
    """A point's sentence, to go inside another sentence ("that shows a hash function ...");
    an acronym or a code name at the start keeps its case."""
    text = text.strip().rstrip(".")
    first = text.split(" ", 1)[0]
    if len(first) > 1 and (first.isupper() or not first[1:].islower()):
        return text
    return text[:1].lower() + text[1:]


def closed(text: str) -> str:
    """A sentence with its own end: a hint that asks ("... are you looking for?") keeps its
    question mark instead of gaining a full stop after it."""
    text = text.strip()
    return text if text.endswith((".", "?", "!")) else f"{text}."


def covers(quote: str, shows: list[str]) -> str:
    """The frame that says what the candidate's quoted words earned: each point's text goes
    in as ``inline_sentence`` makes it, two of them joined by "; and"."""
    return f"You said “{quote}”, which covers this: {'; and '.join(shows)}."


# A point's text that ends in one of these stops mid-phrase inside the frame (a preposition
# may end a clause: "who it was for").
_JOINING_WORDS = frozenset("""
a an the and or but nor of as such than via per plus versus vs e.g i.e its their whose
because whether
""".split())
_SEAMS = ("..", " .", ",.", ";.", ":.", "?.", "!.", " ,", "  ")
_DOUBLED_WORD = re.compile(r"\b(\w+)\s+\1\b", re.IGNORECASE)


def point_text_problem(text: str) -> str | None:
    """Why a point's text would not read as a clause in the ``covers`` frame, else None: it
    ends in a fragment ("... in a hash set or"), its brackets do not close, or it is a bare
    list of terms ("relational, schema, joins, SQL": no word says how they relate)."""
    body = text.strip().rstrip(".").rstrip()  # the frame's full stop stands for its own
    if not body:
        return "it is empty"
    if body.count("(") != body.count(")"):
        return "its brackets do not close"
    if body[-1] in ",;:-–—…/&+=(":
        return f"it ends in “{body[-1]}”, a fragment"
    if body[-1] in "?!":
        return f"it ends in “{body[-1]}”: the frame ends it with a full stop"
    last = body.split()[-1].lower().rstrip(".")
    if last in _JOINING_WORDS:
        return f"it ends in “{last}”, a fragment"
    outside = re.sub(r"\([^()]*\)", " ", body)  # a list in brackets is an example
    terms = [t for t in re.split(r"[,;]", outside) if t.strip()]
    if len(terms) >= 3 and not any(w in FUNCTION_WORDS for w in words(outside)):
        return ("it is a bare list of terms: say how they relate, with a verb or joining "
                "words (“with”, “and”, “of”)")
    said = covers("…", [inline_sentence(text)])
    if any(seam in said for seam in _SEAMS) or _DOUBLED_WORD.search(said):
        return f"it does not read in the frame: {said}"
    return None


def frame_errors(bank: QuestionBank) -> list[str]:
    """Every assessment point of ``bank`` whose text does not read as a clause in the
    feedback frame (``viva bank validate``), naming the question and the point."""
    errors = []
    for q in bank.questions.values():
        for p in q.assessment_points:
            problem = point_text_problem(p.text)
            if problem is not None:
                errors.append(f"question {q.id}, point {p.id}: “{p.text}” does not read as a "
                              f"clause in the feedback frame (“which covers this: …”): "
                              f"{problem}")
    return errors


def _quote(p: PointResult) -> str | None:
    return p.evidence[0].strip().rstrip(".,;") if p.evidence else None


def _said(evaluation: Evaluation, kind: FeedbackKind) -> str:
    """Evidence: the candidate's words that earned credit, and what the answer left out."""
    points = evaluation.points
    covered = sorted((p for p in points if p.coverage >= 0.5 and _quote(p)),
                     key=lambda p: -p.weight)
    parts: list[str] = []
    if evaluation.misconceptions:
        parts.append(f"You said that {inline_sentence(evaluation.misconceptions[0])}, "
                     "which is not right.")
    by_quote: dict[str, list[str]] = {}
    for p in covered[:2]:
        by_quote.setdefault(str(_quote(p)), []).append(inline_sentence(p.text))
    for quote, shows in by_quote.items():
        # A point's text may be a sentence or a fragment ("avoids a full table scan"): this
        # frame reads right with either; ``viva bank validate`` refuses one it would not
        # (``point_text_problem``).
        parts.append(covers(quote, shows))
    # Points the model recognised but credited little because the answer is brief against the
    # reference (``Calibration.depth``): say so rather than "I did not hear the main ideas".
    named = [p for p in points
             if p.coverage < 0.5 <= (p.semantic or 0.0) and _quote(p)]
    if named and not covered:
        parts.append(f"You said “{_quote(named[0])}”: that is the right subject, but it names "
                     "the ideas more than it explains them.")
    n_missing = sum(p.coverage < 0.5 for p in points)
    if kind != "comment" and n_missing and len(points) > 1:
        shown = len(points) - n_missing
        if shown:
            parts.append(f"That covers {NUMBER_WORDS.get(shown, str(shown))} of the "
                         f"{NUMBER_WORDS.get(len(points), str(len(points)))} parts I was "
                         "listening for.")
    if not parts:
        parts.append("I did not hear the main ideas of this question in that answer."
                     if kind != "comment" else "You answered what I asked.")
    return " ".join(parts)


def bank_feedback(question: Question, evaluation: Evaluation, *,
                  hint: str | None = None) -> Feedback:
    """Feedback from the bank's authored text and the candidate's quoted words."""
    kind = feedback_kind(evaluation.score)
    if evaluation.off_topic:
        evidence = (f"That answer is about {evaluation.answer_about}, not what I asked."
                    if evaluation.answer_about else
                    "That answer does not seem to be about what I asked.")
        suggestion = f"The question was: {question.text}"
        judgement = "So I cannot give it credit yet."
        kind = "correction"
    elif evaluation.reason is Reason.word_salad:
        # Words in no order: nothing to quote and nothing to correct yet, only to ask again.
        evidence, suggestion, judgement = NOT_A_SENTENCE, "", ""
        kind = "correction"
    elif evaluation.reason is Reason.dont_know and hint is not None:
        # The first "I don't know" on a question: a hint and a smaller question, never the
        # answer (``Orchestrator.hint_plan``).
        kind = "guidance"
        evidence = "You said you are not sure, and that is fine."
        suggestion = f"Here is a hint: {closed(hint)}"
        judgement = "Let me ask about a smaller part of it."
    elif evaluation.reason is Reason.keyword_list:  # agents.evaluate caps such an answer
        evidence, suggestion = _said(evaluation, kind), NAMED_NOT_EXPLAINED
        judgement = "You are partly there." if kind != "correction" else "This one needs more work."
    elif evaluation.reason is Reason.dont_know:
        evidence = "You said you did not know this one."
        suggestion = question.feedback.correction
        judgement = "It is worth reviewing before your next interview."
    else:
        evidence = _said(evaluation, kind)
        if kind == "correction":
            suggestion, judgement = question.feedback.correction, "This one needs more work."
        elif kind == "guidance":
            suggestion, judgement = question.feedback.guidance, "You are partly there."
        else:
            suggestion, judgement = "", question.feedback.comment
    text = " ".join(s for s in (evidence, suggestion, judgement) if s)
    return Feedback(kind=kind, text=text, evidence=evidence, suggestion=suggestion,
                    judgement=judgement, source="bank")


def grounded(text: str, question: Question, answer: str) -> bool:
    """Most content words of a model's feedback come from the question's own material
    (question, points, reference answer, authored feedback, hints) or the candidate's
    answer: a model that brings in new facts ("use a hash table") is not spoken."""
    material = " ".join([question.text, question.reference_answer, answer,
                         question.feedback.correction, question.feedback.guidance,
                         question.feedback.comment, *question.hints,
                         *(p.text for p in question.assessment_points),
                         *(c.name + " " + " ".join(c.phrases)
                           for p in question.assessment_points for c in p.concepts)])
    known = {stem(w) for w in content_words(material)} | _FEEDBACK_WORDS
    words = [stem(w) for w in content_words(text) if len(w) > 3]
    if not words:
        return True
    return sum(w in known for w in words) / len(words) >= GROUNDED_SHARE


_SYSTEM = (
    "You are a calm, precise technical interviewer giving spoken feedback (under 60 words). "
    "Return JSON with evidence (what the candidate said or missed), suggestion (what to "
    "consider), judgement (one short sentence). Use only facts from the points given. "
    "Never reveal forbidden hints. "
)


class FeedbackAgent:
    def __init__(self, provider: LanguageProvider, *,
                 deadline_s: float = FEEDBACK_DEADLINE_S):
        self.provider = provider
        self.deadline_s = deadline_s

    async def feedback(self, question: Question, evaluation: Evaluation, *,
                       answer: str = "", hint: str | None = None,
                       budget_ends_s: float | None = None,
                       ) -> tuple[Feedback, list[ReviewResult]]:
        """The feedback for ``evaluation``: a model's wording when one answers in time and
        passes review, else the bank's. The model gets no more than the turn's budget has
        left (``budget_ends_s``: see ``agents.turn_budget``)."""
        fallback = bank_feedback(question, evaluation, hint=hint)
        kind = fallback.kind
        deadline = model_deadline(self.deadline_s, budget_ends_s)
        if (not self.provider.has_model or evaluation.off_topic
                or evaluation.reason in (Reason.dont_know, Reason.word_salad)
                or deadline < MIN_MODEL_CALL_S):
            # Nothing for a model to add: the bank wording says it exactly.
            return fallback, []

        async def produce(reasons: list[str]) -> Feedback:
            user = json.dumps({
                "question": question.text, "feedback_kind": kind, "score": evaluation.score,
                "points": [{"text": p.text, "coverage": p.coverage,
                            "candidate_words": p.evidence}
                           for p in evaluation.points],
                "misconceptions": evaluation.misconceptions,
                "never_say": question.forbidden_hints,
                "previous_attempt_problems": reasons,
            })
            m = await self.provider.complete_json(_SYSTEM, user, ModelFeedback)
            text = " ".join(s.strip() for s in (m.evidence, m.suggestion, m.judgement) if s)
            if not grounded(text, question, answer):
                raise ProviderError("feedback states things that are not in the question's "
                                    "points or the candidate's answer", retryable=True)
            return Feedback(kind=kind, text=text, evidence=m.evidence.strip(),
                            suggestion=m.suggestion.strip(), judgement=m.judgement.strip(),
                            source="model")

        try:
            return await asyncio.wait_for(
                reviewed(produce, fallback, forbidden=question.forbidden_hints,
                         question=question.text, provider=self.provider), deadline)
        except TimeoutError:
            return fallback, []
