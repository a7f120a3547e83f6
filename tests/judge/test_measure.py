"""Measured complexity: the growth exponent from real timed runs in the sandbox."""

from __future__ import annotations

from typing import get_args

import pytest

from agents.code_reading import read_code
from agents.coding_talk import has_log_factor, measured_class
from agents.complexity import CLASSES
from judge.backends.base import SandboxBackend
from judge.measure import fit, ladder
from judge.problems import ComplexityClass, ProblemRegistry


def test_the_judge_and_the_agents_name_the_same_classes() -> None:
    assert get_args(ComplexityClass) == CLASSES


def test_fit_reads_the_slope_above_the_startup_time() -> None:
    linear = [(n, 30 + n // 1000) for n in (1000, 2000, 4000, 8000, 16000, 32000, 64000)]
    quadratic = [(n, 30 + n * n // 10**5) for n in (250, 500, 1000, 2000, 4000)]
    assert fit(linear)[0] == pytest.approx(1.0, abs=0.05)
    assert fit(quadratic)[0] == pytest.approx(2.0, abs=0.1)
    assert fit([(n, 30) for n in (10, 20, 40, 80)]) == (None, "too_fast")


def test_the_ladder_grows_the_varied_parameters_together(registry: ProblemRegistry) -> None:
    problem = registry.get("range-sum-queries")
    assert problem is not None
    sizes = ladder(problem)
    assert sizes[-1][1]["n"] == sizes[-1][1]["q"] == 100000 and sizes[-1][1]["wide"] is True
    assert [n for n, _ in sizes] == sorted({n for n, _ in sizes}) and sizes[0][0] < 50


def test_a_fast_solution_is_timed_past_the_largest_input_while_it_stays_small(
        registry: ProblemRegistry) -> None:
    from judge.measure import BEYOND_MAX_BYTES, _beyond

    problem = registry.get("max-subarray-sum")
    assert problem is not None and problem.measure is not None
    largest = problem.measure.generate["n"]
    beyond = _beyond(problem)
    assert list(beyond) == [largest * 2, largest * 4]  # 8x would pass the byte cap
    assert all(len(data) <= BEYOND_MAX_BYTES for data in beyond.values())
    assert [int(data.split()[0]) for data in beyond.values()] == list(beyond)


@pytest.mark.slow
async def test_a_quadratic_and_a_linear_solution_get_different_classes(
        registry: ProblemRegistry, bwrap: SandboxBackend) -> None:
    from judge.measure import measure

    problem = registry.get("max-subarray-sum")
    assert problem is not None and problem.directory is not None
    classes = {}
    for name in ("reference", "naive"):
        code = (problem.directory / "solutions" / f"{name}.py").read_text()
        measured = await measure(problem, "python", code, bwrap)
        assert measured.status == "measured" and measured.exponent is not None, measured
        classes[name] = measured_class(measured.exponent,
                                       has_log_factor(code, read_code(code, "python")))
    assert classes == {"reference": "n", "naive": "n^2"}


def test_a_solution_of_its_own_class_names_a_file_the_bank_has(
        registry: ProblemRegistry) -> None:
    # A per-file class is a claim about that file: it must exist, and differ from its
    # role's class (otherwise it says nothing). distinct-values' C++ reference sorts.
    own = {p.id: p.measure.solutions for p in registry.problems.values()
           if p.measure is not None and p.measure.solutions}
    assert own.get("distinct-values") == {"reference.cpp": "n log n"}
    for pid, solutions in own.items():
        problem = registry.problems[pid]
        assert problem.directory is not None and problem.measure is not None
        for name, klass in solutions.items():
            assert (problem.directory / "solutions" / name).is_file(), (pid, name)
            role = problem.measure.naive if name.startswith("naive") else \
                problem.measure.reference
            assert klass != role, (pid, name)
