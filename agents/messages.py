"""Typed messages agents exchange (and the schemas model providers must fill)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from agents.grading import PointResult, Reason

FeedbackKind = Literal["correction", "guidance", "comment"]


class Evaluation(BaseModel):
    score: float = Field(ge=0, le=1)
    has_standard_answer: bool
    points: list[PointResult] = []  # one grade per assessment point
    misconceptions: list[str] = []
    reason: Reason = Reason.none  # why the score is what it is beyond its points
    model_score: float | None = None  # what a model voter said, when a model is configured
    model_late: bool = False  # the model missed its deadline; the grader's score stands
    voters_disagree: bool = False
    off_topic: bool = False  # the answer is not about this question (relevance gate)
    relevance: float | None = None  # the semantic grader's best match, when it ran
    answer_about: str | None = None  # what an off-topic answer seems to be about, if known
    rubric_only: bool = False  # graded by the rubric's phrases alone (no semantic grader)


class Feedback(BaseModel):
    kind: FeedbackKind
    text: str
    evidence: str
    suggestion: str
    judgement: str
    source: Literal["bank", "model"] = "bank"


class ModelPointJudgement(BaseModel):
    """What a model is asked to return when it grades an answer."""

    point_id: str
    covered: float = Field(ge=0, le=1)
    # The candidate's words that show it; must appear in the answer. Bounded so a
    # grammar-constrained small model cannot ramble inside a string.
    quote: str = Field(default="", max_length=160)


class ModelEvaluation(BaseModel):
    points: list[ModelPointJudgement] = Field(max_length=12)


class ModelFeedback(BaseModel):
    evidence: str = Field(max_length=300)
    suggestion: str = Field(max_length=300)
    judgement: str = Field(max_length=160)


class ModelVote(BaseModel):
    ok: bool
    reason: str = Field(default="", max_length=200)
