"""``viva judge run --problem ID|PATH --language LANG FILE``: one JSON result on stdout."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from pathlib import Path

from judge.backends.base import SandboxUnavailable
from judge.backends.selection import select_backend
from judge.evidence import diff_against, evidence_text
from judge.languages import LANGUAGES
from judge.models import SubmissionResult
from judge.problems import ProblemError, ProblemRegistry
from judge.settings import JudgeSettings
from judge.tiered_run import judge_code


async def _run(args: argparse.Namespace, settings: JudgeSettings) -> int:
    try:
        registry = ProblemRegistry.from_bank(settings.bank_dir, settings.cache_dir)
        problem = registry.find(args.problem)
    except ProblemError as exc:
        print(f"viva judge: {exc}", file=sys.stderr)
        return 2
    code = await asyncio.to_thread(Path(args.file).read_text)
    try:
        # One run: no warm pool.
        backend = await select_backend(settings, choice=args.backend, docker_pool=0)
    except SandboxUnavailable as exc:
        print(f"viva judge: {exc}", file=sys.stderr)
        return 3
    started = int(time.time() * 1000)
    try:
        outcome = await judge_code(problem, args.language, code, args.kind, backend)
    finally:
        await backend.aclose()
    result = SubmissionResult(
        submission_id=uuid.uuid4().hex, problem_id=problem.id, language=args.language,
        kind=args.kind, status="done", verdict=outcome.verdict, passed=outcome.passed,
        total=outcome.total, compile=outcome.compile, cases=outcome.cases, image=outcome.image,
        backend=outcome.backend, code=code, created_ms=started, error=outcome.error,
        finished_ms=int(time.time() * 1000), execution=problem.execution,
    )
    result.diff, summary = diff_against(None, result)
    result.diff_summary = summary
    result.evidence_text = evidence_text(result, reveal_hidden=True)
    print(json.dumps(result.model_dump(mode="json")))
    return 0


def main(argv: list[str], settings: JudgeSettings | None = None) -> int:
    """``settings``: the judge section of the server's settings (``viva judge`` passes it)."""
    parser = argparse.ArgumentParser(prog="viva judge")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="judge one file against a problem")
    run.add_argument("--problem", required=True, help="bank id or path to a problem YAML")
    run.add_argument("--language", required=True, choices=LANGUAGES)
    run.add_argument("--kind", default="submit", choices=("run", "submit"))
    run.add_argument("--backend", choices=("auto", "docker", "bwrap"), default=None)
    run.add_argument("file")
    args = parser.parse_args(argv)
    return asyncio.run(_run(args, settings or JudgeSettings()))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
