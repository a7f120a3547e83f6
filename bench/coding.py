"""``viva bench coding [--json] [--quick]``: the coding round's words and measurements, from
real runs in the bubblewrap sandbox.

Figures:
- ``crash_named``: the share of crashing programs (``bench/crash_programs.py``: six
  languages, exceptions and signals, lines inside functions) whose spoken result names both
  the right exception or signal and the candidate's line with its text (goal ≥ 0.95), with
  ``crash_misses`` listing what was said instead;
- ``complexity_match``: the share of the bank's accepted solutions (each problem's reference
  in Python and C++, and its naive Python solution where the problem's ``measure`` block
  knows its class) whose measured class (``agents.coding_talk.measured_class`` on the fitted
  exponent) is the known one (goal ≥ 0.90), with ``complexity_misses``; ``too_fast`` counts
  the solutions too quick to time at the largest input (no class: not counted either way);
- ``measure_ms_p50`` / ``measure_ms_p95``: sandbox time of one measurement (goal p95 ≤ 5 s);
- ``claims_dev`` / ``claims_test``: the complexity-claim parser's accuracy on
  ``tests/data/complexity_claims`` (dev: tuned on; test: held out, reported only; goal
  ≥ 0.95).
``--quick``: three problems, the Python reference only. With ``--json`` the last stdout line
is one JSON object.

What this set is not: the programs are ours and the bank's, not submissions collected from a
public judge; the goal asks for those. ``--real`` adds them: the published solutions of
``tests/data/real_submissions`` (``bench/real_submissions.py``; the programs are re-created
from its SOURCES.md, they are not in git), each judged on its bank problem
(``real_verdict_match``: the verdict is the labelled one) and, when accepted, measured
(``real_complexity_match`` against the labelled class, ``real_measure_ms_p95``); a labelled
runtime error's words are checked too (``real_submission_crashes``,
``real_submission_crash_named``). It also runs
``tests/data/real_crashes`` (``bench/real_crashes.py``: people's programs that crash, each on
its input): ``real_crash_programs``, ``real_crash_named``, ``real_crash_misses``.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path
from typing import Any, Literal

from agents.code_reading import read_code
from agents.coding_round import CodingRound
from agents.coding_talk import has_log_factor, measured_class
from agents.complexity import parse_claim
from bench.crash_programs import all_crashes, names_crash, sites_in
from bench.stats import emit, percentile
from judge.backends.base import SandboxBackend
from judge.backends.bubblewrap import BubblewrapBackend
from judge.measure import Measurement, measure
from judge.models import SubmissionResult
from judge.problems import Problem, ProblemRegistry, default_bank_dir
from judge.tiered_run import Outcome, judge_code

ROOT = Path(__file__).resolve().parent.parent
CLAIMS = ROOT / "tests" / "data" / "complexity_claims"
QUICK_PROBLEMS = ("max-subarray-sum", "pair-sum-count", "longest-distinct-run")
LANGUAGE_OF = {".py": "python", ".cpp": "cpp"}


def two_numbers() -> Problem:
    """A problem whose samples feed "1 2" and "2 2": every crash program dies on the first."""
    tests = [{"kind": "sample", "input": "1 2\n", "output": "3\n"},
             {"kind": "sample", "input": "2 2\n", "output": "4\n"},
             {"kind": "hidden", "input": "40 2\n", "output": "42\n"}]
    return Problem.model_validate({"id": "bench-crash", "title": "Sum", "statement": "Sum.",
                                   "limits": {"time_ms": 2000, "memory_mb": 256},
                                   "tests": tests})


def _spoken(problem: Problem, language: str, code: str, outcome: Outcome,
            kind: Literal["run", "submit"], words: CodingRound | None = None) -> str:
    """What the interviewer says about a judged program (its public view only)."""
    result = SubmissionResult(
        submission_id="bench", problem_id=problem.id, language=language, kind=kind,
        status="done", verdict=outcome.verdict, passed=outcome.passed,
        total=outcome.total, compile=outcome.compile, cases=outcome.cases, code=code)
    public = {"title": problem.title, "statement": problem.statement,  # as the round holds it
              "input_format": problem.input_format or "a b"}
    return (words or CodingRound()).feedback(result.public_view(), kind, public)[1]


async def crashes(backend: SandboxBackend) -> dict[str, Any]:
    problem, words = two_numbers(), CodingRound()
    cases = all_crashes()
    named, misses = 0, list[dict[str, Any]]()
    for language, code, exception, sites in cases:
        outcome = await judge_code(problem, language, code, "run", backend)
        text = _spoken(problem, language, code, outcome, "run", words)
        if names_crash(text, exception, sites):
            named += 1
        else:
            misses.append({"language": language,
                           "expected": f"{exception}, line {' or '.join(str(s[0]) for s in sites)}",
                           "verdict": outcome.verdict, "said": text[:200]})
    return {"crash_programs": len(cases), "crash_named": round(named / len(cases), 3),
            "crash_misses": misses}


def _solutions(problem: Problem, quick: bool) -> list[tuple[Path, str]]:
    """(file, the class it is known to have) for the problem's timed solutions."""
    assert problem.measure is not None and problem.directory is not None
    folder = problem.directory / "solutions"
    known = [(folder / "reference.py", problem.measure.reference)]
    if not quick:
        known.append((folder / "reference.cpp", problem.measure.reference))
        if problem.measure.naive is not None:
            known.append((folder / "naive.py", problem.measure.naive))
    own = problem.measure.solutions
    return [(path, own.get(path.name, klass)) for path, klass in known if path.is_file()]


def _classify(measured: Measurement, code: str, language: str) -> str | None:
    if measured.status == "too_fast" or measured.exponent is None:
        return None
    return measured_class(measured.exponent, has_log_factor(code, read_code(code, language)))


async def complexity(backend: SandboxBackend, quick: bool) -> dict[str, Any]:
    registry = ProblemRegistry.from_bank(default_bank_dir())
    problems = [p for p in registry.problems.values() if p.measure is not None]
    if quick:
        problems = [p for p in problems if p.id in QUICK_PROBLEMS]
    matched = classed = too_fast = 0
    sandbox_ms: list[float] = []
    misses: list[dict[str, Any]] = []
    for problem in sorted(problems, key=lambda p: p.id):
        for path, known in _solutions(problem, quick):
            code, language = path.read_text(encoding="utf-8"), LANGUAGE_OF[path.suffix]
            got = await measure(problem, language, code, backend)
            sandbox_ms.append(got.sandbox_ms)
            klass = _classify(got, code, language)
            if klass is None:
                too_fast += got.status == "too_fast"
                if got.status != "too_fast":
                    misses.append({"problem": problem.id, "file": path.name, "known": known,
                                   "status": got.status, "reason": got.reason})
                continue
            classed += 1
            matched += klass == known
            if klass != known:
                misses.append({"problem": problem.id, "file": path.name, "known": known,
                               "measured": klass, "exponent": got.exponent})
    return {"solutions_timed": len(sandbox_ms), "solutions_classed": classed,
            "too_fast": too_fast,
            "complexity_match": round(matched / classed, 3) if classed else None,
            "complexity_misses": misses,
            "measure_ms_p50": percentile(sandbox_ms, 50),
            "measure_ms_p95": percentile(sandbox_ms, 95)}


async def real(backend: SandboxBackend) -> dict[str, Any]:
    """The collected submissions present on disk: verdict as labelled, class as labelled."""
    from bench.real_submissions import files_on_disk, load

    if not files_on_disk():
        return {"real_submissions": 0, "real_note": "no programs on disk: re-create them "
                "from tests/data/real_submissions/SOURCES.md"}
    registry = ProblemRegistry.from_bank(default_bank_dir())
    verdicts = classed = matched = too_fast = crashed = crash_named = 0
    sandbox_ms: list[float] = []
    misses: list[dict[str, Any]] = []
    submissions = load()
    for sub in submissions:
        problem = registry.problems[sub.problem]
        code = sub.path().read_bytes().decode("utf-8")  # as published (CRLF kept)
        outcome = await judge_code(problem, sub.language, code, "submit", backend)
        verdict = outcome.verdict.value if outcome.verdict is not None else None
        verdicts += verdict == sub.expected
        if verdict != sub.expected:
            misses.append({"file": sub.file, "expected": sub.expected, "verdict": verdict,
                           "passed": f"{outcome.passed}/{outcome.total}",
                           "error": outcome.error})
        label = sub.crash_label()
        if label is not None:
            crashed += 1
            said = _spoken(problem, sub.language, code, outcome, "submit")
            if names_crash(said, label[0], sites_in(code, label[1])):
                crash_named += 1
            else:
                misses.append({"file": sub.file, "expected": sub.crash, "said": said[:200]})
        if verdict != "AC" or sub.expected != "AC":
            continue
        got = await measure(problem, sub.language, code, backend)
        sandbox_ms.append(got.sandbox_ms)
        klass = _classify(got, code, sub.language)
        if klass is None:
            too_fast += got.status == "too_fast"
            continue
        classed += 1
        matched += klass == sub.known_class
        if klass != sub.known_class:
            misses.append({"file": sub.file, "known": sub.known_class, "measured": klass,
                           "exponent": got.exponent})
    return {"real_submissions": len(submissions),
            "real_languages": sorted({s.language for s in submissions}),
            "real_verdict_match": round(verdicts / len(submissions), 3),
            "real_submission_crashes": crashed,
            "real_submission_crash_named": round(crash_named / crashed, 3) if crashed else None,
            "real_classed": classed, "real_too_fast": too_fast,
            "real_complexity_match": round(matched / classed, 3) if classed else None,
            "real_measure_ms_p50": percentile(sandbox_ms, 50),
            "real_measure_ms_p95": percentile(sandbox_ms, 95),
            "real_misses": misses}


def one_input(given: str) -> Problem:
    """A problem whose one sample feeds ``given``: how a real crash is run on its input."""
    tests = [{"kind": "sample", "input": given, "output": "?\n"}]
    return Problem.model_validate({"id": "bench-real-crash", "title": "Program",
                                   "statement": "Runs on the given input.",
                                   "limits": {"time_ms": 5000, "memory_mb": 256},
                                   "tests": tests})


async def real_crash_words(backend: SandboxBackend) -> dict[str, Any]:
    """The real-crashes set (``bench/real_crashes.py``), each run on its input: does the
    interviewer name the labelled exception and one of the labelled lines?"""
    from bench.real_crashes import SET_DIR, files_present, load

    if not files_present():
        return {"real_crash_programs": 0, "real_crash_note": "no programs on disk: "
                "scripts/make_real_crashes.py re-creates them"}
    rows = load()
    named, misses = 0, list[dict[str, Any]]()
    for row in rows:
        label = row.label()
        assert label is not None  # load() validated it
        code = (SET_DIR / row.file).read_bytes().decode("utf-8", errors="replace")
        problem = one_input((SET_DIR / row.input).read_text(encoding="utf-8"))
        outcome = await judge_code(problem, row.language, code, "run", backend)
        said = _spoken(problem, row.language, code, outcome, "run")
        if names_crash(said, label[0], sites_in(code, label[1])):
            named += 1
        else:
            misses.append({"file": row.file, "expected": row.crash,
                           "verdict": outcome.verdict, "said": said[:200]})
    return {"real_crash_programs": len(rows),
            "real_crash_languages": sorted({r.language for r in rows}),
            "real_crash_named": round(named / len(rows), 3) if rows else None,
            "real_crash_misses": misses}


def claims(split: str) -> float | None:
    rows = [line.split("\t", 1) for line in (CLAIMS / f"{split}.tsv").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    if not rows:
        return None
    right = sum(parse_claim(text) == (None if klass == "none" else klass)
                for klass, text in rows)
    return round(right / len(rows), 3)


async def run(quick: bool, with_real: bool = False) -> dict[str, Any]:
    backend = BubblewrapBackend()
    status = await backend.status()
    if not status.ok:
        raise SystemExit(f"viva bench coding: the bubblewrap sandbox is unavailable: "
                         f"{status.reason} (run scripts/setup-judge.sh)")
    started = time.monotonic()
    result: dict[str, Any] = {"bench": "coding", "quick": quick,
                              "claims_dev": claims("dev"), "claims_test": claims("test")}
    result.update(await crashes(backend))
    result.update(await complexity(backend, quick))
    if with_real:
        result.update(await real(backend))
        result.update(await real_crash_words(backend))
    result["wall_s"] = round(time.monotonic() - started, 1)
    return result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="viva bench coding")
    parser.add_argument("--json", action="store_true", help="last line: one JSON object")
    parser.add_argument("--quick", action="store_true", help="three problems, Python only")
    parser.add_argument("--real", action="store_true",
                        help="also judge and time the collected public submissions "
                             "(tests/data/real_submissions) and run the real crashes "
                             "(tests/data/real_crashes)")
    args = parser.parse_args(argv)
    result = asyncio.run(run(args.quick, args.real))
    emit(result, args.json)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
