"""Every bank problem is proven: a reference in two languages gets AC, a wrong solution WA,
a naive one (right answers, wrong complexity) TLE on the performance tier. bubblewrap."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from judge.backends.base import SandboxBackend
from judge.models import Verdict
from judge.problems import ProblemRegistry, validate_problem_files
from judge.tiered_run import judge_code

from .conftest import BANK

PROBLEM_IDS = sorted(p.name for p in (BANK / "problems").iterdir() if p.is_dir())


def test_bank_is_valid_and_large_enough(registry: ProblemRegistry) -> None:
    assert validate_problem_files(BANK) == []
    assert len(registry.problems) >= 24
    levels = {p.difficulty for p in registry.problems.values()}
    assert levels == {"easy", "medium", "hard"}


def solution(problem_id: str, name: str) -> str:
    return (BANK / "problems" / problem_id / "solutions" / name).read_text()


@pytest.mark.slow
@pytest.mark.parametrize("problem_id", PROBLEM_IDS)
async def test_problem_is_proven(problem_id: str, registry: ProblemRegistry,
                                 bwrap: SandboxBackend) -> None:
    problem = registry.get(problem_id)
    assert problem is not None
    # The four runs are independent: judge them side by side (verdicts use CPU time).
    runs = [("python", "reference.py"), ("cpp", "reference.cpp"), ("python", "wrong.py"),
            ("python", "naive.py")]
    py_ref, cpp_ref, wrong, naive = await asyncio.gather(*(
        judge_code(problem, language, solution(problem_id, name), "submit", bwrap)
        for language, name in runs))
    for language, outcome in (("python", py_ref), ("cpp", cpp_ref)):
        failing = [(c.id, c.verdict, c.error) for c in outcome.cases if c.verdict != Verdict.AC]
        assert outcome.verdict == Verdict.AC, (language, outcome.compile.message, failing)
        assert outcome.passed == outcome.total >= 14
        assert {c.kind for c in outcome.cases} == {"sample", "hidden", "performance"}
    assert wrong.verdict == Verdict.WA, [(c.id, c.verdict, c.error) for c in wrong.cases]
    assert naive.verdict == Verdict.TLE, [(c.id, c.verdict, c.error) for c in naive.cases]
    # Right answers, wrong complexity: the samples pass, a larger tier times out.
    assert all(c.verdict == Verdict.AC for c in naive.cases if c.kind == "sample")
    assert naive.cases[-1].kind != "sample"


def test_templates_cover_all_languages(registry: ProblemRegistry) -> None:
    for problem in registry.problems.values():
        assert set(problem.templates) == {"python", "c", "cpp", "java", "go", "javascript"}
        public = problem.public()
        assert "tests" not in public and "assessment_points" not in public
        assert len(public["samples"]) >= 3


def test_bank_validation_reports_faults(tmp_path: Path) -> None:
    (tmp_path / "problems" / "bad").mkdir(parents=True)
    (tmp_path / "problems" / "bad" / "problem.yaml").write_text(
        "id: bad\ntitle: x\nstatement: y\ntests:\n  - {kind: sample, input: '1'}\n")
    errors = validate_problem_files(tmp_path)
    assert errors and "needs `input` and `output`" in errors[0]
