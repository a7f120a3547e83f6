"""The ``viva`` command."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.util
import os
import sys
from pathlib import Path

BENCHES = ("voice", "stt", "judge", "load", "grading", "turns", "code_reading", "coding",
           "coding_voice")


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from server.settings import get_settings, share_reviewer_token, write_development_token

    settings = get_settings()
    try:
        settings.require_reviewer_token()
    except ValueError as exc:
        print(f"viva serve: {exc}", file=sys.stderr)
        return 2
    if share_reviewer_token(settings):
        # Not printed: whatever collects this process's output would keep it.
        print(f"viva serve: development reviewer token (for /review) written to "
              f"{write_development_token(settings)}", file=sys.stderr)
    host = args.host or settings.host
    port = args.port or settings.port
    workers = args.workers or settings.workers
    # No per-message deflate: events are small JSON and audio is PCM, so compressing every
    # frame costs CPU on both ends for little; at 200 sessions it was a cost worth dropping.
    uvicorn.run("server.main:app", host=host, port=port, workers=workers,
                ws_max_size=1 << 20, ws_per_message_deflate=False, backlog=4096,
                log_level=os.environ.get("VIVA_LOG_LEVEL", "info"))
    return 0


def _bank_validate(args: argparse.Namespace) -> int:
    from agents.coding_round import WordingError, wording_for
    from agents.feedback import frame_errors
    from agents.question_bank import BankError, load_question_bank
    from server.settings import get_settings

    bank_dir = Path(args.path) if args.path else get_settings().bank_dir
    errors: list[str] = []
    try:
        bank = load_question_bank(bank_dir)
        print(f"questions: {len(bank)} over {len(bank.topics)} topics")
        errors.extend(frame_errors(bank))  # each point reads as a clause in the feedback
    except BankError as exc:
        errors.append(str(exc))
    try:
        wording_for(bank_dir)
    except WordingError as exc:
        errors.append(str(exc))
    if importlib.util.find_spec("judge.problems") is not None:
        from judge.problems import validate_problem_files

        errors.extend(validate_problem_files(bank_dir))
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    if not errors:
        print("bank ok")
    return 1 if errors else 0


def _report(args: argparse.Namespace) -> int:
    from server.offline import report_command

    return asyncio.run(report_command(args.session_id, args.format))


def _export(args: argparse.Namespace) -> int:
    from server.offline import export_command

    return asyncio.run(export_command(args.session_id, args.out))


def _import(args: argparse.Namespace) -> int:
    from server.offline import import_command

    return import_command(args.source, replace=args.replace)


def _grade(args: argparse.Namespace) -> int:
    from agents.batch_grading import grade_batch_file
    from agents.providers.factory import make_provider
    from server.settings import get_settings

    settings = get_settings()
    provider = make_provider(settings.llm_provider, openai_base_url=settings.openai_base_url,
                             openai_api_key=settings.openai_api_key,
                             openai_model=settings.openai_model,
                             local_model_path=settings.local_model_path)
    return asyncio.run(grade_batch_file(Path(args.batch), provider))


def _schema(args: argparse.Namespace) -> int:
    import json

    from core.events import events_json_schema
    from server.event_types_ts import typescript_from_schema

    schema = events_json_schema()
    if args.typescript:
        sys.stdout.write(typescript_from_schema(schema))
    else:
        print(json.dumps(schema, indent=2))
    return 0


def _bench(rest: list[str]) -> int:
    if not rest or rest[0] not in BENCHES:
        print(f"usage: viva bench {{{','.join(BENCHES)}}} [--json]", file=sys.stderr)
        return 2
    module = importlib.import_module(f"bench.{rest[0]}")
    code: int = module.main(rest[1:])
    return code


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    # Subcommands owned by other packages take their own arguments.
    if argv[:1] == ["bench"]:
        return _bench(argv[1:])
    if argv[:1] == ["judge"]:
        from judge.cli import main as judge_main
        from server.settings import get_settings

        return int(judge_main(argv[1:], get_settings().judge))
    if argv[:1] == ["worker"]:
        from judge.worker import main as worker_main
        from server.settings import get_settings

        return int(worker_main(argv[1:], get_settings().judge))
    parser = argparse.ArgumentParser(prog="viva", description="Viva mock interviewer")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the web app and API")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.add_argument("--workers", type=int)
    serve.set_defaults(func=_serve)
    sub.add_parser("worker", help="run a judge worker")
    sub.add_parser("judge", help="judge a file: viva judge run --problem ID --language L FILE")
    sub.add_parser("bench", help=f"benchmarks: {', '.join(BENCHES)}")
    bank = sub.add_parser("bank", help="question bank tools")
    bank_sub = bank.add_subparsers(dest="bank_command", required=True)
    validate = bank_sub.add_parser("validate", help="validate bank files")
    validate.add_argument("path", nargs="?")
    validate.set_defaults(func=_bank_validate)
    report = sub.add_parser("report", help="print a session report")
    report.add_argument("session_id")
    report.add_argument("--format", choices=["json", "html", "vtt"], default="json")
    report.set_defaults(func=_report)
    schema = sub.add_parser("schema", help="print a wire schema: viva schema events")
    schema.add_argument("name", choices=["events"])
    schema.add_argument("--typescript", action="store_true",
                        help="TypeScript declarations (web/src/shared/events.gen.ts) instead")
    schema.set_defaults(func=_schema)
    export = sub.add_parser("export", help="write a session's archive (.tar.gz or folder)")
    export.add_argument("session_id")
    export.add_argument("--out", help="FILE.tar.gz or a folder (default viva-ID.tar.gz)")
    export.set_defaults(func=_export)
    imp = sub.add_parser("import", help="read an exported archive into VIVA_DATA_DIR")
    imp.add_argument("source", help="an exported .tar.gz or folder")
    imp.add_argument("--replace", action="store_true",
                     help="overwrite a session that is live or already archived (its token "
                          "stays the one it had)")
    imp.set_defaults(func=_import)
    grade = sub.add_parser("grade", help="grade answers: --batch FILE.jsonl")
    grade.add_argument("--batch", required=True)
    grade.set_defaults(func=_grade)
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    raise SystemExit(main())


