"""``VIVA_JUDGE_BACKEND=auto|docker|bwrap``: pick a sandbox, or refuse (fail closed)."""

from __future__ import annotations

from judge.backends.base import SandboxBackend, SandboxUnavailable
from judge.backends.bubblewrap import BubblewrapBackend
from judge.backends.docker_engine import DockerBackend
from judge.settings import BackendChoice, JudgeSettings

__all__ = ["BackendChoice", "select_backend"]


async def select_backend(settings: JudgeSettings, *, choice: str | None = None,
                         docker_pool: int | None = None) -> SandboxBackend:
    """The backend ``settings`` (or ``choice``) names; raises with every reason.
    ``docker_pool`` overrides the settings' warm containers (0 for a one-off run)."""
    choice = choice or settings.backend
    if choice not in ("auto", "docker", "bwrap"):
        raise SandboxUnavailable(f"VIVA_JUDGE_BACKEND={choice!r}: use auto, docker or bwrap")
    candidates: list[SandboxBackend] = []
    if choice in ("auto", "docker"):
        candidates.append(DockerBackend(
            image=settings.image,
            pool_size=settings.docker_pool if docker_pool is None else docker_pool))
    if choice in ("auto", "bwrap"):
        candidates.append(BubblewrapBackend(sandbox_uid=settings.sandbox_uid))
    reasons = []
    for backend in candidates:
        status = await backend.status()
        if status.ok:
            return backend
        reasons.append(f"{status.name}: {status.reason}")
    raise SandboxUnavailable("no sandbox can run candidate code, so the judge refuses to run it ("
                             + "; ".join(reasons) + ")")
