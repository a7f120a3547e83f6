"""The judge's settings: one typed section, passed explicitly to what needs it.

The judge reads no environment variables. ``server.settings.Settings`` (the one place that
reads ``VIVA_*``) builds this section (``settings.judge``) and hands it to the judge service,
``viva worker`` and ``viva judge run``; tests build it directly."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ROOT = Path(__file__).resolve().parent.parent
BackendChoice = Literal["auto", "docker", "bwrap"]
# The sandbox's source files and the queue's job payloads are sized for this; a larger
# setting is refused at start-up rather than lowered behind the operator's back.
CODE_BYTES_CEILING = 1024 * 1024


class JudgeSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: BackendChoice = "auto"  # VIVA_JUDGE_BACKEND
    image: str = "viva-judge:current"  # VIVA_JUDGE_IMAGE: the Docker image to run code in
    docker_pool: int = Field(default=2, ge=0, le=64)  # VIVA_JUDGE_DOCKER_POOL: warm containers
    sandbox_uid: int = Field(default=65534, ge=1)  # VIVA_JUDGE_SANDBOX_UID (bubblewrap)
    bank_dir: Path = ROOT / "bank"  # VIVA_BANK_DIR
    cache_dir: Path = ROOT / "var" / "judge-cache"  # generated tests; under VIVA_DATA_DIR
    max_code_bytes: int = Field(default=64 * 1024, gt=0, le=CODE_BYTES_CEILING)
    redis_url: str = "redis://127.0.0.1:6379/0"  # REDIS_URL, for `viva worker`
