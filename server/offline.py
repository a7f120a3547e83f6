"""``viva report``, ``viva export``, ``viva import``: a session from Redis or its archive,
no server needed."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import redis
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisDown

from agents.engine import InterviewEngine, InterviewError
from agents.providers.rubric import RubricProvider
from agents.question_bank import load_question_bank
from server.archive import Archiver
from server.archive_import import LiveSession, import_archive
from server.archived_session import export_archive, load_archive, stored_token_digest
from server.recording import code_revisions, render_report_html, webvtt
from server.report_view import report_view
from server.settings import get_settings
from store import keys
from store.recordings import RecordingStore


async def report_command(session_id: str, fmt: str) -> int:
    settings = get_settings()
    redis = aioredis.Redis.from_url(settings.redis_url, decode_responses=True)
    try:
        engine = InterviewEngine(redis, load_question_bank(settings.bank_dir), RubricProvider())
        try:
            report = await engine.report(session_id)
        except InterviewError as exc:
            archived = load_archive(settings.data_dir, session_id)
            if archived is None:
                print(f"error: {exc.message} (and no archive in {settings.data_dir})",
                      file=sys.stderr)
                return 1
            import json

            print(json.dumps(archived.report(), indent=2) if fmt == "json" else
                  archived.report_html() if fmt == "html" else archived.transcript_vtt())
            return 0
        events = await engine.events.range(session_id, 0)
        recordings = RecordingStore(settings.data_dir).entries(session_id)
        revisions = code_revisions(events)
        report = report_view(report, events, recordings, revisions)
        if fmt == "json":
            print(report.model_dump_json(indent=2))
        elif fmt == "html":
            print(render_report_html(report, revisions))
        else:
            print(webvtt(events, recordings))
        return 0
    finally:
        await redis.aclose()


async def export_command(session_id: str, out: str | None) -> int:
    """Archive from Redis when it still has the session (fresh), then write the export."""
    settings = get_settings()
    redis = aioredis.Redis.from_url(settings.redis_url, decode_responses=True)
    try:
        engine = InterviewEngine(redis, load_question_bank(settings.bank_dir), RubricProvider())
        try:
            await Archiver(redis, engine, settings).archive(session_id)
        except (OSError, RedisDown) as exc:
            # Redis down: the archive on disk may still do.
            print(f"warning: could not refresh from Redis ({exc})", file=sys.stderr)
    finally:
        await redis.aclose()
    dest = Path(out) if out else Path(f"viva-{session_id}.tar.gz")
    try:
        written = export_archive(settings.data_dir, session_id, dest)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(written)
    return 0


def live_session_lookup(redis_url: str) -> Callable[[str], LiveSession | None]:
    """Whether Redis has a session (its state or meta key), and its token hash."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)

    def lookup(session_id: str) -> LiveSession | None:
        if not client.exists(keys.session_state(session_id), keys.session_meta(session_id)):
            return None
        return LiveSession(stored_token_digest(client.hgetall(keys.session_meta(session_id))))
    return lookup


def import_command(source: str, replace: bool = False) -> int:
    settings = get_settings()
    try:
        session_id = import_archive(settings.data_dir, Path(source), replace=replace,
                                    live=live_session_lookup(settings.redis_url))
    except RedisDown as exc:
        # A live session may not be overwritten: without Redis that cannot be checked.
        print(f"error: cannot import {source}: Redis at REDIS_URL is unreachable ({exc}), so "
              "whether the session is live cannot be checked; start Redis and retry",
              file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"error: cannot import {source}: {exc}", file=sys.stderr)
        return 1
    print(session_id)
    return 0
