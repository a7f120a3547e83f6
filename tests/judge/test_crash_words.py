"""A crash, a wrong answer and a compile error in the interviewer's words, from real runs in
the sandbox (bubblewrap): the exception or signal, the candidate's own line and its text."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.code_evidence import sentence_count
from agents.coding_round import CodingRound
from bench.crash_programs import CRASHES, RECURSIONS, names_crash
from judge.backends.base import SandboxBackend
from judge.models import SubmissionResult
from judge.problems import load_problem
from judge.tiered_run import judge_code

from .conftest import write_problem

pytestmark = pytest.mark.slow
ROUND = CodingRound()

COMPILE_ERRORS = {
    "python": ("x = 1\ndef f(:\n  pass\n", 2, "invalid syntax"),
    "c": ("int main(void){\n int x = 1\n return 0;}\n", 3, "before ‘return’"),
    "cpp": ("int main(){\n  int x = y;\n}\n", 2, "‘y’ was not declared"),
    "java": ("public class Main {\n public static void main(String[] a) {\n  int x = \n }\n}\n",
             4, "illegal start of expression"),
    "go": ("package main\nfunc main() {\n\tx := 1\n}\n", 3, "declared but not used"),
    "javascript": ("let x = ;\n", 1, "Unexpected token"),
}


@pytest.fixture
def problem(tmp_path: Path):
    return load_problem(write_problem(tmp_path, [
        ("sample", "1 2\n", "3\n"), ("sample", "2 2\n", "4\n"),
        ("hidden", "40 2\n", "42\n")], time_ms=1000, memory_mb=64))


async def spoken(problem, language: str, code: str, bwrap: SandboxBackend,
                 kind: str = "run") -> tuple[SubmissionResult, str]:
    outcome = await judge_code(problem, language, code, kind, bwrap)  # type: ignore[arg-type]
    result = SubmissionResult(submission_id="s1", problem_id=problem.id, language=language,
                              kind=kind, status="done", verdict=outcome.verdict,  # type: ignore[arg-type]
                              passed=outcome.passed, total=outcome.total,
                              compile=outcome.compile, cases=outcome.cases, code=code)
    _, text = ROUND.feedback(result.public_view(), kind, {"input_format": "First line a b"})
    assert sentence_count(text) <= 2, text
    assert "\\n" not in text and "sample-" not in text and "yours was" not in text, text
    return result, text


@pytest.fixture
def roomy_problem(tmp_path: Path):
    """The bank's memory limit (256 MB): a runaway recursion's stack has room to overflow."""
    return load_problem(write_problem(tmp_path, [
        ("sample", "1 2\n", "3\n"), ("sample", "2 2\n", "4\n")], time_ms=1000, memory_mb=256))


@pytest.mark.parametrize("language", sorted(RECURSIONS))
async def test_a_runaway_recursion_is_a_stack_overflow_on_its_line(
        language: str, bwrap: SandboxBackend, roomy_problem) -> None:
    # Before the stack limits, Java, Go, C and C++ met the memory limit first: "uses too
    # much memory", and no line.
    code, named, sites = RECURSIONS[language]
    result, text = await spoken(roomy_problem, language, code, bwrap)
    assert result.verdict == "RE", text
    assert names_crash(text, named, sites), text


@pytest.mark.parametrize("language", sorted(CRASHES))
async def test_a_crash_is_named_with_the_candidates_line(language: str,
                                                         bwrap: SandboxBackend, problem) -> None:
    code, named, line, source = CRASHES[language]
    result, text = await spoken(problem, language, code, bwrap)
    assert result.verdict == "RE"
    assert names_crash(text, named, ((line, source),)), text
    assert text.startswith("0 of 2 samples pass. Sample 1 crashes with"), text


@pytest.mark.parametrize(("returned", "status"), [(200, 200), (-1, 255)])
async def test_an_exit_status_past_the_signals_is_not_called_a_signal(
        returned: int, status: int, bwrap: SandboxBackend, problem) -> None:
    # bwrap reports signal N as 128+N; "return 200;" was heard as "signal 72" and
    # "return -1;" (255) as signal 127. Signals stop at 64.
    code = f"int main(void) {{ return {returned}; }}\n"
    result, text = await spoken(problem, "c", code, bwrap)
    case = result.cases[0]
    assert result.verdict == "RE" and case.exit_code == status and case.signal is None, case
    assert f"exit code {status}" in text and "signal" not in text.lower(), text


@pytest.mark.parametrize("language", sorted(COMPILE_ERRORS))
async def test_a_compile_error_names_the_compilers_first_message_and_line(
        language: str, bwrap: SandboxBackend, problem) -> None:
    code, line, words = COMPILE_ERRORS[language]
    result, text = await spoken(problem, language, code, bwrap)
    assert result.verdict == "CE"
    assert text.startswith(f"It does not compile: line {line}, ") and words in text, text


async def test_a_wrong_sample_names_its_first_differing_line(bwrap: SandboxBackend,
                                                             problem) -> None:
    code = "a, b = map(int, input().split())\nprint(a + b if a == 1 else a * b + 1)\n"
    _, text = await spoken(problem, "python", code, bwrap)
    assert text == "1 of 2 samples pass. On sample 2, the output: you print 5, expected 4."


async def test_a_hidden_failure_names_size_and_verdict_only(bwrap: SandboxBackend,
                                                            problem) -> None:
    code = "a, b = map(int, input().split())\nprint(a + b if a < 10 else 1 // 0)\n"
    result, text = await spoken(problem, "python", code, bwrap, kind="submit")
    assert result.cases[-1].fault is not None  # the reviewer's view knows the crash site…
    assert text == ("2 of 3 tests pass. A hidden test with a = 40 crashes: which input "
                    "could break it?")  # …the candidate hears its size and verdict only
    assert "ZeroDivisionError" not in str(result.public_view())


@pytest.mark.docker
@pytest.mark.parametrize("language", ["c", "cpp"])
async def test_the_sanitizer_line_on_docker_too(language: str, docker: SandboxBackend,
                                                problem) -> None:
    code, named, line, source = CRASHES[language]
    _, text = await spoken(problem, language, code, docker)
    assert names_crash(text, named, ((line, source),)), text
