"""The coding round's rules and its authored wording (bank/coding_round.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.coding_round import CodingRound, Said, WordingError, load_wording, wording_for
from agents.state import InterviewState, Phase, SelfRatings, SessionConfig
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


def test_feedback_names_the_failing_sample_with_both_outputs() -> None:
    result = {"verdict": "WA", "passed": 1, "total": 3, "cases": [
        case("s1", "sample", "AC"),
        case("s2", "sample", "WA", expected="3\n", actual="4\n")]}
    kind, text = ROUND.feedback(result, "run")
    assert kind == "correction"
    assert text == ("1 of 3 samples pass. On sample s2, the expected output was '3' but yours "
                    "was '4'. Check the edge cases: empty input, duplicates, negative numbers, "
                    "bounds. Not there yet, but keep going.")


def test_feedback_on_a_hidden_failure_names_no_data() -> None:
    result = {"verdict": "TLE", "passed": 5, "total": 6, "cases": [
        case("s1", "sample", "AC"), case("h1", "hidden", "TLE")]}
    kind, text = ROUND.feedback(result, "submit")
    assert kind == "guidance"
    assert "A hidden test failed with TLE." in text and "5 of 6 tests pass." in text


@pytest.mark.parametrize(("kind", "words"), [
    ("run", "All 2 samples pass. Submit when you are confident"),
    ("submit", "All 2 tests pass, including the hidden and performance ones."),
])
def test_accepted(kind: str, words: str) -> None:
    said_kind, text = ROUND.feedback({"verdict": "AC", "passed": 2, "total": 2}, kind)
    assert said_kind == "comment" and text.startswith(words)


def test_compile_error_quotes_the_first_log_line() -> None:
    kind, text = ROUND.feedback({"verdict": "CE", "compile": {
        "ok": False, "log": "main.c:3: error: expected ';'\nmore"}}, "run")
    assert kind == "correction" and "main.c:3: error: expected ';'. Fix that line" in text


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
