"""The FastAPI application: lifespan wiring, routers, error envelope, health."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import logging
import threading
from collections.abc import AsyncIterator
from typing import Any

import redis.asyncio as aioredis
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from agents.coding_hints import IdleClock, MonotonicIdleClock
from agents.coding_round import CodingRound, wording_for
from agents.engine import InterviewEngine
from agents.orchestrator import Limits
from agents.providers.factory import make_provider
from agents.question_bank import load_question_bank
from realtime.recording_writer import RecordingWriter
from server import log_redaction
from server.archive import Archiver
from server.body_limit import BodyLimit
from server.errors import install_error_handlers
from server.ip_limits import ClientIpLimits
from server.metrics import Metrics
from server.settings import Settings, get_settings
from server.tickets import TicketLinks
from server.voice_loader import VoiceLoader
from store.event_fanout import EventFanout
from store.redis_pool import reader_client, request_client

log = logging.getLogger("viva")


class JudgeCoding:
    """Adapts the judge service to the engine's ``CodingPort``."""

    def __init__(self, judge: Any):
        self.judge = judge

    async def pick_problem(self, difficulty: str, exclude: list[str]) -> dict[str, Any] | None:
        task: dict[str, Any] | None = await self.judge.pick_problem(difficulty, exclude)
        if task is None:
            return None
        # The hint ladder and the assessment points travel to the engine's state only (never
        # in the coding_task event).
        problem = self.judge.problem(task["problem_id"])
        return {**task, "hints": list(problem.hints),
                "points": [{"id": p.id, "text": p.text} for p in problem.assessment_points]}


async def _start_judge(app: FastAPI, settings: Settings, redis: aioredis.Redis) -> Any:
    if not settings.judge_enabled:
        return None
    try:
        from judge.service import JudgeService
    except ImportError as exc:  # the judge package is optional for text-only deployments
        log.warning("judge unavailable: %s", exc)
        return None
    judge = await JudgeService.create(settings=settings.judge, redis=redis,
                                      start_worker=settings.judge_in_process_worker)
    return judge


def create_app(settings: Settings | None = None, *, preload_voice: bool = False,
               idle_clock: IdleClock | None = None) -> FastAPI:
    """``idle_clock``: the clock of the coding round's idle hint (tests step it)."""
    settings = settings or get_settings()
    settings.require_reviewer_token()
    log_redaction.install()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        # Requests share a pool that waits for a free connection; the one blocking reader
        # of every session stream has its own connection (see store/redis_pool.py).
        redis = request_client(settings.redis_url, size=settings.redis_pool_size,
                               timeout=settings.redis_pool_timeout_s)
        fanout = EventFanout(reader_client(settings.redis_url),
                             redis, block_ms=settings.fanout_block_ms,
                             max_events=settings.fanout_buffer_events)
        await fanout.start()
        bank = load_question_bank(settings.bank_dir)
        provider = make_provider(settings.llm_provider,
                                 openai_base_url=settings.openai_base_url,
                                 openai_api_key=settings.openai_api_key,
                                 openai_model=settings.openai_model,
                                 local_model_path=settings.local_model_path)
        judge = await _start_judge(app, settings, redis)
        engine = InterviewEngine(
            redis, bank, provider,
            limits=Limits(max_followup_depth=settings.max_followup_depth,
                          low_score_threshold=settings.low_score_threshold,
                          low_score_streak=settings.low_score_streak,
                          session_seconds=settings.session_minutes * 60),
            coding=JudgeCoding(judge) if judge is not None else None,
            coding_round=CodingRound(wording_for(settings.bank_dir)))
        for store in (engine.events, engine.states):
            store.max_events = settings.max_session_events
            store.idle_ttl_ms = int(settings.session_idle_ttl_hours * 3_600_000)
        voice_loader = VoiceLoader(settings, prewarm_texts=[
            text for q in bank.questions.values()
            for text in (q.text, *(f.text for f in q.followups))])
        app.state.settings = settings
        app.state.redis = redis
        app.state.fanout = fanout
        app.state.bank = bank
        app.state.provider = provider
        app.state.engine = engine
        app.state.judge = judge
        app.state.voice_loader = voice_loader
        writer = (RecordingWriter(settings.data_dir, settings.recording_format)
                  if settings.record_audio else None)
        app.state.recording_writer = writer
        app.state.archiver = Archiver(redis, engine, settings, writer)
        app.state.archiver.start()
        if preload_voice or settings.voice_preload:
            voice_loader.start()
        # The grader's models and bank index load in the background; an answer that comes
        # first waits for them (a second or so), later ones never do.
        warm = threading.Thread(target=engine.evaluator.warm, name="grader-warm", daemon=True)
        warm.start()
        try:
            yield
        finally:
            # A short-lived app (a test) must not exit while the thread is inside
            # onnxruntime's loader: the process would abort ("terminate called ...").
            await asyncio.to_thread(warm.join, 60)
            await app.state.archiver.aclose()
            if writer is not None:
                await writer.aclose()
            await voice_loader.aclose()
            if judge is not None:
                await judge.aclose()
            await provider.aclose()
            await fanout.aclose()
            await redis.aclose()

    # The API's own pages (/docs, /openapi.json) map every route for whoever asks: only a
    # development server serves them. The contract is shared/design/contract.md.
    docs = settings.env == "development"
    app = FastAPI(title="Viva", version="0.1.0", lifespan=lifespan,
                  docs_url="/docs" if docs else None, redoc_url=None,
                  openapi_url="/openapi.json" if docs else None)
    app.add_middleware(TicketLinks)
    app.add_middleware(BodyLimit, max_bytes=settings.max_http_body_bytes)
    # Added last = outermost: a client over its per-IP budget costs nothing further.
    app.add_middleware(ClientIpLimits, settings=settings)
    app.state.settings = settings
    app.state.metrics = Metrics()
    app.state.idle_clock = idle_clock or MonotonicIdleClock()
    install_error_handlers(app)

    from server.metrics import router as metrics_router
    from server.routes import schema, sessions
    from server.ws import router as ws_router

    app.include_router(sessions.router)
    app.include_router(schema.router)
    app.include_router(ws_router)
    app.include_router(metrics_router)
    for name in ("judge_routes", "audio_routes", "practice", "progress", "pages"):
        # Routers of optional parts: included when the module exists; its errors surface.
        if importlib.util.find_spec(f"server.routes.{name}") is not None:
            module = importlib.import_module(f"server.routes.{name}")
            app.include_router(module.router)

    @app.get("/healthz")
    async def healthz(request: Request) -> JSONResponse:
        state = request.app.state
        body: dict[str, Any] = {"status": "ok"}
        try:
            await state.redis.ping()
            body["redis"] = "ok"
        except Exception as exc:
            body["redis"] = f"down: {exc}"
            body["status"] = "degraded"
        fanout = state.fanout
        body["event_reader"] = ("ok" if fanout.healthy else "starting"
                                if fanout.last_error is None else f"down: {fanout.last_error}")
        judge = getattr(state, "judge", None)
        body["judge_backend"] = judge.backend_name if judge is not None else "none"
        voice = state.voice_loader.status()
        body["stt"], body["tts"] = voice.get("stt", "unknown"), voice.get("tts", "unknown")
        body["llm"] = state.provider.status()
        body["questions"] = len(state.bank)
        if judge is not None and judge.worker is None:
            # Judging by separate `viva worker` processes (docker-compose): count them.
            try:
                body["judge_workers"] = await judge.queue.live_consumers()
            except Exception as exc:
                body["judge_workers"] = f"unknown: {exc}"
        if body["judge_backend"] == "none" and not body.get("judge_workers"):
            body["status"] = "degraded"
        return JSONResponse(body, status_code=200 if body["redis"] == "ok" else 503)

    return app
