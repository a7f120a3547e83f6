"""`viva judge run` (minimal YAML and bank ids) and the evidence text format (seed 003 §5.2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.cli import main as judge_main
from judge.evidence import diff_against, evidence_text
from judge.models import CaseResult, CompileResult, SubmissionResult, Verdict

from .conftest import BANK, write_problem


def test_cli_with_minimal_yaml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    problem = write_problem(tmp_path, [("sample", "1 2\n", "3\n"), ("hidden", "-5 5\n", "0\n")])
    source = tmp_path / "Main.java"
    source.write_text("import java.util.*;\npublic class Main { public static void main(String[] a)"
                      " { Scanner s = new Scanner(System.in);"
                      " System.out.println(s.nextInt() + s.nextInt()); } }\n")
    code = judge_main(["run", "--problem", str(problem), "--language", "java", "--backend",
                       "bwrap", str(source)])
    assert code == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["verdict"] == "AC" and result["passed"] == 2 and result["status"] == "done"
    assert result["compile"]["ok"] is True and result["image"].startswith("bwrap")


def test_cli_with_bank_id_reports_wrong_answer(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    wrong = BANK / "problems" / "max-subarray-sum" / "solutions" / "wrong.py"
    code = judge_main(["run", "--problem", "max-subarray-sum", "--language", "python",
                       "--kind", "run", "--backend", "bwrap", str(wrong)])
    assert code == 0  # it ran, whatever the verdict
    result = json.loads(capsys.readouterr().out)
    assert result["verdict"] == "WA" and result["total"] == 3
    assert 'input: "3\\n-3 -1 -2\\n", expected: "-1\\n", actual: "0\\n"' in \
        result["evidence_text"]


def test_cli_unknown_problem(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = tmp_path / "x.py"
    source.write_text("print(1)\n")
    assert judge_main(["run", "--problem", "no-such", "--language", "python", str(source)]) == 2
    assert "no problem 'no-such'" in capsys.readouterr().err


def make_result(**changes: object) -> SubmissionResult:
    base = SubmissionResult(submission_id="x", problem_id="p", language="python", kind="submit",
                            status="done", verdict=Verdict.WA, passed=5, total=8,
                            code="def f(a):\n    return 0\n")
    return base.model_copy(update=changes)


def test_evidence_text_lists_at_most_three_failures() -> None:
    cases = [CaseResult(id=f"hidden-{i}", kind="hidden", verdict=Verdict.WA, time_ms=1,
                        memory_kb=1, input=f"[{i}, -1]", expected="6", actual="3")
             for i in range(5)]
    cases.append(CaseResult(id="sample-1", kind="sample", verdict=Verdict.RE, time_ms=1,
                            memory_kb=1, input="x", expected="y", actual="",
                            error="IndexError: out of range"))
    result = make_result(cases=cases[-1:] + cases)
    text = evidence_text(result, reveal_hidden=True)
    assert text.startswith("[Test Result] Passed: 5/8 Failed: [\n")
    assert text.count("{case:") == 3
    assert '{case: sample-1, input: "x", expected: "y", actual: "", error: ' \
           '"RE: IndexError: out of range"},' in text
    assert text.endswith("Compile: success")
    public = evidence_text(result, reveal_hidden=False)
    assert "[0, -1]" not in public and "input: (hidden)" in public


def test_evidence_compile_failure_names_the_line() -> None:
    result = make_result(verdict=Verdict.CE, passed=0, compile=CompileResult(
        ok=False, line=12, message="unexpected token ;"))
    assert evidence_text(result, reveal_hidden=False).endswith(
        "Compile: failed at line 12: unexpected token ;")


def test_diff_summary() -> None:
    first = make_result(revision=1)
    second = make_result(revision=2, verdict=Verdict.AC, passed=8,
                         code="def f(a):\n    if a < 0:\n        return 0\n    return a\n")
    diff, summary = diff_against(first, second)
    assert diff is not None and "+    if a < 0:" in diff
    assert summary.startswith("+3/-1 lines") and "WA 5/8 -> AC, passed 8/8" in summary
    _, initial = diff_against(None, first)
    assert initial.startswith("initial submission (python)")
