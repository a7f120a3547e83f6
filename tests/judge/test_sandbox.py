"""Every language compiles and runs on each backend; each verdict comes from a real run."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.backends.base import SandboxBackend
from judge.languages import EXECUTORS, LANGUAGES
from judge.models import Verdict
from judge.problems import load_problem
from judge.tiered_run import judge_code

from .conftest import write_problem

pytestmark = pytest.mark.slow


@pytest.fixture
def sum_problem(tmp_path: Path):
    return load_problem(write_problem(tmp_path, [
        ("sample", "1 2\n", "hello 3\n"), ("hidden", "40 2\n", "hello 42\n"),
        ("performance", "-5 5\n", "hello 0\n")], time_ms=1000, memory_mb=64))


@pytest.mark.parametrize("language", LANGUAGES)
async def test_language_self_test(language: str, backend: SandboxBackend, sum_problem) -> None:
    outcome = await judge_code(sum_problem, language, EXECUTORS[language].self_test, "submit",
                               backend)
    assert outcome.compile.ok, outcome.compile.log
    assert outcome.verdict == Verdict.AC, [(c.id, c.verdict, c.error) for c in outcome.cases]
    assert outcome.passed == outcome.total == 3
    assert outcome.image and outcome.backend == backend.name
    assert all(c.time_ms >= 0 and c.memory_kb > 0 for c in outcome.cases)


async def test_run_judges_samples_only(backend: SandboxBackend, sum_problem) -> None:
    outcome = await judge_code(sum_problem, "python", EXECUTORS["python"].self_test, "run",
                               backend)
    assert outcome.total == 1 and [c.kind for c in outcome.cases] == ["sample"]


CASES = {
    "WA": ("python", "print('hello', 0)\n"),
    "RE": ("python", "raise SystemExit(3)\n"),
    "CE": ("cpp", "int main() { return 0 }\n"),
    "TLE": ("c", "int main(void){ volatile unsigned long x = 0; for(;;) x++; }\n"),
    "MLE": ("python", "a = []\nwhile True:\n    a.append(bytearray(8 << 20))\n"),
    "OLE": ("python", "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"),
}


@pytest.mark.parametrize("expected", sorted(CASES))
async def test_verdicts(expected: str, backend: SandboxBackend, sum_problem) -> None:
    language, code = CASES[expected]
    outcome = await judge_code(sum_problem, language, code, "submit", backend)
    assert outcome.verdict == Verdict(expected), (outcome.compile, outcome.cases)
    if expected == "CE":
        assert not outcome.compile.ok and outcome.compile.line == 1
        assert "expected" in (outcome.compile.message or "")
        assert outcome.cases == []
    else:
        # a failing sample tier stops the run: hidden and performance are skipped
        assert [c.kind for c in outcome.cases] == ["sample"]
        assert outcome.total == 3 and outcome.passed == 0


async def test_python_syntax_error_is_ce_with_line(backend: SandboxBackend, sum_problem) -> None:
    outcome = await judge_code(sum_problem, "python", "x = 1\ndef f(:\n    pass\n", "submit",
                               backend)
    assert outcome.verdict == Verdict.CE
    assert outcome.compile.line == 2, outcome.compile.log


async def test_manual_problems_compile_but_do_not_run(bwrap: SandboxBackend,
                                                      tmp_path: Path) -> None:
    path = write_problem(tmp_path, [("sample", "1 2\n", "3\n")])
    path.write_text(path.read_text() + "execution: manual\n")
    problem = load_problem(path)
    outcome = await judge_code(problem, "python", "print(1)\n", "submit", bwrap)
    assert outcome.compile.ok and outcome.cases == [] and outcome.verdict is None
    broken = await judge_code(problem, "python", "print(\n", "submit", bwrap)
    assert broken.verdict == Verdict.CE


@pytest.mark.docker
async def test_docker_warm_pool(docker: SandboxBackend, sum_problem) -> None:
    from judge.backends.docker_engine import DockerBackend

    pooled = DockerBackend(pool_size=1)
    try:
        for _ in range(3):  # warm (or cold while the pool refills): same verdicts either way
            outcome = await judge_code(sum_problem, "python", EXECUTORS["python"].self_test,
                                       "submit", pooled)
            assert outcome.verdict == Verdict.AC and outcome.passed == 3
        wrong = await judge_code(sum_problem, "cpp", "int main(){return 1;}\n", "submit", pooled)
        assert wrong.verdict == Verdict.RE
    finally:
        await pooled.aclose()


async def test_a_stdin_feeder_that_loses_its_cancel_does_not_hang_the_run(
        bwrap: SandboxBackend, sum_problem, monkeypatch: pytest.MonkeyPatch) -> None:
    """A program that never reads its input leaves the feeder in drain(); its cancel can be
    lost there, and the run must still end."""
    from judge.backends import bubblewrap
    from tests.lost_cancel import StuckCall, finishes

    stuck = StuckCall()
    monkeypatch.setattr(bubblewrap, "feed_stdin", stuck)
    running = await finishes(judge_code(sum_problem, "python", 'print("hello 3")\n', "run",
                                        bwrap), 30)  # a re-cancel comes after 2 s
    assert running is not None and stuck.lost == 1
    assert running.result().verdict == Verdict.AC
