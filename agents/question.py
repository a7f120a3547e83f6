"""QuestionAgent: which question to ask next, as code.

Phases: warmup (one easy opener), initial (main questions), followup (authored follow-ups
of the current question). It never asks the same question twice, nor one that is logically
the same as one already asked (high word overlap after normalisation).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from agents.grading import PreparedAnswer
from agents.question_bank import Difficulty, FollowUp, Question, QuestionBank, Topic
from agents.state import InterviewState, Phase

DUPLICATE_OVERLAP = 0.6


@functools.lru_cache(maxsize=4096)
def _stems(text: str) -> frozenset[str]:
    return frozenset(s for s in PreparedAnswer.of(text).stems if len(s) > 2)


def is_duplicate(text: str, asked: list[str]) -> bool:
    """Logically repeated: most content words shared with a question already asked."""
    a = _stems(text)
    for other in asked:
        b = _stems(other)
        if a and b and len(a & b) / min(len(a), len(b)) >= DUPLICATE_OVERLAP:
            return True
    return False


@dataclass(frozen=True)
class Pick:
    question: Question
    followup: FollowUp | None
    phase: Phase

    @property
    def text(self) -> str:
        return self.followup.text if self.followup else self.question.text


class QuestionAgent:
    def __init__(self, bank: QuestionBank):
        self.bank = bank

    def _asked_texts(self, state: InterviewState) -> list[str]:
        return [t.text for t in state.turns]

    def _eligible(self, state: InterviewState, topic: str, difficulty: Difficulty | None,
                  warmup: bool = False) -> list[Question]:
        asked = self._asked_texts(state)
        out = []
        for q in self.bank.by_topic(Topic(topic)):
            if q.id in state.asked_question_ids or (warmup and not q.warmup):
                continue
            if difficulty is not None and q.difficulty != difficulty:
                continue
            if is_duplicate(q.text, asked):
                continue
            out.append(q)
        return out

    def warmup(self, state: InterviewState) -> Pick | None:
        for topic in state.topic_plan:
            choices = self._eligible(state, topic, None, warmup=True)
            if choices:
                return Pick(choices[_index(state, len(choices))], None, Phase.warmup)
        return None

    def next_main(self, state: InterviewState, *, avoid_topic: str | None = None) -> Pick | None:
        """Next main question: weak topics and resume topics first (topic_plan order), the
        current difficulty first, then the nearest difficulty."""
        plan = [t for t in state.topic_plan if t != avoid_topic] + (
            [avoid_topic] if avoid_topic else [])
        counts = {t: 0 for t in plan}
        for turn in state.turns:
            if turn.followup_id is None and turn.phase != Phase.warmup and turn.topic in counts:
                counts[turn.topic] += 1
        weak_topics = {self._topic_of_key(k) for k in state.weak_points}
        focus = state.config.focus_topic
        if focus in counts:
            counts[focus] //= 2  # the chosen focus comes up twice as often
        # Spread questions over topics: fewest asked first; among those, the focus, topics
        # where the candidate was weak before, then plan order.
        ordered = sorted(plan, key=lambda t: (counts[t], t != focus, t not in weak_topics,
                                              plan.index(t)))
        levels = _nearest_levels(state.difficulty)
        for level in levels:
            for topic in ordered:
                choices = self._eligible(state, topic, level)
                weak = [q for q in choices if any(w.startswith(q.id + "/") or
                                                  w == f"topic:{topic}"
                                                  for w in state.weak_points)]
                pool = weak or choices
                if pool:
                    return Pick(pool[_index(state, len(pool))], None, Phase.initial)
        return None

    def _topic_of_key(self, key: str) -> str | None:
        if key.startswith("topic:"):
            return key.split(":", 1)[1]
        q = self.bank.questions.get(key.split("/", 1)[0])
        return q.topic.value if q else None

    def followup(self, state: InterviewState, question: Question,
                 point_coverage: dict[str, float]) -> Pick | None:
        """An authored follow-up not yet asked: the one probing the weakest point; when every
        point is strong, the one probing what is left untested (going deeper)."""
        used = {t.followup_id for t in state.turns if t.followup_id}
        asked = self._asked_texts(state)
        options = [f for f in question.followups
                   if f.id not in used and not is_duplicate(f.text, asked)]
        if not options:
            return None

        def weakness(f: FollowUp) -> float:
            return min(point_coverage.get(p, 0.0) for p in f.probes)

        best = min(options, key=weakness)
        return Pick(question, best, Phase.followup)


def _nearest_levels(level: Difficulty) -> list[Difficulty]:
    order = [Difficulty.easy, Difficulty.medium, Difficulty.hard]
    i = order.index(level)
    return sorted(order, key=lambda d: (abs(order.index(d) - i), order.index(d)))


def _index(state: InterviewState, n: int) -> int:
    # Deterministic per session (replays and restarts pick the same), varied across sessions.
    return (sum(map(ord, state.session_id)) + len(state.turns)) % n
