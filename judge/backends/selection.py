"""``VIVA_JUDGE_BACKEND=auto|docker|bwrap``: pick a sandbox, or refuse (fail closed)."""

from __future__ import annotations

import os
from typing import Literal

from judge.backends.base import SandboxBackend, SandboxUnavailable
from judge.backends.bubblewrap import BubblewrapBackend
from judge.backends.docker_engine import DockerBackend

BackendChoice = Literal["auto", "docker", "bwrap"]


async def select_backend(choice: str | None = None, *,
                         docker_pool: int | None = None) -> SandboxBackend:
    """The backend for ``choice`` (default from the environment); raises with every reason.
    ``docker_pool``: warm containers to keep (None: VIVA_JUDGE_DOCKER_POOL, default 2)."""
    choice = choice or os.environ.get("VIVA_JUDGE_BACKEND", "auto")
    if choice not in ("auto", "docker", "bwrap"):
        raise SandboxUnavailable(f"VIVA_JUDGE_BACKEND={choice!r}: use auto, docker or bwrap")
    candidates: list[SandboxBackend] = []
    if choice in ("auto", "docker"):
        candidates.append(DockerBackend(pool_size=docker_pool))
    if choice in ("auto", "bwrap"):
        candidates.append(BubblewrapBackend())
    reasons = []
    for backend in candidates:
        status = await backend.status()
        if status.ok:
            return backend
        reasons.append(f"{status.name}: {status.reason}")
    raise SandboxUnavailable("no sandbox can run candidate code, so the judge refuses to run it ("
                             + "; ".join(reasons) + ")")
