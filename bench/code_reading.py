"""``viva bench code_reading [--json]``: how long reading a submission takes, and what the
reader finds in the bank's own solutions.

Every file is read with ``agents.code_reading.read_code`` (tree-sitter parse + the facts):
the snippets of the reader's tests (``bench/code_snippets.py``, six languages) and each bank
problem's ``solutions/`` (reference, naive and wrong programs). Figures:
- ``grammar_load_ms``: the first read per language (loads its grammar), reported apart;
- ``read_ms_p50`` / ``read_ms_p95`` / ``read_ms_max``: later reads, per file, by set;
- ``naive_nested`` / ``reference_nested``: the share of naive and reference solutions in which
  the reader sees nested loops over the input (naive solutions are mostly quadratic);
- ``follow_up_rate``: the share of files that get at least one follow-up question.
With ``--json`` the last stdout line is one JSON object.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from agents.code_reading import CodeFacts, follow_ups, read_code
from bench.code_snippets import SNIPPETS
from bench.stats import emit, percentile
from judge.problems import bank_problem_paths, default_bank_dir, load_problem

EXTENSIONS = {".py": "python", ".c": "c", ".cpp": "cpp", ".java": "java", ".go": "go",
              ".js": "javascript"}


def _timed(source: str, language: str) -> tuple[CodeFacts, float]:
    started = time.perf_counter()
    facts = read_code(source, language)
    return facts, (time.perf_counter() - started) * 1000


def _ms(values: list[float], q: float) -> float | None:
    value = percentile(values, q)
    return None if value is None else round(value, 3)


def run() -> dict[str, Any]:
    grammar_ms: dict[str, float] = {}
    times: dict[str, list[float]] = {"snippets": [], "bank": []}
    asked = files = 0
    nested: dict[str, list[bool]] = {"naive": [], "reference": []}
    for language, snippets in SNIPPETS.items():
        for source in snippets.values():
            facts, ms = _timed(source, language)
            if language not in grammar_ms:
                grammar_ms[language] = round(ms, 1)
                facts, ms = _timed(source, language)
            times["snippets"].append(ms)
            files += 1
            asked += bool(follow_ups(facts, {}))
    for path in bank_problem_paths(default_bank_dir()):
        problem = load_problem(path)
        public = problem.public()
        for solution in sorted((path.parent / "solutions").glob("*")):
            if solution.suffix not in EXTENSIONS:
                continue
            facts, ms = _timed(solution.read_text(encoding="utf-8"),
                               EXTENSIONS[solution.suffix])
            times["bank"].append(ms)
            files += 1
            asked += bool(follow_ups(facts, public))
            if solution.stem in nested:
                nested[solution.stem].append(facts.inner_loop_over_input)
    result: dict[str, Any] = {"bench": "code_reading", "files": files,
                              "grammar_load_ms": grammar_ms}
    for name, values in times.items():
        result[name] = {"files": len(values), "read_ms_p50": _ms(values, 50),
                        "read_ms_p95": _ms(values, 95),
                        "read_ms_max": round(max(values), 3) if values else None}
    for stem, flags in nested.items():
        result[f"{stem}_nested"] = round(sum(flags) / len(flags), 3) if flags else None
    result["follow_up_rate"] = round(asked / files, 3) if files else None
    return result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="viva bench code_reading")
    parser.add_argument("--json", action="store_true", help="last line: one JSON object")
    args = parser.parse_args(argv)
    result = run()
    emit(result, args.json)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
