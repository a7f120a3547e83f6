"""Reading candidate code with the tree-sitter grammars: the facts per language, the partial
facts of a broken file, and the follow-up questions they give."""

from __future__ import annotations

import pytest

from agents.code_reading import CODE_LANGUAGES, CONTAINERS, CodeFacts, follow_ups, read_code
from agents.coding_round import CodingRound, Said
from agents.state import InterviewState, SelfRatings, SessionConfig
from bench.code_snippets import LINEAR_CONTAINERS, SNIPPETS, SORT_CONTAINERS
from judge.languages import LANGUAGES
from judge.problems import ProblemRegistry, default_bank_dir

# The public view of a problem with large n (so a quadratic pass is the thing to fix) and
# one whose statement allows an empty array.
LARGE_N = {"statement": "Given n integers, print how many pairs are equal.",
           "input_format": "First line n (1 <= n <= 200000). Second line: n integers.",
           "tags": ["hashing"]}
MAY_BE_EMPTY = {"statement": "Given an array of integers, print its sum.",
                "input_format": "First line n (0 <= n <= 100000). Second line: n integers."}


def facts(language: str, kind: str) -> CodeFacts:
    return read_code(SNIPPETS[language][kind], language)


def test_the_readers_languages_are_the_judges() -> None:
    assert CODE_LANGUAGES == LANGUAGES
    assert set(SNIPPETS) == set(LANGUAGES)


@pytest.mark.parametrize("language", LANGUAGES)
def test_nested_loops_over_the_input_against_one_pass(language: str) -> None:
    quadratic, linear = facts(language, "quadratic"), facts(language, "linear")
    assert not quadratic.partial and not linear.partial
    assert quadratic.max_loop_depth == 2 and quadratic.input_loop_depth == 2
    assert quadratic.inner_loop_over_input
    assert quadratic.nested_loop_line is not None
    assert "for" in SNIPPETS[language]["quadratic"].splitlines()[quadratic.nested_loop_line - 1] \
        or "forEach" in SNIPPETS[language]["quadratic"]
    # The linear ones loop once over the input; C and Go nest a loop over a declared
    # constant alphabet (ALPHA / K = 26), which is not the input.
    assert linear.input_loop_depth == 1 and not linear.inner_loop_over_input
    assert linear.max_loop_depth == (2 if language in {"c", "go"} else 1)


@pytest.mark.parametrize("language", LANGUAGES)
def test_recursion_with_and_without_a_memo(language: str) -> None:
    plain, memo = facts(language, "recursion"), facts(language, "memo")
    assert [(r.name, r.self_calls, r.branching, r.memoised) for r in plain.recursion] == [
        ("fib", 2, True, False)]
    assert plain.recursive and not plain.memoised
    assert memo.recursive and all(r.memoised for r in memo.recursion)
    assert facts(language, "quadratic").recursion == ()


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_sort_inside_the_loop(language: str) -> None:
    f = facts(language, "sort_in_loop")
    assert f.sort_calls == 1 and f.sort_in_loop
    line = SNIPPETS[language]["sort_in_loop"].splitlines()[f.sort_in_loop_line - 1]
    assert "sort" in line
    assert facts(language, "quadratic").sort_calls == 0


def test_a_sort_of_the_loops_iterable_runs_once() -> None:
    once = read_code("a = [3, 1]\nfor x in sorted(a):\n    print(x)\n"
                     "r = {v: i for i, v in enumerate(sorted(a))}\n", "python")
    assert once.sort_calls == 2 and not once.sort_in_loop
    each = read_code("a = [3, 1]\nfor x in a:\n    print(sorted(a))\n", "python")
    assert each.sort_in_loop_line == 3


@pytest.mark.parametrize("language", LANGUAGES)
def test_containers(language: str) -> None:
    assert LINEAR_CONTAINERS[language] <= facts(language, "linear").containers
    assert SORT_CONTAINERS[language] <= facts(language, "sort_in_loop").containers
    assert "hash_map" not in facts(language, "sort_in_loop").containers
    for kind in SNIPPETS[language]:
        assert facts(language, kind).containers <= CONTAINERS


@pytest.mark.parametrize("language", LANGUAGES)
def test_empty_input_guard(language: str) -> None:
    assert facts(language, "linear").empty_guard
    assert not facts(language, "quadratic").empty_guard


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_broken_file_gives_partial_facts(language: str) -> None:
    broken = facts(language, "broken")
    assert broken.partial and broken.language == language
    # Partial facts ask nothing about edge cases the reader could not see.
    assert not any("empty" in q or "single" in q for q in follow_ups(broken, MAY_BE_EMPTY))


def test_odd_input_never_raises() -> None:
    assert read_code("", "python") == CodeFacts(language="python")
    assert read_code("x = 1\n", "cobol").partial
    assert read_code("\x00\xff}}}{{{", "cpp").partial
    # Deep expression nesting: the walk is iterative, not recursive.
    deep = "x = " + "(" * 3000 + "1" + ")" * 3000 + "\n"
    assert read_code(deep, "python").max_loop_depth == 0


def test_divide_and_conquer_is_not_exponential() -> None:
    merge_sort = """\
def ms(a, lo, hi):
    if hi - lo < 2:
        return 0
    mid = (lo + hi) // 2
    return ms(a, lo, mid) + ms(a, mid, hi)
"""
    (rec,) = read_code(merge_sort, "python").recursion
    assert rec.self_calls == 2 and rec.halving and not rec.branching


@pytest.mark.parametrize("language", LANGUAGES)
def test_follow_ups_differ_between_quadratic_and_linear(language: str) -> None:
    quadratic = follow_ups(facts(language, "quadratic"), LARGE_N)
    linear = follow_ups(facts(language, "linear"), LARGE_N)
    assert quadratic[0] == ("You have two nested loops over the array: "
                            "can you do it in one pass?")
    assert quadratic != linear
    assert not any("nested" in q for q in linear)
    assert 1 <= len(quadratic) <= 2 and len(linear) <= 2


@pytest.mark.parametrize("language", LANGUAGES)
def test_follow_ups_name_the_costly_construct(language: str) -> None:
    sort_q = follow_ups(facts(language, "sort_in_loop"), LARGE_N)
    assert sort_q[0].startswith("You sort inside a loop, on line ")
    memo_free = follow_ups(facts(language, "recursion"), LARGE_N)
    assert memo_free[0] == ("Your recursion in fib has no memo: how many calls does it make "
                            "for n = 40?")
    assert not any("memo" in q for q in follow_ups(facts(language, "memo"), LARGE_N))


def test_the_edge_case_question_follows_the_stated_constraints() -> None:
    unguarded = facts("python", "quadratic")
    assert follow_ups(unguarded, MAY_BE_EMPTY)[-1] == "What happens when the array is empty?"
    assert follow_ups(unguarded, LARGE_N)[-1] == (
        "What does your code do when the array has a single element?")
    assert not any("empty" in q for q in follow_ups(facts("python", "linear"), MAY_BE_EMPTY))
    assert follow_ups(unguarded, LARGE_N, limit=1) == follow_ups(unguarded, LARGE_N)[:1]


def test_follow_ups_read_only_the_public_view() -> None:
    """On a bank problem, the questions come from the public view and are the same with the
    full problem's private parts present; none quotes a hidden test or the reference."""
    registry = ProblemRegistry.from_bank(default_bank_dir())
    problem = registry.find("distinct-values")
    naive = (problem.directory / "solutions" / "naive.py").read_text()
    reference = (problem.directory / "solutions" / "reference.py").read_text()
    public = problem.public()
    everything = {**problem.model_dump(), **public}
    questions = follow_ups(read_code(naive, "python"), public)
    assert questions and questions == follow_ups(read_code(naive, "python"), everything)
    hidden = [t.input for t in problem.tests if t.kind != "sample" and t.input]
    for q in questions:
        assert not any(h.strip() and h.strip() in q for h in hidden)
        assert not any(len(line) > 12 and line.strip() in q
                       for line in reference.splitlines())


def test_the_bench_reads_every_file(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from bench import code_reading

    assert code_reading.main(["--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["snippets"]["files"] == 6 * 6 and result["bank"]["files"] > 0
    assert set(result["grammar_load_ms"]) == set(LANGUAGES)
    # The bank's naive solutions are mostly quadratic, its references mostly not.
    assert result["naive_nested"] > result["reference_nested"]


# --- the coding round asks from the code ------------------------------------------------------

def _coding_state() -> tuple[CodingRound, InterviewState]:
    state = InterviewState(session_id="s", config=SessionConfig(
        candidate_id="c", role="backend", mode="voice",
        self_ratings=SelfRatings(algorithms=3, engineering=3, projects=3)))
    round_ = CodingRound()
    task = {"problem_id": "pairs", "title": "Equal pairs", "templates": {}, "samples": [],
            "statement": LARGE_N["statement"], "input_format": LARGE_N["input_format"]}
    round_.open(state, task, 0, Said())
    return round_, state


def _result(sub: str, verdict: str, code: str, kind: str = "run") -> dict[str, object]:
    return {"submission_id": sub, "kind": kind, "verdict": verdict, "passed": 1, "total": 2,
            "language": "python", "code": code, "cases": []}


def test_the_coding_round_asks_one_code_question_per_revision() -> None:
    round_, state = _coding_state()
    assert state.coding_problem["input_format"] == LARGE_N["input_format"]
    quadratic = SNIPPETS["python"]["quadratic"]
    said = Said()
    assert round_.on_result(state, _result("r1", "WA", quadratic), 10, said)
    nested = "You have two nested loops over the array: can you do it in one pass?"
    assert said.spoken[1:] == [nested]
    assert said.events[1]["type"] == "feedback" and said.events[1]["text"] == nested
    # The same code submitted: judged and discussed, but not read again.
    said = Said()
    assert round_.on_result(state, _result("r2", "AC", quadratic), 20, said)
    assert len(said.spoken) == 1
    # A new revision that sorts in its loop: the next question, about that line.
    said = Said()
    assert round_.on_result(state, _result("r3", "WA", SNIPPETS["python"]["sort_in_loop"]),
                            30, said)
    assert len(said.spoken) == 2 and said.spoken[1].startswith("You sort inside a loop, on line 8")
    # A question is never asked twice: the same loops again get the next question, then none.
    single = "What does your code do when the array has a single element?"
    for sub, code, expected in (("r4", quadratic + "\n", [single]),
                                ("r5", quadratic + "\n\n", [])):
        said = Said()
        assert round_.on_result(state, _result(sub, "WA", code), 40, said)
        assert said.spoken[1:] == expected
    asked = [a.get("code_question") for a in state.coding_attempts]
    assert asked[:2] == [nested, None] and asked[4] is None


def test_no_code_question_after_a_crash_or_a_compile_error() -> None:
    round_, state = _coding_state()
    for sub, verdict in (("r1", "RE"), ("r2", "CE"), ("r3", "TLE")):
        said = Said()
        code = SNIPPETS["python"]["quadratic"] + f"# {sub}\n"
        assert round_.on_result(state, _result(sub, verdict, code), 10, said)
        assert len(said.spoken) == 1
