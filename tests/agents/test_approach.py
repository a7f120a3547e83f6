"""The approach talk of the coding round (issue 22, item 4): what the candidate says while
coding is graded by the concepts grader against the problem's assessment points; a point
keeps its best coverage with the clause and moment that showed it; after a run the
interviewer asks, once a round, about a point not yet covered, naming its area and never the
point; the report lists the points (once ended) with quotes and time links. The bank's real
problems, the real grader, the engine over a real Redis."""

from __future__ import annotations

from typing import Any

import pytest

from agents.approach import COVERED, area_of, grade_approach, missing_point
from agents.coding_round import CodingRound
from agents.engine import InterviewEngine
from agents.grading import content_words, stem
from agents.providers.rubric import RubricProvider
from agents.question_bank import load_question_bank
from agents.semantic import default_grader
from agents.state import SelfRatings, SessionConfig
from judge.problems import ProblemRegistry
from server.report_html import render_report_html
from tests.conftest import ROOT

BANK = load_question_bank()
PROBLEMS = ProblemRegistry.from_bank(ROOT / "bank")
BRACKETS = PROBLEMS.get("balanced-brackets")
assert BRACKETS is not None
POINTS = [{"id": p.id, "text": p.text} for p in BRACKETS.assessment_points]
STATEMENT = f"{BRACKETS.title}. {BRACKETS.statement}"
GRADER = default_grader()
EXPLAINED = ("I push every opening bracket onto a stack, and for a closing bracket I pop the "
             "top and check that it matches, so it is one pass, linear time. At the end the "
             "stack has to be empty, otherwise some bracket was never closed.")


def coverage(talk: str) -> dict[str, float]:
    return {g.point_id: g.coverage for g in grade_approach(talk, POINTS, GRADER, STATEMENT)}


def test_an_explanation_covers_the_points_it_states_and_small_talk_none() -> None:
    got = coverage(EXPLAINED)
    assert got["p1"] >= COVERED and got["p2"] >= COVERED, got  # the stack; empty at the end
    assert got["p4"] < COVERED, got  # nothing said about deleting pairs being quadratic
    idle = coverage("Okay, let me think about this for a second. Hmm, right, I see.")
    assert all(v < COVERED for v in idle.values()), idle
    salad = coverage("stack end empty top closer matches bracket each must the")
    assert sum(salad.values()) < sum(got.values()), (salad, got)
    assert grade_approach("", POINTS, GRADER, STATEMENT) == []


def test_a_follow_up_names_the_area_of_a_missing_point_never_the_point() -> None:
    wording = CodingRound().wording.approach
    assert area_of("A stack of open brackets; each closer must match the top, O(n)") == "cost"
    assert area_of("Rejects a closer on an empty stack") == "edge"
    assert area_of("Uses union-find with path compression") == "mechanism"
    assert missing_point(POINTS, {"p1": 0.9, "p2": 0.1}, []) == POINTS[1]
    assert missing_point(POINTS, {"p1": 0.9, "p2": 0.1}, ["p2"]) == POINTS[2]
    # The question is one of three authored sentences, the same for every problem: it can
    # name an area, never a point (no point's text or key phrase is in it).
    for problem in PROBLEMS.problems.values():
        for point in problem.assessment_points:
            question = wording[area_of(point.text)]
            assert question in wording.values()
            assert point.text.lower()[:30] not in question.lower()
            said = {stem(w) for w in content_words(question)}
            phrase = [stem(w) for w in content_words(point.text)][:3]
            assert not (len(phrase) == 3 and set(phrase) <= said), (problem.id, point.id)


class Port:
    async def pick_problem(self, difficulty: str, exclude: list[str]) -> dict[str, Any]:
        assert BRACKETS is not None
        public = BRACKETS.public()
        return {"problem_id": BRACKETS.id, "title": BRACKETS.title,
                "statement": BRACKETS.statement, "templates": BRACKETS.templates,
                "samples": public["samples"], "hints": list(BRACKETS.hints),
                "points": POINTS}


def result(sub: str, verdict: str, kind: str = "run") -> dict[str, Any]:
    cases = [{"id": f"c{i}", "kind": "sample", "verdict": "AC" if verdict == "AC" or i else "WA",
              "time_ms": 1, "memory_kb": 1, "input": "1\n()\n", "expected": "YES\n",
              "actual": "NO\n" if verdict != "AC" and not i else "YES\n"} for i in range(3)]
    return {"type": "judge_result", "submission_id": sub, "kind": kind, "verdict": verdict,
            "passed": 3 if verdict == "AC" else 2, "total": 3, "language": "python",
            "code": "import sys\nprint('YES')\n", "cases": cases}


async def test_the_talk_is_graded_asked_about_once_and_reported(aredis: Any) -> None:
    engine = InterviewEngine(aredis, BANK, RubricProvider(), coding=Port())
    state = await engine.create(SessionConfig(
        candidate_id="hana", role="backend", mode="text", rounds=["coding"], max_questions=1,
        self_ratings=SelfRatings(algorithms=3, engineering=3, projects=3)))
    sid = state.session_id
    started = await engine.start(sid)
    task = next(e for e in started.events if e["type"] == "coding_task")
    assert "points" not in task and POINTS[0]["text"] not in str(started.events)

    await engine.answer(sid, EXPLAINED)
    talk = (await engine.load(sid)).coding_talk
    assert talk.points["p1"] >= COVERED and talk.points["p2"] >= COVERED
    assert talk.point_quotes["p2"]["quote"] and "empty" in str(talk.point_quotes["p2"]["quote"])

    # After a run, not while typing: one question about a point not yet covered.
    out = await engine.on_judge_result(sid, result("r1", "WA"))
    asked = [e["text"] for e in out.events if e["type"] == "feedback"][1:]
    wording = engine.coding_round.wording.approach
    approach_asked = [t for t in asked if t in wording.values()]
    if not approach_asked:  # the code's own follow-up went first; the next run asks it
        out = await engine.on_judge_result(sid, result("r2", "WA"))
        approach_asked = [e["text"] for e in out.events if e["type"] == "feedback"
                          and e["text"] in wording.values()]
    assert len(approach_asked) == 1
    followed = (await engine.load(sid)).coding_talk.followed_up
    assert len(followed) == 1 and followed[0] in ("p3", "p4")
    out = await engine.on_judge_result(sid, result("r3", "WA"))
    assert not [e for e in out.events if e.get("text") in wording.values()]  # once a round

    # A better explanation later raises a point; a worse one never lowers it.
    await engine.answer(sid, "Deleting '()' pairs over and over would be quadratic on deep "
                             "nesting, and a closer on an empty stack means the answer is NO.")
    await engine.answer(sid, "Whatever.")
    talk = (await engine.load(sid)).coding_talk
    assert talk.points["p3"] >= COVERED and talk.points["p1"] >= COVERED

    await engine.on_judge_result(sid, result("s1", "AC", kind="submit"))
    report = await engine.report(sid)
    assert report.coding is not None
    rows = {p["id"]: p for p in report.coding["approach_points"]}
    assert set(rows) == {p["id"] for p in POINTS}
    assert rows["p1"]["covered"] and isinstance(rows["p1"]["t_ms"], int)
    expected = round(sum(talk.points.get(p["id"], 0.0) for p in POINTS) / len(POINTS), 3)
    assert report.coding["score_parts"]["approach"] == pytest.approx(expected)

    # Live, the page says how many were covered, not which (they are the rubric) ...
    live = render_report_html(report)
    assert "Your approach" not in live and POINTS[3]["text"] not in live
    assert "the list comes with the report once the interview has ended" in live
    assert all(p["text"] is None for p in report.coding["approach_points"])  # nor the JSON
    # ... once ended, each point in a sentence, the quote and its moment.
    await engine.end(sid)
    report = await engine.report(sid)
    assert report.status == "ended" and report.coding is not None
    assert [p["text"] for p in report.coding["approach_points"]] == [p["text"] for p in POINTS]
    page = render_report_html(report)
    assert "You explained: " + POINTS[0]["text"] in page
    assert "/playback/" in page and "“" in page
