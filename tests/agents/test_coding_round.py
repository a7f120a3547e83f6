"""The coding round's rules and its authored wording (bank/coding_round.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.code_evidence import first_difference
from agents.coding_round import CodingRound, Said, WordingError, load_wording, wording_for
from agents.state import InterviewState, Phase, SelfRatings, SessionConfig
from judge.models import InputSize
from server.cli import main as viva
from tests.conftest import ROOT

ROUND = CodingRound()


def case(id_: str, kind: str, verdict: str, **extra: str) -> dict[str, object]:
    return {"id": id_, "kind": kind, "verdict": verdict, "time_ms": 1, "memory_kb": 1, **extra}


def test_the_shipped_wording_loads_and_bank_validate_checks_it(tmp_path: Path) -> None:
    assert load_wording().labels == {"run": "samples", "submit": "tests"}
    (tmp_path / "coding_round.yaml").write_text("intro: only this\n")
    with pytest.raises(WordingError, match="coding_round.yaml"):
        wording_for(tmp_path)
    assert wording_for(ROOT / "bank") == load_wording()
    assert viva(["bank", "validate", str(ROOT / "bank")]) == 0


def test_feedback_names_the_failing_samples_first_differing_line() -> None:
    result = {"verdict": "WA", "passed": 1, "total": 3, "cases": [
        case("sample-1", "sample", "AC"),
        case("sample-2", "sample", "WA", expected="0\n1\n55\n", actual="0\n7\n55\n")]}
    kind, text = ROUND.feedback(result, "run")
    assert kind == "correction"
    assert text == "1 of 3 samples pass. On sample 2, line 2: you print 7, expected 1."


@pytest.mark.parametrize(("expected", "actual", "words"), [
    ("0\n1\n55\n", "", "your program prints nothing; expected 0"),
    ("1\n2\n3\n", "1\n2\n", "your output stops after 2 lines, 3 expected"),
    ("1\n", "1\n1\n", "you print 2 lines, 1 expected"),
    ("9\n", "7\n", "the output: you print 7, expected 9"),
    ("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n", "1 2 3 4 5 6 7 8 9 10 11 12 13 99 15\n",
     "the output, value 14: you print 99, expected 14"),
    ("a\tb\n", "a\x00b\n", "the output: you print a b, expected a b"),
])
def test_first_difference_in_words(expected: str, actual: str, words: str) -> None:
    assert first_difference(expected, actual) == words


def test_feedback_on_a_hidden_failure_names_its_size_and_verdict_only() -> None:
    result = {"verdict": "TLE", "passed": 5, "total": 6, "cases": [
        case("s1", "sample", "AC"),
        {**case("perf-1", "performance", "TLE"),
         "input_size": {"n": 200000, "bytes": 2_000_000, "rounded": True}}]}
    kind, text = ROUND.feedback(result, "submit", {"input_format": "First line t (1 <= t)"})
    assert kind == "guidance"
    assert text == ("5 of 6 tests pass. A performance test with t about 200,000 runs out of "
                    "time: think about a lower time complexity.")


def test_a_hidden_size_is_rounded_in_the_public_view() -> None:
    size = InputSize.of("123456\n" + "1 " * 10)
    assert (size.n, size.public().n, size.public().rounded) == (123456, 120000, True)
    assert InputSize.of("7\n").public() == InputSize(n=7, bytes=2)
    assert InputSize.of("abc\n").n is None


@pytest.mark.parametrize(("kind", "words"), [
    ("run", "All 2 samples pass. Submit when you are confident."),
    ("submit", "All 2 tests pass, including the hidden and performance ones."),
])
def test_accepted(kind: str, words: str) -> None:
    said_kind, text = ROUND.feedback({"verdict": "AC", "passed": 2, "total": 2}, kind)
    assert said_kind == "comment" and text.startswith(words)


def test_compile_error_names_line_and_message() -> None:
    kind, text = ROUND.feedback({"verdict": "CE", "compile": {
        "ok": False, "line": 3, "message": "expected ';' before 'return'",
        "log": "main.c:3:5: error: expected ';' before 'return'\nmore"}}, "run")
    assert kind == "correction"
    assert text.startswith("It does not compile: line 3, expected ';' before 'return'. ")
    _, text = ROUND.feedback({"verdict": "CE", "compile": {"ok": False, "log": ""}}, "run")
    assert "the compiler stopped with an error" in text


def test_a_result_is_discussed_once_and_only_while_coding() -> None:
    state = InterviewState(session_id="s", config=SessionConfig(
        candidate_id="c", role="backend", mode="text",
        self_ratings=SelfRatings(algorithms=3, engineering=3, projects=3)))
    result = {"submission_id": "sub-1", "kind": "run", "verdict": "AC", "passed": 2,
              "total": 2}
    assert not ROUND.on_result(state, result, 0, Said())  # not in the coding phase
    state.phase = Phase.coding
    said = Said()
    assert ROUND.on_result(state, result, 10, said)
    assert said.events[0]["type"] == "feedback" and said.events[0]["submission_id"] == "sub-1"
    assert not ROUND.on_result(state, result, 20, Said())
    assert state.coding_attempts[0]["verdict"] == "AC" and len(state.coding_attempts) == 1
