"""HTTP request/response bodies (one schema per purpose)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.question_bank import Topic
from agents.state import SelfRatings


class SessionCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    candidate_id: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.@-]+$")
    role: str = Field(min_length=1, max_length=200)
    mode: Literal["voice", "text"] = "text"
    self_ratings: SelfRatings
    resume_text: str | None = Field(default=None, max_length=20_000)
    rounds: list[Literal["concepts", "coding"]] = Field(default=["concepts"], min_length=1,
                                                        max_length=2)
    max_questions: int | None = Field(default=None, ge=1, le=30)
    # The topic to work on (the progress page's suggested focus, offered by the lobby): the
    # first main question comes from it, and it is asked about twice as often as others.
    focus_topic: Topic | None = None
    # The key the first session of this candidate id returned (server/candidate_keys.py):
    # with it the session joins the candidate's progress; without it, it stands alone.
    candidate_key: str | None = Field(default=None, max_length=256)


class SessionCreated(BaseModel):
    session_id: str
    token: str
    ws_url: str
    # Whether this session is part of the candidate's progress, and the candidate key when
    # this request claimed the id (returned once: keep it to add later sessions).
    joins_progress: bool = True
    candidate_key: str | None = None


class TicketIssued(BaseModel):
    ticket: str
    expires_in_s: int


class SessionPublic(BaseModel):
    session_id: str
    candidate_id: str
    role: str
    mode: str
    phase: str
    difficulty: str
    current_question: dict[str, object] | None
    questions_asked: int
    answered: int
    max_questions: int
    scores: list[dict[str, object]]
    coding_problem_id: str | None


class ReviewOverride(BaseModel):
    model_config = ConfigDict(extra="forbid")

    overall_score: float = Field(ge=0, le=1)
    note: str = Field(min_length=1, max_length=5000)
    reviewer: str = Field(default="reviewer", max_length=100)
