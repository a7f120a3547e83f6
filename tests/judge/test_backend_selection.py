"""The Docker engine gone: ``auto`` falls back to bubblewrap, ``docker`` refuses clearly, and
nothing ever runs unsandboxed."""

from __future__ import annotations

import pytest

from judge.backends.base import SandboxUnavailable
from judge.backends.bubblewrap import BubblewrapBackend
from judge.backends.selection import select_backend
from judge.settings import JudgeSettings

DEAD_ENGINE = "unix:///nonexistent/viva-test/docker.sock"


async def test_auto_falls_back_to_bubblewrap_when_the_engine_is_gone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    if not (await BubblewrapBackend().status()).ok:
        pytest.skip("bubblewrap cannot sandbox here")
    monkeypatch.setenv("DOCKER_HOST", DEAD_ENGINE)
    backend = await select_backend(JudgeSettings(backend="auto"), docker_pool=0)
    assert backend.name == "bwrap"


async def test_docker_only_refuses_with_the_reason_when_the_engine_is_gone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", DEAD_ENGINE)
    with pytest.raises(SandboxUnavailable) as refused:
        await select_backend(JudgeSettings(backend="docker"), docker_pool=0)
    message = str(refused.value)
    assert "refuses to run" in message and "docker:" in message
