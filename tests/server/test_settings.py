"""Settings in one place: the reviewer token rule, the judge's section passed explicitly,
limits the websocket takes from the settings, and no environment reads inside the judge."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from judge.backends.bubblewrap import BubblewrapBackend
from judge.backends.selection import select_backend
from judge.service import JudgeService
from judge.settings import CODE_BYTES_CEILING, JudgeSettings
from server.app import create_app
from server.settings import Settings, share_reviewer_token
from tests.conftest import ROOT
from tests.server.support import client, create_session, send, until


@pytest.mark.parametrize("env", ["test", "production"])
@pytest.mark.parametrize("token", ["", "changeme", "secret"])
def test_the_reviewer_token_is_required_outside_development(
        env: str, token: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VIVA_REVIEWER_TOKEN", raising=False)
    settings = Settings(env=env, reviewer_token=token)
    assert settings.reviewer_token == ""  # a placeholder is no reviewer's token
    with pytest.raises(ValueError, match="VIVA_REVIEWER_TOKEN"):
        create_app(settings)  # a server refuses to start without a real one


def test_serve_shares_one_development_token_with_all_its_workers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VIVA_REVIEWER_TOKEN", raising=False)
    monkeypatch.setenv("VIVA_ENV", "development")
    parent = Settings()
    assert len(parent.reviewer_token) >= 24
    assert Settings().reviewer_token != parent.reviewer_token  # what used to happen per worker
    environ: dict[str, str] = {}
    assert share_reviewer_token(parent, environ)
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    workers = [Settings() for _ in range(3)]
    assert {w.reviewer_token for w in workers} == {parent.reviewer_token}
    assert not share_reviewer_token(workers[0], environ)  # an operator's token is kept


def test_the_judge_section_comes_from_the_settings(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIVA_JUDGE_IMAGE", "my-judge:1")
    monkeypatch.setenv("VIVA_JUDGE_DOCKER_POOL", "0")
    monkeypatch.setenv("VIVA_JUDGE_SANDBOX_UID", "4242")
    monkeypatch.setenv("VIVA_JUDGE_BACKEND", "bwrap")
    judge = Settings(data_dir=tmp_path, max_code_bytes=100_000).judge
    assert (judge.image, judge.docker_pool, judge.sandbox_uid, judge.backend) == (
        "my-judge:1", 0, 4242, "bwrap")
    assert judge.cache_dir == tmp_path / "judge-cache"
    assert judge.max_code_bytes == 100_000  # honoured, no longer lowered to 64 KiB


def test_a_code_limit_beyond_the_ceiling_is_refused_not_clamped() -> None:
    with pytest.raises(ValidationError, match="max_code_bytes"):
        Settings(max_code_bytes=CODE_BYTES_CEILING + 1)
    with pytest.raises(ValidationError):
        JudgeSettings(max_code_bytes=0)


async def test_the_judge_service_and_backend_take_the_section(aredis: object) -> None:
    settings = JudgeSettings(backend="bwrap", sandbox_uid=4242, max_code_bytes=100_000)
    service = await JudgeService.create(settings, aredis)  # type: ignore[arg-type]
    try:
        assert service.max_code_bytes == 100_000 and service.backend_choice == "bwrap"
        backend = await select_backend(settings)
        assert isinstance(backend, BubblewrapBackend) and backend.sandbox_uid == 4242
    finally:
        await service.aclose()


def test_the_judge_reads_no_environment_variables() -> None:
    reads = re.compile(r"os\.environ|os\.getenv|getenv\(")
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "judge").rglob("*.py")
                 if reads.search(p.read_text())]
    assert offenders == [], "the judge reads settings passed in, not the environment"


def test_websocket_limits_come_from_the_settings(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path, max_answer_chars=20) as c:
        s = create_session(c)
        with c.websocket_connect(f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            until(ws, "question")
            send(ws, {"type": "answer", "text": "x" * 21})
            error = until(ws, "error")[-1]
            assert error["code"] == "invalid_message" and "20 characters" in error["message"]
            send(ws, {"type": "answer", "text": "I'm not sure"})
            until(ws, "feedback")


def test_every_turn_taking_setting_has_one_environment_name(monkeypatch) -> None:
    from dataclasses import fields

    from realtime.end_of_turn import TurnTakingSettings
    from server.settings import Settings

    defaults = Settings(env="test", reviewer_token="a-real-secret-123")
    for f in fields(TurnTakingSettings):
        assert getattr(defaults.turn_taking(), f.name) == f.default, f.name
    monkeypatch.setenv("VIVA_TURN_HOLD_MS", "7000")
    monkeypatch.setenv("VIVA_SILENCE_MS_CONVERSATION", "350")  # the old name still works
    changed = Settings(env="test", reviewer_token="a-real-secret-123").turn_taking()
    assert changed.hold_ms == 7000 and changed.complete_ms == 350
