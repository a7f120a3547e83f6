"""``viva report``: a session's report straight from Redis, no server needed."""

from __future__ import annotations

import sys

import redis.asyncio as aioredis

from agents.engine import InterviewEngine, InterviewError
from agents.providers.rubric import RubricProvider
from agents.question_bank import load_question_bank
from server.recording import render_report_html, webvtt
from server.settings import get_settings


async def report_command(session_id: str, fmt: str) -> int:
    settings = get_settings()
    redis = aioredis.Redis.from_url(settings.redis_url, decode_responses=True)
    try:
        engine = InterviewEngine(redis, load_question_bank(settings.bank_dir), RubricProvider())
        try:
            report = await engine.report(session_id)
        except InterviewError as exc:
            print(f"error: {exc.message}", file=sys.stderr)
            return 1
        if fmt == "json":
            print(report.model_dump_json(indent=2))
        elif fmt == "html":
            print(render_report_html(report))
        else:
            print(webvtt(await engine.events.range(session_id, 0)))
        return 0
    finally:
        await redis.aclose()
