"""The question bank: typed, validated data loaded from ``bank/questions/*.yaml``.

Content lives in data files, not code. Every file is validated by pydantic on load and by
``viva bank validate``; a malformed file is refused with a message that names file and field.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

# libyaml's loader is ~10x faster; same safe subset of YAML.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

DEFAULT_BANK_DIR = Path(__file__).resolve().parent.parent / "bank"

Slug = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_-]*$", max_length=80)]


class Difficulty(StrEnum):
    easy = "easy"
    medium = "medium"
    hard = "hard"

    @property
    def rank(self) -> int:
        return {"easy": 0, "medium": 1, "hard": 2}[self.value]


class Topic(StrEnum):
    data_structures = "data_structures"
    algorithms = "algorithms"
    operating_systems = "operating_systems"
    networking = "networking"
    databases = "databases"
    concurrency = "concurrency"
    system_design = "system_design"
    python = "python"
    projects = "projects"
    behavioral = "behavioral"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Concept(_Strict):
    """One key concept; any of its phrases in an answer shows it.

    ``phrases`` are lower-case words or short phrases (synonyms). Matching is on word
    boundaries after light normalisation (see ``agents.grading``).
    """

    name: str = Field(min_length=1)
    phrases: list[str] = Field(min_length=1)

    @field_validator("phrases")
    @classmethod
    def _lower(cls, v: list[str]) -> list[str]:
        return [p.strip().lower() for p in v if p.strip()]


class Misconception(_Strict):
    """A wrong claim; phrases that show it lower the point it belongs to."""

    text: str
    phrases: list[str] = Field(min_length=1)
    point: str | None = None  # assessment point id it contradicts; None = whole answer


class AssessmentPoint(_Strict):
    id: Slug
    text: str = Field(min_length=3)
    weight: float = Field(gt=0, le=1)
    concepts: list[Concept] = Field(min_length=1)
    # How many concepts must be shown for full credit (default: all, capped at 2).
    required: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _required_le_concepts(self) -> AssessmentPoint:
        if self.required is not None and self.required > len(self.concepts):
            raise ValueError(f"point {self.id}: required > number of concepts")
        return self

    @property
    def needed(self) -> int:
        return self.required if self.required is not None else min(2, len(self.concepts))


class FollowUp(_Strict):
    id: Slug
    text: str = Field(min_length=5)
    probes: list[str] = Field(min_length=1)  # assessment point ids


class FeedbackText(_Strict):
    """Authored feedback per kind (see FeedbackAgent thresholds)."""

    correction: str
    guidance: str
    comment: str


class Question(_Strict):
    id: Slug
    topic: Topic
    difficulty: Difficulty
    text: str = Field(min_length=10)
    prerequisites: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    reference_answer: str = Field(min_length=20)
    assessment_points: list[AssessmentPoint] = Field(min_length=1)
    followups: list[FollowUp] = Field(min_length=2)
    hints: list[str] = Field(min_length=1)
    forbidden_hints: list[str] = Field(default_factory=list)
    misconceptions: list[Misconception] = Field(default_factory=list)
    feedback: FeedbackText
    warmup: bool = False  # suitable as an opening, low-stakes question

    @model_validator(mode="after")
    def _consistent(self) -> Question:
        ids = [p.id for p in self.assessment_points]
        if len(set(ids)) != len(ids):
            raise ValueError(f"question {self.id}: duplicate assessment point ids")
        total = sum(p.weight for p in self.assessment_points)
        if not 0.99 <= total <= 1.01:
            raise ValueError(f"question {self.id}: point weights sum to {total:.2f}, not 1.0")
        for f in self.followups:
            unknown = set(f.probes) - set(ids)
            if unknown:
                raise ValueError(f"question {self.id}: follow-up {f.id} probes unknown {unknown}")
        for m in self.misconceptions:
            if m.point is not None and m.point not in ids:
                raise ValueError(f"question {self.id}: misconception names unknown point")
        return self

    @property
    def key_terms(self) -> list[str]:
        """The concepts' names, point by point: what the recognizer is told to expect."""
        return [c.name for p in self.assessment_points for c in p.concepts]

    def point(self, point_id: str) -> AssessmentPoint:
        for p in self.assessment_points:
            if p.id == point_id:
                return p
        raise KeyError(point_id)


class QuestionFile(_Strict):
    questions: list[Question] = Field(min_length=1)


class BankError(Exception):
    """A bank file is missing or invalid; the message names the file and the problem."""


class QuestionBank:
    """All questions, indexed by id and topic."""

    def __init__(self, questions: Iterable[Question]):
        self.questions: dict[str, Question] = {}
        for q in questions:
            if q.id in self.questions:
                raise BankError(f"duplicate question id {q.id!r}")
            self.questions[q.id] = q

    def __len__(self) -> int:
        return len(self.questions)

    def get(self, question_id: str) -> Question:
        try:
            return self.questions[question_id]
        except KeyError:
            raise BankError(f"unknown question id {question_id!r}") from None

    def by_topic(self, topic: Topic) -> list[Question]:
        return [q for q in self.questions.values() if q.topic == topic]

    @property
    def topics(self) -> set[Topic]:
        return {q.topic for q in self.questions.values()}


def load_question_file(path: Path) -> list[Question]:
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
    except (OSError, yaml.YAMLError) as exc:
        raise BankError(f"{path}: cannot read YAML: {exc}") from exc
    try:
        return QuestionFile.model_validate(raw).questions
    except ValidationError as exc:
        raise BankError(f"{path}: invalid question file:\n{exc}") from exc


def load_question_bank(bank_dir: Path = DEFAULT_BANK_DIR) -> QuestionBank:
    qdir = bank_dir / "questions"
    files = sorted(qdir.glob("*.yaml"))
    if not files:
        raise BankError(f"no question files in {qdir}")
    questions: list[Question] = []
    for f in files:
        questions.extend(load_question_file(f))
    return QuestionBank(questions)


