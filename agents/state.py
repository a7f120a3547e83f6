"""The interview state: one pydantic document per session, held in Redis (versioned).

Agents read small slices of it; the orchestrator decides transitions in code. Full history
stays here (and in the event stream), never in a prompt.
"""

from __future__ import annotations

import time
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from agents.question_bank import Difficulty


class Phase(StrEnum):
    init = "init"
    warmup = "warmup"
    initial = "initial"
    followup = "followup"
    coding = "coding"
    final_feedback = "final_feedback"
    ended = "ended"


class SelfRatings(BaseModel):
    algorithms: int = Field(ge=1, le=5)
    engineering: int = Field(ge=1, le=5)
    projects: int = Field(ge=1, le=5)

    @property
    def total(self) -> int:
        return self.algorithms + self.engineering + self.projects


class SessionConfig(BaseModel):
    candidate_id: str
    role: str
    mode: Literal["voice", "text"]
    self_ratings: SelfRatings
    resume_text: str | None = None
    rounds: list[Literal["concepts", "coding"]] = ["concepts"]
    max_questions: int = 8
    # A practice session ("try this one again"): the one question it asks again, and the
    # session of the first attempt (which stays as it was).
    practice_question_id: str | None = None
    practice_of: str | None = None
    focus_topic: str | None = None  # asked first and twice as often (the lobby's focus)
    # Part of the candidate's progress (server/candidate_keys.py): reads and adds to their
    # weak-point profile. False: a session under the same name that stands alone.
    joins_profile: bool = True


class PointScore(BaseModel):
    point_id: str
    text: str
    weight: float
    coverage: float
    evidence: list[str] = []  # excerpts of the candidate's words
    misconceptions: list[str] = []


class Turn(BaseModel):
    """One question and the candidate's answer to it, with its evaluation."""

    turn_id: str
    question_id: str  # bank question id (follow-ups: the parent's id)
    followup_id: str | None = None
    phase: Phase
    text: str  # what the interviewer asked
    topic: str
    difficulty: Difficulty
    asked_t_ms: int
    answer: str | None = None
    answered_t_ms: int | None = None
    answer_seq: int | None = None  # seq of the transcript_final event that carries it
    score: float | None = None
    points: list[PointScore] = []
    feedback_kind: str | None = None
    feedback_text: str | None = None
    dont_know: bool = False  # the candidate said they do not know (a hint may come first)
    # After a first "I don't know" on this question: the smaller question the hint leads to
    # (a follow-up id, authored or ``agents.hints.derived_id``). One hint per question.
    hint_next: str | None = None
    reviewer_flags: list[str] = []
    transcript_confidence: float | None = None  # spoken answers: the recogniser's, 0..1


class CodingTalk(BaseModel):
    """Where the coding round's conversation is (agents/coding_round.py): solving, then the
    complexity talk after an accepted submit, then done (the interviewer wraps up)."""

    stage: Literal["solving", "complexity", "explain", "done"] = "solving"
    heard: int = 0  # characters of the coding turn's answer already responded to
    accepted_submission: str | None = None
    log_factor: bool = False  # the accepted code sorts, uses a heap/tree or halves
    claim: str | None = None  # the candidate's words about the time complexity
    claimed: str | None = None  # ... as a class (agents.complexity)
    asked_again: bool = False
    measured: dict[str, object] | None = None  # exponent, ratio, class, points
    reference: str | None = None  # the reference solution's class (the bank's)
    complexity_score: float | None = None
    hints_used: int = 0
    hint_t_ms: list[int] = []
    points: dict[str, float] = {}  # assessment point id -> best coverage of the talk
    # ... and where the talk showed it: {"quote": the candidate's clause, "t_ms": when}
    point_quotes: dict[str, dict[str, object]] = {}
    followed_up: list[str] = []  # point ids the interviewer asked about
    last_activity_ms: int = 0  # the candidate's last talk or edit (the hint clock)


class AmendPoint(BaseModel):
    """What is needed to take back the evaluation of the last answer when the candidate turns
    out not to have finished it (a false end of turn): the state before that evaluation, and
    the seq after which its events were recorded."""

    turn_id: str
    before: str  # InterviewState JSON (without its own amend point)
    after_seq: int


class InterviewState(BaseModel):
    session_id: str
    config: SessionConfig
    phase: Phase = Phase.init
    created_at: float = Field(default_factory=time.time)
    started_at: float | None = None
    difficulty: Difficulty = Difficulty.medium
    topic_plan: list[str] = []  # topics in preferred order (resume + weak points steer it)
    skills: list[str] = []  # from the resume
    weak_points: list[str] = []  # carried in from earlier sessions: "<qid>/<point>" keys
    turns: list[Turn] = []
    current_turn_id: str | None = None
    followup_depth: int = 0
    series_topic: str | None = None
    low_streak: int = 0
    asked_question_ids: list[str] = []
    summaries: list[str] = []  # rolling summary every 5 rounds
    ability: dict[str, float] = {}  # topic -> smoothed score in this session
    coding_problem_id: str | None = None
    coding_attempts: list[dict[str, object]] = []  # {submission_id, kind, verdict, passed, total}
    # The coding problem's public text (title, statement, input format) the code questions read.
    coding_problem: dict[str, str] = {}
    coding_talk: CodingTalk = Field(default_factory=CodingTalk)
    # The problem's hint ladder (nudge first). Server-side only: the candidate hears a hint
    # when it is given (agents/coding_round.py), never the rest.
    coding_hints: list[str] = []
    # The problem's assessment points [{id, text}]: server-side, like the hints; the talk is
    # graded against them (agents/approach.py) and only their coverage is ever shown.
    coding_points: list[dict[str, str]] = []
    origin_ms: int = 0  # wall-clock ms of the session's first event: t_ms = now - origin
    ended_reason: str | None = None
    amend_point: AmendPoint | None = None  # the last evaluation, while it may be amended
    # The answer that ended the last turn may go on (its end was doubtful): the move into
    # the coding round or the end waits for ``InterviewEngine.advance``.
    advance_held: bool = False

    @property
    def current_turn(self) -> Turn | None:
        for t in reversed(self.turns):
            if t.turn_id == self.current_turn_id:
                return t
        return None

    @property
    def answered(self) -> list[Turn]:
        return [t for t in self.turns if t.score is not None]

    @property
    def main_questions_asked(self) -> int:
        return sum(1 for t in self.turns if t.followup_id is None and t.phase != Phase.coding)
