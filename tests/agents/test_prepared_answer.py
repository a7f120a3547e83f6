"""A reply graded ahead, during a pause that may end the turn (``prepare_answer``), serves
the answer when it arrives: the engine never grades the same words twice, even when the
answer arrives while that grading is still running (real Redis, rubric provider)."""

from __future__ import annotations

import asyncio
from typing import Any

from agents.engine import InterviewEngine
from agents.providers.rubric import RubricProvider
from agents.question_bank import load_question_bank
from agents.state import SelfRatings, SessionConfig

BANK = load_question_bank()


async def started(engine: InterviewEngine) -> str:
    state = await engine.create(SessionConfig(
        candidate_id="prepared", role="backend", mode="voice",
        self_ratings=SelfRatings(algorithms=3, engineering=3, projects=3), max_questions=3))
    await engine.start(state.session_id)
    return state.session_id


class SlowGrading:
    """Counts the engine's gradings and holds each until released."""

    def __init__(self, engine: InterviewEngine) -> None:
        self.texts: list[str] = []
        self.release = asyncio.Event()
        self._real = engine._judge
        engine._judge = self  # type: ignore[method-assign,assignment]

    async def __call__(self, state: Any, turn: Any, answer: str, budget: float) -> Any:
        self.texts.append(answer)
        await self.release.wait()
        return await self._real(state, turn, answer, budget)

    async def started(self, n: int) -> None:
        for _ in range(200):
            if len(self.texts) >= n:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"{n} grading(s) expected, {len(self.texts)} started")


async def prepared_for(aredis: Any) -> tuple[InterviewEngine, str, str, SlowGrading]:
    """An engine with its first question open, the reference answer to it, and its
    gradings counted and held."""
    engine = InterviewEngine(aredis, BANK, RubricProvider())
    sid = await started(engine)
    turn = (await engine.load(sid)).current_turn
    assert turn is not None
    return engine, sid, BANK.get(turn.question_id).reference_answer, SlowGrading(engine)


async def test_an_answer_waits_for_its_grading_in_progress(aredis: Any) -> None:
    engine, sid, text, grading = await prepared_for(aredis)
    prepared = asyncio.create_task(engine.prepare_answer(sid, text))
    await grading.started(1)
    answered = asyncio.create_task(engine.answer(sid, text))
    await asyncio.sleep(0.2)  # the answer arrives while the grading runs
    assert not answered.done()
    grading.release.set()
    said, result = await prepared, await answered
    assert grading.texts == [text]  # graded once
    [feedback] = [e for e in result.events if e["type"] == "feedback"]
    assert said == [feedback["text"]]  # what was synthesized ahead is what is said


async def test_a_dropped_preparation_still_serves_the_same_words(aredis: Any) -> None:
    engine, sid, text, grading = await prepared_for(aredis)
    prepared = asyncio.create_task(engine.prepare_answer(sid, text))
    await grading.started(1)
    prepared.cancel()  # the voice session dropped it (speech resumed: only a cough)
    grading.release.set()
    result = await engine.answer(sid, text)
    assert grading.texts == [text]
    assert [e for e in result.events if e["type"] == "feedback"]


async def test_other_words_are_graded_afresh(aredis: Any) -> None:
    engine, sid, text, grading = await prepared_for(aredis)
    grading.release.set()
    await engine.prepare_answer(sid, "a hash map")
    result = await engine.answer(sid, text)
    assert grading.texts == ["a hash map", text]
    [feedback] = [e for e in result.events if e["type"] == "feedback"]
    assert feedback["score"] > 0.3  # the whole answer's grade, not the half's
