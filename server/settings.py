"""One place for configuration: ``VIVA_*`` environment variables, ``REDIS_URL``, or ``.env``."""

from __future__ import annotations

import secrets
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ROOT = Path(__file__).resolve().parent.parent
PLACEHOLDER_SECRETS = {"", "changeme", "change-me", "secret", "reviewer"}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="VIVA_", env_file=".env", extra="ignore")

    env: Literal["development", "test", "production"] = "development"
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    redis_url: str = Field(
        default="redis://127.0.0.1:6379/0",
        validation_alias=AliasChoices("REDIS_URL", "VIVA_REDIS_URL"),
    )
    data_dir: Path = ROOT / "var"
    bank_dir: Path = ROOT / "bank"
    web_dist: Path = ROOT / "web" / "dist"
    # Redis connections. Requests share a pool of `redis_pool_size` that waits up to
    # `redis_pool_timeout_s` for a free connection (then: 503 server_busy, not "Redis down").
    # Websockets hold none: one reader per process follows every live session's stream.
    redis_pool_size: int = 64
    redis_pool_timeout_s: float = 10.0
    fanout_block_ms: int = 5000
    fanout_buffer_events: int = 256  # per websocket; a slower client re-reads the stream
    # Reviewer bearer token. Generated per process in development; required in production.
    reviewer_token: str = Field(default_factory=lambda: secrets.token_urlsafe(24))

    # Interview engine
    llm_provider: Literal["rubric", "openai", "local"] = "rubric"
    openai_base_url: str | None = None
    openai_api_key: str | None = None
    openai_model: str = "gpt-4o-mini"
    local_model_path: Path | None = None  # a GGUF file for the `local` provider
    max_questions: int = 8
    max_followup_depth: int = 2
    low_score_threshold: float = 0.4
    low_score_streak: int = 2
    session_minutes: int = 45

    # Judge
    judge_backend: Literal["auto", "docker", "bwrap"] = "auto"
    judge_in_process_worker: bool = True
    judge_enabled: bool = True  # off: a concepts-only server with no sandbox

    # Voice
    stt_model: Literal["tiny.en", "base"] = "tiny.en"
    stt_workers: int = 1
    # Load speech models at start-up (in a thread) so the first spoken turn never waits.
    voice_preload: bool = True
    # Then synthesize every bank question into the audio cache (once per machine; skipped in
    # the test environment, where it would only compete for the CPU).
    voice_prewarm: bool = True
    # Turn-taking. A pause ends the turn after `silence_ms_*` when the signals (Smart Turn on
    # the audio, the transcript, the phase) say the candidate finished; when they say the
    # candidate is thinking it waits up to `think_ms_*` (more after a hard question).
    silence_ms_conversation: int = 400
    silence_ms_coding: int = 2500
    think_ms_conversation: int = 3000
    think_ms_coding: int = 6000
    think_ms_hard_extra: int = 1000
    turn_max_s: float = 120.0
    # Speech this soon after a turn ended is the same answer going on (a false end).
    amend_window_ms: int = 3000

    # Limits on input
    max_ws_text_bytes: int = 256 * 1024
    max_ws_binary_bytes: int = 32_000  # 1 s of 16 kHz PCM16
    max_answer_chars: int = 8000
    max_code_bytes: int = 64 * 1024
    max_http_body_bytes: int = 1 << 20  # larger request bodies get 413 too_large
    ws_messages_per_s: float = 50.0  # text frames per websocket, on average
    ws_messages_burst: int = 200
    # Audio per websocket: bytes a second may run ahead of real time (sample_rate x 2 bytes)
    # by this factor on average, with bursts of `audio_burst_s` of audio (a stalled network
    # catches up). Beyond: frames are dropped with an `audio_rate_limited` error.
    audio_rate_factor: float = 1.5
    audio_burst_s: float = 3.0
    # Per client IP, per app process (in memory; a proxy in front can add a global limit).
    # Generous defaults: a school lab or a hiring event shares one NAT address.
    ip_requests_per_s: float = 100.0  # every HTTP request
    ip_requests_burst: int = 2000
    ip_sessions_per_s: float = 5.0  # POST /api/sessions
    ip_sessions_burst: int = 1200
    ip_max_websockets: int = 1500  # open at once
    # Behind a reverse proxy, the client IP is the last X-Forwarded-For entry (the one the
    # proxy wrote). Only turn this on when the proxy overwrites that header, as
    # deploy/nginx.conf does; otherwise a client could pick its own address.
    trust_proxy_headers: bool = False

    @model_validator(mode="after")
    def _no_placeholder_secrets(self) -> Settings:
        if self.env == "production" and self.reviewer_token.lower() in PLACEHOLDER_SECRETS:
            raise ValueError("VIVA_REVIEWER_TOKEN must be set to a real secret in production")
        return self


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
