"""Review: every agent text passes three voters; two must pass.

Rule voters always run; the third voter is a model when one is configured, else a rule.
A failed review is retried with the reasons (bounded), then falls back to bank text.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from agents.grading import tokens
from agents.messages import Feedback, ModelVote
from agents.providers.base import LanguageProvider, ProviderError

MAX_SPOKEN_WORDS = 90
PRAISE = {"great", "excellent", "perfect", "brilliant", "awesome", "flawless", "spot"}


@dataclass(frozen=True)
class Vote:
    voter: str
    ok: bool
    reason: str = ""


@dataclass(frozen=True)
class ReviewResult:
    accepted: bool
    votes: list[Vote]

    @property
    def reasons(self) -> list[str]:
        return [f"{v.voter}: {v.reason}" for v in self.votes if not v.ok]


def _contains_hint(text: str, hint: str) -> bool:
    said = " ".join(tokens(text))
    hint_words = tokens(hint)
    if not hint_words:
        return False
    if " ".join(hint_words) in said:
        return True
    content = [w for w in hint_words if len(w) > 3]
    return len(content) >= 3 and sum(w in said.split() for w in content) / len(content) >= 0.8


def vote_no_leak(fb: Feedback, forbidden: list[str]) -> Vote:
    for hint in forbidden:
        if _contains_hint(fb.text, hint):
            return Vote("no_leak", False, f"says a forbidden hint: {hint!r}")
    return Vote("no_leak", True)


def vote_shape(fb: Feedback) -> Vote:
    words = len(fb.text.split())
    if not fb.evidence.strip() or not fb.judgement.strip():
        return Vote("shape", False, "needs evidence and a judgement")
    if words > MAX_SPOKEN_WORDS:
        return Vote("shape", False, f"{words} words is too long to say; keep under "
                                    f"{MAX_SPOKEN_WORDS}")
    order = [fb.text.find(part) for part in (fb.evidence, fb.suggestion, fb.judgement) if part]
    if order != sorted(order) or -1 in order:
        return Vote("shape", False, "order must be evidence, then suggestion, then judgement")
    return Vote("shape", True)


def vote_kind(fb: Feedback) -> Vote:
    if fb.kind == "correction" and PRAISE & set(tokens(fb.judgement)):
        return Vote("kind", False, "a correction must not praise")
    if fb.kind == "comment" and not fb.judgement:
        return Vote("kind", False, "a comment needs a judgement")
    return Vote("kind", True)


async def vote_model(provider: LanguageProvider, fb: Feedback, question: str) -> Vote:
    user = json.dumps({"question": question, "feedback_kind": fb.kind, "feedback": fb.text,
                       "rule": "polite, specific, evidence before suggestion before judgement, "
                               "does not reveal the full answer unless it is a correction"})
    try:
        vote = await provider.complete_json(
            "You review an interviewer's feedback. Reply JSON {ok: bool, reason: str}.",
            user, ModelVote)
    except ProviderError as exc:
        return Vote("model", False, f"model voter unavailable: {exc}")
    return Vote("model", vote.ok, vote.reason)


async def review_feedback(fb: Feedback, *, forbidden: list[str], question: str,
                          provider: LanguageProvider) -> ReviewResult:
    votes = [vote_no_leak(fb, forbidden), vote_shape(fb)]
    if provider.has_model:
        votes.append(await vote_model(provider, fb, question))
    else:
        votes.append(vote_kind(fb))
    # The leak voter is a veto: hidden material never reaches the candidate.
    accepted = votes[0].ok and sum(v.ok for v in votes) >= 2
    return ReviewResult(accepted, votes)


async def reviewed(produce: Callable[[list[str]], Awaitable[Feedback]], fallback: Feedback, *,
                   forbidden: list[str], question: str, provider: LanguageProvider,
                   max_attempts: int = 2) -> tuple[Feedback, list[ReviewResult]]:
    """Produce, review, retry with reasons; fall back to bank text when nothing passes."""
    history: list[ReviewResult] = []
    reasons: list[str] = []
    for _ in range(max_attempts):
        try:
            candidate = await produce(reasons)
        except ProviderError as exc:
            reasons = [str(exc)]
            continue
        result = await review_feedback(candidate, forbidden=forbidden, question=question,
                                       provider=provider)
        history.append(result)
        if result.accepted:
            return candidate, history
        reasons = result.reasons
    return fallback, history
