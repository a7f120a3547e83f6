"""The coding round counts and ends: after an accepted submit the interviewer asks for the
complexity, checks the claim against the judge's timing, wraps up, and the round's score
enters the overall one. Engine over a real Redis; judge results as the judge publishes them
(their public view), the timing as its ``complexity_measured`` event."""

from __future__ import annotations

from typing import Any

import pytest

from agents.code_reading import read_code
from agents.coding_score import CODING_WEIGHT, coding_score, correctness, overall_score
from agents.coding_talk import growth_words, has_log_factor, measured_class
from agents.engine import InterviewEngine
from agents.providers.rubric import RubricProvider
from agents.question_bank import load_question_bank
from agents.state import Phase, SelfRatings, SessionConfig

BANK = load_question_bank()
TASK = {"problem_id": "max-subarray-sum", "title": "Maximum subarray sum", "templates": {},
        "samples": [], "statement": "Largest sum of a contiguous subarray.",
        "input_format": "First line n. Second line: n integers."}
LINEAR = "n = int(input())\nbest = cur = 0\nfor x in map(int, input().split()):\n    cur += x\n"


class Port:
    async def pick_problem(self, difficulty: str, exclude: list[str]) -> dict[str, Any]:
        return TASK


def accepted(sub: str, total: int = 15) -> dict[str, Any]:
    cases = [{"id": f"c{i}", "kind": "sample" if i < 3 else "hidden" if i < 13
              else "performance", "verdict": "AC", "time_ms": 1, "memory_kb": 1}
             for i in range(total)]
    return {"type": "judge_result", "submission_id": sub, "kind": "submit", "verdict": "AC",
            "passed": total, "total": total, "cases": cases, "code": LINEAR,
            "language": "python"}


def timing(sub: str, exponent: float | None, status: str = "measured") -> dict[str, Any]:
    return {"type": "complexity_measured", "submission_id": sub, "status": status,
            "exponent": exponent, "ratio": 2 ** exponent if exponent is not None else None,
            "reference_class": "n", "var": "n"}


async def coding_session(aredis: Any) -> tuple[InterviewEngine, str]:
    engine = InterviewEngine(aredis, BANK, RubricProvider(), coding=Port())
    state = await engine.create(SessionConfig(
        candidate_id="cora", role="backend", mode="text", rounds=["coding"],
        self_ratings=SelfRatings(algorithms=3, engineering=3, projects=3)))
    await engine.start(state.session_id)
    return engine, state.session_id


async def test_a_wrong_claim_is_challenged_then_the_round_wraps_up(aredis: Any) -> None:
    engine, sid = await coding_session(aredis)
    out = await engine.on_judge_result(sid, accepted("s1"))
    assert out.spoken == ["All 15 tests pass, including the hidden and performance ones. "
                          "What is the time and space complexity of your solution?"]
    out = await engine.answer(sid, "I think my solution runs in O(n cubed) time.")
    assert out.spoken == ["Let me time your code on bigger inputs to check that."]
    out = await engine.on_judge_result(sid, timing("s1", 2.0))
    assert out.spoken == ["You said n cubed; your time grew about four times when n doubled, "
                          "which is quadratic.", "Where in your code does that come from?"]
    assert (await engine.load(sid)).phase == Phase.coding
    out = await engine.answer(sid, "Oh, the inner loop over j, I see.")
    assert out.spoken[:2] == ["It can be done in linear time.", "That wraps up the coding round."]
    assert out.spoken[2].startswith("That is the end of our interview.")
    state = await engine.load(sid)
    assert state.phase == Phase.ended and state.ended_reason == "coding round complete"
    report = await engine.report(sid)
    assert report.coding is not None and report.coding["complexity"]["claimed"] == "n^3"
    parts = report.coding["score_parts"]
    assert parts["correctness"] == 1.0 and parts["complexity"] == 0.5  # one class off
    assert report.overall_score == report.coding["score"] == pytest.approx(
        (0.6 + 0.15 * 0.5) / 0.75, 0.01)


async def test_a_right_claim_is_confirmed_and_the_round_counts(aredis: Any) -> None:
    engine, sid = await coding_session(aredis)
    await engine.on_judge_result(sid, accepted("s1"))
    await engine.on_judge_result(sid, timing("s1", 1.02))  # the timing first, this time
    out = await engine.answer(sid, "It's linear time, O(n), and constant space.")
    assert out.spoken[:2] == ["You said linear, and that holds: your time about doubled when "
                              "n doubled.", "That wraps up the coding round."]
    report = await engine.report(sid)
    assert report.overall_score == 1.0  # 15 of 15 and a right claim: not "0/100"
    coding_turn = next(t for t in report.turns if t.phase == "coding")
    assert coding_turn.score == 1.0 and coding_turn.feedback == "Last submit: AC, 15 of 15 tests."


async def test_after_acceptance_talk_is_about_complexity_not_submitting(aredis: Any) -> None:
    engine, sid = await coding_session(aredis)
    out = await engine.answer(sid, "I will use a running sum.")
    assert "submit when you are ready" in out.spoken[0]  # while solving
    await engine.on_judge_result(sid, accepted("s1"))
    out = await engine.answer(sid, "I am happy with it.")
    assert out.spoken == ["Which class is the running time, in terms of n: linear, n log n, "
                          "quadratic, or something else?"]
    await engine.on_judge_result(sid, timing("s1", None, status="too_fast"))
    out = await engine.answer(sid, "Not sure, honestly.")
    assert out.spoken[:2] == ["We can leave the complexity there.",
                              "That wraps up the coding round."]
    assert not any("submit" in s for s in out.spoken)


@pytest.mark.parametrize(("exponent", "log_factor", "klass"), [
    (0.1, False, "1"), (0.75, False, "n"), (1.05, True, "n log n"), (1.3, False, "n"),
    (1.3, True, "n log n"), (1.55, True, "n log n"), (1.55, False, "n"), (1.68, False, "n^2"),
    (1.93, False, "n^2"), (2.9, False, "n^3"), (4.0, False, "2^n")])
def test_measured_class(exponent: float, log_factor: bool, klass: str) -> None:
    assert measured_class(exponent, log_factor) == klass


_TAILS = """n = int(input())
a = list(map(int, input().split()))
d = [a[0]]
for x in a[1:]:
    if x > d[-1]:
        d.append(x)
        continue
    lo, hi = 0, len(d) - 1
    while lo < hi:
        {mid}
        if d[m] < x:
            lo = m + 1
        else:
            hi = m
    d[lo] = x
print(len(d))
"""


@pytest.mark.parametrize(("language", "code", "log"), [
    # A hand-written binary search (no bisect, no sort): its midpoint is the log step.
    ("python", _TAILS.format(mid="m = (lo + hi) // 2"), True),
    ("python", _TAILS.format(mid="m = lo + (hi - lo) // 2"), True),
    ("cpp", "int main(){int l=0,r=n;while(l<r){int m=(l+r)>>1;if(a[m]<x)l=m+1;else r=m;}}",
     True),
    ("java", "int mid = lo + (hi - lo) / 2;", True),
    # Halving a sum of a variable and a number is arithmetic, not a search.
    ("python", "n = int(input())\nprint(n * (n + 1) // 2)\n", False),
    ("cpp", "long long s=0; for(int i=0;i<n;i++){s+=a[i];} cout<<(s+1)/2;", False),
    # A power of two by a variable is a level of a sparse table; by a number, a constant
    # (a Java solution's 64 KB input buffer read as a log factor: linear called n log n).
    ("cpp", "for(int j=1;(1<<j)<=n;j++) for(int i=0;i+(1<<j)<=n;i++) t[j][i]=0;", True),
    ("java", "byte[] buf = new byte[1 << 16]; HashMap<Integer, Integer> seen = new HashMap<>();",
     False),
    # A variable halved in place climbs a tree (a bottom-up segment tree); half of one
    # variable kept in another is arithmetic.
    ("java", "while (lo <= hi) { if (lo % 2 == 1) r += t[lo]; lo = lo / 2 + 1; hi = hi / 2; }",
     True),
    ("python", "i = n\nwhile i > 0:\n    s += t[i]\n    i = i // 2\n", True),
    ("java", "while (l <= r) { l = l % 2 == 1 ? l / 2 + 1 : l / 2; r = r / 2; }", True),
    ("cpp", "long long total = n * (n + 1) / 2; int s = x + y / 2;", False),
    ("java", "int half = n / 2; long total = 0; for (int x : a) total += x;", False),
])
def test_a_log_factor_is_read_from_the_code(language: str, code: str, log: bool) -> None:
    assert has_log_factor(code, read_code(code, language)) is log


def test_growth_words() -> None:
    assert [growth_words(r) for r in (1.1, 2.1, 4.2, 7.7)] == [
        "stayed about the same", "about doubled", "grew about four times",
        "grew about eight times"]


def test_the_round_score_by_tier_and_its_share_of_the_overall() -> None:
    tiers = {"sample": [3, 3], "hidden": [5, 10], "performance": [0, 0]}
    attempt = {"kind": "submit", "verdict": "WA", "tiers": tiers}
    assert correctness(attempt) == pytest.approx(0.2 + 0.25)
    run = {"kind": "run", "verdict": "AC", "tiers": {"sample": [3, 3]}}
    assert correctness(run) == 0.2  # samples only: nothing was submitted
    score = coding_score([run, attempt], approach=0.8, complexity=1.0, hints_used=2)
    assert score.approach == pytest.approx(0.5)  # two hints cost 0.3 of the approach score
    assert score.score == pytest.approx((0.6 * 0.45 + 0.25 * 0.5 + 0.15) / 1.0)
    assert overall_score(0.5, 1.0) == pytest.approx(0.5 * (1 - CODING_WEIGHT) + CODING_WEIGHT)
    assert overall_score(None, 0.7) == 0.7 and overall_score(0.4, None) == 0.4
