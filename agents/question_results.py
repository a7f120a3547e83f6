"""The report question by question, as a person reads it: what was asked, the candidate's
answer quoted once (with where it begins in the recording), the points covered and missed as
sentences, one concrete next step, and, once the interview is over, the bank's model answer.

Built in code from the state and the bank. ``answer_t_ms`` is placed by the server, which
has the recordings (``server.recording.place_answers``); until then it is the moment the
answer was taken.
"""

from __future__ import annotations

from pydantic import BaseModel

from agents.feedback import inline_sentence
from agents.names import topic_name
from agents.question_bank import QuestionBank
from agents.state import InterviewState, Phase, Turn

SHOWN_AT = 0.7  # a point shown well
# While the interview goes on, what was missed (the bank's points) is not told yet.
LIVE_NEXT_STEP = ("The points you missed, a next step and the model answer come with the "
                  "report once the interview has ended.")
PARTLY_AT = 0.5  # shown in part; below: missed


class Exchange(BaseModel):
    """One question asked (the main one or a follow-up) and the answer to it."""

    turn_id: str
    follow_up: bool
    question: str
    answer: str | None
    answer_t_ms: int | None  # where the answer begins on the session clock
    score: float | None


class QuestionResult(BaseModel):
    question_id: str
    question: str
    topic: str  # the topic's human name
    score: float | None  # mean over its exchanges
    exchanges: list[Exchange]
    covered: list[str]  # sentences
    missed: list[str]  # sentences
    next_step: str
    # Only once the interview has ended (``missed`` too): never shown to a live candidate.
    reference_answer: str | None = None
    missed_points: list[str] = []


def _point_lines(turns: list[Turn]) -> tuple[list[str], list[str], list[tuple[float, str]]]:
    """Covered and missed sentences over a question's turns (the best coverage of each point
    counts), and the missed points' text with their weight, heaviest first."""
    best: dict[str, tuple[float, float, str, list[str]]] = {}
    for t in turns:
        for p in t.points:
            cur = best.get(p.point_id)
            if cur is None or p.coverage > cur[0] or (p.misconceptions and not cur[3]):
                best[p.point_id] = (p.coverage, p.weight, p.text, p.misconceptions)
    covered, missed, gaps = [], [], []
    for coverage, weight, text, wrong in best.values():
        point = inline_sentence(text)
        if wrong:
            missed.append(f"You said that {inline_sentence(wrong[0])}, which is not right.")
            gaps.append((weight, text))
        elif coverage >= SHOWN_AT:
            covered.append(f"You covered: {point}.")
        elif coverage >= PARTLY_AT:
            covered.append(f"You partly covered: {point}; say it in full.")
            gaps.append((weight / 2, text))
        else:
            missed.append(f"You did not cover: {point}.")
            gaps.append((weight, text))
    gaps.sort(key=lambda g: -g[0])
    return covered, missed, gaps


def _next_step(question: str, gaps: list[tuple[float, str]], hint: str | None,
               answered: bool) -> str:
    if not answered:
        return (f"Answer “{question}” out loud in two or three sentences, even if unsure: "
                "a partial answer earns credit and shows what to learn next.")
    if not gaps:
        return ("Keep this answer; next time add a concrete example from your own work, "
                "with a number (a size, a time) to make it stick.")
    point = gaps[0][1].strip().rstrip(".")
    step = (f"Study the point that weighs most here, “{point}”, then answer “{question}” "
            "again out loud and cover it.")
    return step + (f" A way in: {hint}" if hint else "")


def question_results(state: InterviewState, bank: QuestionBank | None = None,
                     ) -> list[QuestionResult]:
    """One entry per bank question asked (its follow-ups with it), in the order asked."""
    groups: dict[str, list[Turn]] = {}
    for t in state.turns:
        if t.phase == Phase.coding:
            continue
        groups.setdefault(t.question_id, []).append(t)
    ended = state.phase == Phase.ended
    out = []
    for question_id, turns in groups.items():
        main = next((t for t in turns if t.followup_id is None), turns[0])
        question = bank.questions.get(question_id) if bank is not None else None
        covered, missed, gaps = _point_lines(turns)
        scores = [t.score for t in turns if t.score is not None]
        answered = any(t.answer and not t.dont_know for t in turns)
        hint = question.hints[0] if question is not None and question.hints else None
        out.append(QuestionResult(
            question_id=question_id, question=main.text, topic=topic_name(main.topic),
            score=round(sum(scores) / len(scores), 3) if scores else None,
            exchanges=[Exchange(turn_id=t.turn_id, follow_up=t.followup_id is not None,
                                question=t.text, answer=t.answer,
                                answer_t_ms=t.answered_t_ms, score=t.score)
                       for t in turns],
            covered=covered, missed=missed if ended else [],
            next_step=_next_step(main.text, gaps, hint, answered) if ended else LIVE_NEXT_STEP,
            reference_answer=question.reference_answer if ended and question else None,
            missed_points=[text for _, text in gaps] if ended else []))
    return out
