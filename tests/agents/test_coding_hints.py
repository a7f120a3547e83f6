"""Hints in the coding round (issue 22, item 5): the problem's ladder, one hint at a time,
when the candidate asks or after a silence without edits (an injected clock, never a sleep),
counted in the report and against the approach score, and never part of the public problem.
Engine over a real Redis; the bank's real problems and ladders."""

from __future__ import annotations

import re
from typing import Any, Literal

import pytest

from agents.coding_hints import IdleHints, asks_for_hint, spoken_hint
from agents.coding_round import CodingRound, Said
from agents.coding_score import HINT_COST
from agents.engine import InterviewEngine
from agents.providers.rubric import RubricProvider
from agents.question_bank import load_question_bank
from agents.state import InterviewState, Phase, SelfRatings, SessionConfig
from judge.problems import ProblemRegistry
from server.report_html import render_report_html
from tests.conftest import ROOT

BANK = load_question_bank()
PROBLEMS = ProblemRegistry.from_bank(ROOT / "bank")
PROBLEM = PROBLEMS.get("edit-distance")
assert PROBLEM is not None and len(PROBLEM.hints) >= 2
LADDER = list(PROBLEM.hints)
Round = Literal["concepts", "coding"]


class Port:
    """The judge's side of the engine, as server/app.py wires it: the public task plus the
    problem's hint ladder."""

    async def pick_problem(self, difficulty: str, exclude: list[str]) -> dict[str, Any]:
        assert PROBLEM is not None
        public = PROBLEM.public()
        return {"problem_id": PROBLEM.id, "title": PROBLEM.title,
                "statement": PROBLEM.statement, "templates": PROBLEM.templates,
                "samples": public["samples"], "input_format": PROBLEM.input_format,
                "hints": LADDER}


def accepted(sub: str) -> dict[str, Any]:
    return {"type": "judge_result", "submission_id": sub, "kind": "submit", "verdict": "AC",
            "passed": 3, "total": 3, "code": "print(0)\n", "language": "python",
            "cases": [{"id": f"c{i}", "kind": "sample", "verdict": "AC", "time_ms": 1,
                       "memory_kb": 1} for i in range(3)]}


async def coding_session(aredis: Any, rounds: list[Round] | None = None,
                         ) -> tuple[InterviewEngine, str]:
    engine = InterviewEngine(aredis, BANK, RubricProvider(), coding=Port())
    state = await engine.create(SessionConfig(
        candidate_id="hana", role="backend", mode="text", rounds=rounds or ["coding"],
        max_questions=1, self_ratings=SelfRatings(algorithms=3, engineering=3, projects=3)))
    await engine.start(state.session_id)
    return engine, state.session_id


@pytest.mark.parametrize("text", [
    "Can I get a hint?", "can i get a hint", "Give me a hint.", "Any hints?", "Hint please",
    "A hint, please.", "Hints?", "I'm stuck, can you help?", "I'm stuck.",
    "I am kind of stuck here", "Could you give me a small hint?", "I could use a nudge.",
    "Do you have any hints for this?", "Is there a hint?", "I need a hint",
    "I'd like a hint on the edge cases", "Could you hint at what I'm missing?",
    "I don't know, can I get a hint?", "Can you help me?", "I need some help",
    "I don't know where to start", "Can I have another clue?", "One more hint?",
    "Um, can I get a hint, please?", "I think I'm stuck. Could you give me a hint?",
    "I get a hint, please.", "Maybe just a small hint, please?",
])
def test_a_request_for_a_hint_is_heard(text: str) -> None:
    assert asks_for_hint(text)


@pytest.mark.parametrize("text", [
    "I hint at the answer", "The statement hints that n is small", "Thanks for the hint.",
    "That hint helped a lot.", "No hints, please.", "I don't need a hint.",
    "I'm not stuck, just thinking.", "The loop got stuck in an infinite loop.",
    "It gets stuck when the input is empty", "I'll use a helper function.",
    "I'll use a stack to match the brackets.", "I would rather not get a hint yet.",
    "There's a hint of recursion in my code.", "This will help me later with the edge case.",
    "I want to try without hints.", "I'd like to hint that the answer is linear",
    "The tip of the stack is the last opener.", "I need a pointer to the head",
    "I don't want any hints", "Do you want a hint?", "I hope I don't get stuck",
    "Let me think about it.", "Thanks for the hint, please continue.",
])
def test_other_talk_is_not_a_request(text: str) -> None:
    assert not asks_for_hint(text)


def test_every_bank_hint_is_speakable() -> None:
    code = re.compile(r"[\[\]{}^*<>=_`|\\%]|\w\(")
    hints = [h for p in PROBLEMS.problems.values() for h in p.hints]
    assert len(hints) >= 2 * len(PROBLEMS.problems)
    unspeakable = [(h, spoken_hint(h)) for h in hints if code.search(spoken_hint(h))]
    assert not unspeakable, unspeakable[:3]
    assert spoken_hint("Let dp[i][j] be it; dp[i-1][j-1] when p*p <= n, 10^18.") == (
        "Let dp of i, j be it; dp of i minus 1, j minus 1 when p times p at most n, "
        "10 to the 18.")


def test_the_idle_clock_offers_once_per_silence_and_never_while_typing() -> None:
    idle = IdleHints(90, now=1000.0)
    assert not idle.due(1089.9)
    assert idle.due(1090.0)
    assert not idle.due(1200.0) and not idle.due(5000.0)  # once per stretch
    idle.activity(5000.0)  # an edit, a submission or speech re-arms it
    assert not idle.due(5089.0) and idle.due(5091.0)
    typing = IdleHints(90, now=0.0)
    for second in range(0, 600, 30):  # an edit every 30 s for ten minutes
        typing.activity(float(second))
        assert not typing.due(second + 29.0)


async def test_each_request_gets_the_next_hint_then_no_more(aredis: Any) -> None:
    engine, sid = await coding_session(aredis)
    wording = engine.coding_round.wording.hints
    out = await engine.answer(sid, "Can I get a hint?")
    assert out.spoken == [wording.asked.format(a="a", hint=spoken_hint(LADDER[0]))]
    shown = [e for e in out.events if e["type"] == "feedback"]
    assert [e["text"] for e in shown] == [f"Here is a hint. {LADDER[0]}"]
    assert shown[0]["kind"] == "guidance" and shown[0]["turn_id"]
    out = await engine.answer(sid, "I'm stuck, can you help?")
    assert out.spoken == [f"Here is another hint. {spoken_hint(LADDER[1])}"]
    assert "dp of i, j" in out.spoken[0]  # spoken in words; the room shows dp[i][j]
    assert any("dp[i][j]" in e.get("text", "") for e in out.events)
    for hint in LADDER[2:]:
        out = await engine.answer(sid, "Any more hints?")
        assert out.spoken == [f"Here is another hint. {spoken_hint(hint)}"]
    out = await engine.answer(sid, "Give me one more hint, please.")
    assert out.spoken == [wording.none_left]  # said plainly, nothing repeated
    assert not any(h in " ".join(out.spoken) for h in LADDER)
    out = await engine.answer(sid, "I will fill the table row by row.")
    assert out.spoken == [engine.coding_round.wording.talk_noted]  # not a request
    state = await engine.load(sid)
    talk = state.coding_talk
    assert talk.hints_used == len(LADDER) and len(talk.hint_t_ms) == len(LADDER)
    assert talk.hint_t_ms == sorted(talk.hint_t_ms)


async def test_an_idle_offer_gives_the_next_hint_only_while_solving(aredis: Any) -> None:
    engine, sid = await coding_session(aredis, rounds=["concepts", "coding"])
    assert (await engine.offer_hint(sid)).spoken == []  # the concepts round: no hints
    assert (await engine.load(sid)).phase != Phase.coding
    while (await engine.load(sid)).phase != Phase.coding:
        await engine.answer(sid, "I don't know.")
    out = await engine.offer_hint(sid)
    assert out.spoken == ["You have been quiet for a while, so here is a hint. "
                          + spoken_hint(LADDER[0])]
    await engine.answer(sid, "Could I have another hint?")
    for _ in LADDER[2:]:
        assert len((await engine.offer_hint(sid)).spoken) == 1
    assert (await engine.offer_hint(sid)).events == []  # used up: nothing said unasked
    assert (await engine.load(sid)).coding_talk.hints_used == len(LADDER)


async def test_no_hint_after_the_problem_is_solved(aredis: Any) -> None:
    engine, sid = await coding_session(aredis)
    await engine.on_judge_result(sid, accepted("s1"))
    assert (await engine.offer_hint(sid)).spoken == []
    assert (await engine.load(sid)).coding_talk.hints_used == 0


async def test_hints_reach_the_report_and_lower_the_approach(aredis: Any) -> None:
    engine, sid = await coding_session(aredis)
    await engine.answer(sid, "Can I get a hint?")
    await engine.offer_hint(sid)
    await engine.on_judge_result(sid, accepted("s1"))
    report = await engine.report(sid)
    assert report.coding is not None
    assert report.coding["hints_used"] == 2 and len(report.coding["hint_t_ms"]) == 2
    assert report.coding["score_parts"]["hints_used"] == 2
    coding_turn = next(t for t in report.turns if t.phase == "coding")
    assert coding_turn.feedback is not None and coding_turn.feedback.endswith("2 hints used.")
    page = render_report_html(report)
    assert "Hints used: 2 (at " in page and "/playback/" in page
    # The approach part (the assessment points the talk covered) loses HINT_COST a hint.
    state = await engine.load(sid)
    state.coding_talk.points = {"p1": 0.9, "p2": 0.7}
    with_hints = CodingRound.summary(state)
    state.coding_talk.hints_used, state.coding_talk.hint_t_ms = 0, []
    without = CodingRound.summary(state)
    assert with_hints is not None and without is not None
    assert without["score_parts"]["approach"] == pytest.approx(0.8)
    assert with_hints["score_parts"]["approach"] == pytest.approx(0.8 - 2 * HINT_COST)
    assert with_hints["score"] < without["score"]


async def test_the_ladder_is_never_part_of_the_public_problem(aredis: Any) -> None:
    assert PROBLEM is not None
    assert "hints" not in PROBLEM.public()
    engine, sid = await coding_session(aredis)
    recorded = await engine.events.range(sid, 0)
    task = next(e for e in recorded if e["type"] == "coding_task")
    assert "hints" not in task
    everything = str(recorded)
    assert not any(h[:40] in everything for h in LADDER)  # not one hint before it is given
    state = await engine.load(sid)
    assert state.coding_hints == LADDER  # kept server-side for when it is


def test_a_state_without_a_ladder_has_no_hint_to_give() -> None:
    state = InterviewState(session_id="s", phase=Phase.coding, config=SessionConfig(
        candidate_id="c", role="backend", mode="text",
        self_ratings=SelfRatings(algorithms=3, engineering=3, projects=3)))
    said = Said()
    assert not CodingRound().hint(state, 0, said, asked=False)
    assert CodingRound().hint(state, 0, said, asked=True)  # asked: "no more hints"
    assert state.coding_talk.hints_used == 0 and len(said.spoken) == 1
