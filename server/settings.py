"""One place for configuration: ``VIVA_*`` environment variables, ``REDIS_URL``, or ``.env``."""

from __future__ import annotations

import os
import secrets
from collections.abc import MutableMapping
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from judge.settings import CODE_BYTES_CEILING, JudgeSettings
from realtime.end_of_turn import TurnTakingSettings

ROOT = Path(__file__).resolve().parent.parent
PLACEHOLDER_SECRETS = {"", "changeme", "change-me", "secret", "reviewer"}


_TURN = TurnTakingSettings()  # the defaults of every turn-taking setting


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="VIVA_", env_file=".env", extra="ignore")

    # Production unless told otherwise (`make run` says development): a server started
    # without thinking about it generates and shows no credentials.
    env: Literal["development", "test", "production"] = "production"
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
    # Reviewer bearer token: a server outside development refuses to start without one (the
    # offline commands do not need it: with none, no token is a reviewer's). In development
    # one is generated; `viva serve` exports it to its workers and writes it to
    # `data_dir/reviewer-token` (0600), never to the log.
    reviewer_token: str = ""
    # Credentials in URLs (server/tickets.py): a ticket is good for one use within this
    # many seconds; the link cookie a page link redeems it into lasts this many hours.
    ticket_ttl_s: int = Field(default=60, ge=5, le=3600)
    link_cookie_hours: float = Field(default=12.0, gt=0, le=24 * 30)
    # Browser origins whose pages may open an interview websocket, besides the server's own
    # (comma-separated, e.g. "https://viva.example.org"). A handshake from any other origin
    # is refused: another site's page must not drive a candidate's session.
    allowed_origins: Annotated[list[str], NoDecode] = []
    # `GET /metrics` wants `Authorization: Bearer` with this token (or the reviewer token).
    metrics_token: str = ""

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
    # Coding round: a candidate silent and not editing (no code change, submission or speech)
    # this long is offered the problem's next hint, once per such stretch.
    coding_hint_idle_s: float = Field(default=90.0, gt=0)

    # Judge (handed to the judge as one section: `settings.judge`)
    judge_backend: Literal["auto", "docker", "bwrap"] = "auto"
    judge_in_process_worker: bool = True
    judge_enabled: bool = True  # off: a concepts-only server with no sandbox
    judge_image: str = "viva-judge:current"  # the Docker backend's image
    judge_docker_pool: int = Field(default=2, ge=0, le=64)  # warm containers per process
    judge_sandbox_uid: int = Field(default=65534, ge=1)  # bubblewrap runs code as this uid

    # Voice
    stt_model: Literal["tiny.en", "base"] = "tiny.en"
    # Two decodes side by side, the cores split between them: a pause's quick decode (the
    # verdict's) and full decode (the words) then finish together, so the final transcript
    # is ready when a finished answer's turn ends (dev: stt after the end p50 36 -> 1 ms,
    # finished voice-to-voice p50 670 -> 582 ms; `viva bench voice`).
    stt_workers: int = Field(default=2, ge=1, le=16)
    # Load speech models at start-up (in a thread) so the first spoken turn never waits.
    voice_preload: bool = True
    # Then synthesize every bank question into the audio cache (once per machine; skipped in
    # the test environment, where it would only compete for the CPU).
    voice_prewarm: bool = True
    # Turn-taking: one field per setting of realtime.end_of_turn.TurnTakingSettings, named
    # `turn_<its name>` (VIVA_TURN_<NAME>), its defaults read from there (one place to
    # change an operating point); `turn_taking()` builds it.
    # The old names (VIVA_SILENCE_MS_CONVERSATION, …) are still read.
    turn_pause_ms: int = _TURN.pause_ms
    turn_text_wait_ms: int = _TURN.text_wait_ms
    turn_complete_ms: int = Field(default=_TURN.complete_ms, validation_alias=AliasChoices(
        "VIVA_TURN_COMPLETE_MS", "VIVA_SILENCE_MS_CONVERSATION", "turn_complete_ms"))
    turn_unsure_ms: int = _TURN.unsure_ms
    turn_think_ms: int = Field(default=_TURN.think_ms, validation_alias=AliasChoices(
        "VIVA_TURN_THINK_MS", "VIVA_THINK_MS_CONVERSATION", "turn_think_ms"))
    turn_open_clause_ms: int = _TURN.open_clause_ms
    turn_hold_ms: int = _TURN.hold_ms
    turn_backchannel_ms: int = _TURN.backchannel_ms
    turn_coding_complete_ms: int = Field(
        default=_TURN.coding_complete_ms, validation_alias=AliasChoices(
        "VIVA_TURN_CODING_COMPLETE_MS", "VIVA_SILENCE_MS_CODING", "turn_coding_complete_ms"))
    turn_coding_think_ms: int = Field(default=_TURN.coding_think_ms, validation_alias=AliasChoices(
        "VIVA_TURN_CODING_THINK_MS", "VIVA_THINK_MS_CODING", "turn_coding_think_ms"))
    turn_hard_question_extra_ms: int = Field(
        default=_TURN.hard_question_extra_ms, validation_alias=AliasChoices(
        "VIVA_TURN_HARD_QUESTION_EXTRA_MS", "VIVA_THINK_MS_HARD_EXTRA",
        "turn_hard_question_extra_ms"))
    turn_max_turn_s: float = Field(default=_TURN.max_turn_s, validation_alias=AliasChoices(
        "VIVA_TURN_MAX_TURN_S", "VIVA_TURN_MAX_S", "turn_max_turn_s"))
    turn_amend_window_ms: int = Field(default=_TURN.amend_window_ms, validation_alias=AliasChoices(
        "VIVA_TURN_AMEND_WINDOW_MS", "VIVA_AMEND_WINDOW_MS", "turn_amend_window_ms"))
    turn_finished_p: float = Field(default=_TURN.finished_p, ge=0, le=1)
    turn_unsure_p: float = Field(default=_TURN.unsure_p, ge=0, le=1)

    # Recording and archive. Each voice turn's audio (both sides) is saved under
    # `data_dir/sessions/<id>/` as Ogg/Opus ("wav": bigger, no encoder needed); audio older
    # than `audio_retention_days` is deleted (0 keeps it; the timeline and report stay).
    record_audio: bool = True
    recording_format: Literal["opus", "wav"] = "opus"
    audio_retention_days: float = 90.0
    # A finished session is archived at once; one with no event for `abandon_after_minutes`
    # is ended ("abandoned") and archived by a sweep every `archive_sweep_s`. Once archived,
    # its Redis keys expire after `redis_ttl_after_archive_hours` (0: they stay).
    abandon_after_minutes: float = 120.0
    archive_sweep_s: float = 60.0
    redis_ttl_after_archive_hours: float = 168.0
    # Bounds on every session's Redis keys even when no sweep runs: the event stream is
    # capped (XADD MAXLEN ~, far above the longest interview), and keys with no new event
    # for `session_idle_ttl_hours` expire (0: never; must exceed abandon_after_minutes).
    max_session_events: int = Field(default=50_000, ge=10_000)
    session_idle_ttl_hours: float = Field(default=336.0, ge=0)

    # Limits on input
    max_ws_text_bytes: int = 256 * 1024
    max_ws_binary_bytes: int = 32_000  # 1 s of 16 kHz PCM16
    max_answer_chars: int = 8000
    max_code_bytes: int = Field(default=64 * 1024, gt=0, le=CODE_BYTES_CEILING)
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
        if self.reviewer_token.lower() in PLACEHOLDER_SECRETS:
            self.reviewer_token = secrets.token_urlsafe(24) if self.env == "development" else ""
        return self

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _origins_from_text(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip().rstrip("/") for part in value.split(",") if part.strip()]
        return value

    def require_reviewer_token(self) -> None:
        """Before serving: outside development the operator must have set a real token."""
        if not self.reviewer_token:
            raise ValueError(f"VIVA_REVIEWER_TOKEN must be set to a real secret outside "
                             f"development (VIVA_ENV={self.env}); for a local try-out run "
                             f"`make run` or set VIVA_ENV=development")

    @model_validator(mode="after")
    def _idle_ttl_after_abandonment(self) -> Settings:
        if 0 < self.session_idle_ttl_hours * 60 <= self.abandon_after_minutes:
            raise ValueError("VIVA_SESSION_IDLE_TTL_HOURS must exceed VIVA_ABANDON_AFTER_MINUTES "
                             "(an abandoned session is archived before its keys expire)")
        return self

    def turn_taking(self) -> TurnTakingSettings:
        """The turn-taking policy's settings, field for field (``turn_<name>``)."""
        return TurnTakingSettings(**{name: getattr(self, f"turn_{name}")
                                     for name in TurnTakingSettings.names()})

    @property
    def judge(self) -> JudgeSettings:
        """The judge's section, passed explicitly to the judge service and its commands."""
        return JudgeSettings(
            backend=self.judge_backend, image=self.judge_image,
            docker_pool=self.judge_docker_pool, sandbox_uid=self.judge_sandbox_uid,
            bank_dir=self.bank_dir, cache_dir=self.data_dir / "judge-cache",
            max_code_bytes=self.max_code_bytes, redis_url=self.redis_url)


def share_reviewer_token(settings: Settings,
                         environ: MutableMapping[str, str] = os.environ) -> bool:
    """Before ``viva serve`` starts its workers: put a generated development token in the
    environment they inherit, so every worker accepts the same one. True when it did."""
    if settings.env != "development" or environ.get("VIVA_REVIEWER_TOKEN"):
        return False
    environ["VIVA_REVIEWER_TOKEN"] = settings.reviewer_token
    return True


def write_development_token(settings: Settings) -> Path:
    """The generated development token goes to a file only its owner reads, not the log."""
    path = settings.data_dir / "reviewer-token"
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as handle:
        os.fchmod(handle.fileno(), 0o600)
        handle.write(settings.reviewer_token + "\n")
    return path


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
