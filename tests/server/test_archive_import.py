"""`viva import` cannot take over a session (issue 23, items 4-5): everything is checked
before a byte is written; a forged archive's id, an existing session, a symlink and the
size cap are refused, and --replace keeps the stored token hash."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import server.archive_import as archive_import
from server.archive_import import ImportRefused, LiveSession, import_archive
from server.archived_session import load_archive, token_digest

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample_archive" / "viva-sample.tar.gz"
ATTACKER = token_digest("attacker-token")


def _forged(tmp_path: Path, folder_name: str | None = None) -> tuple[Path, str]:
    """The sample archive as a folder whose archive.json carries the attacker's token hash."""
    staging = tmp_path / "staging"
    sid = import_archive(staging, SAMPLE)
    src = tmp_path / "forged" / (folder_name or sid)
    shutil.copytree(staging / "sessions" / sid, src)
    mark = src / "archive.json"
    info = json.loads(mark.read_text())
    mark.write_text(json.dumps({**info, "token_sha256": ATTACKER}))
    return src, sid


def _snapshot(data: Path) -> dict[str, bytes]:
    return {str(p.relative_to(data)): p.read_bytes() for p in sorted(data.rglob("*"))
            if p.is_file()}


def test_an_archive_whose_id_is_not_its_folder_is_refused(tmp_path: Path) -> None:
    src, sid = _forged(tmp_path, folder_name="0123456789abcdef")
    with pytest.raises(ImportRefused, match="names session"):
        import_archive(tmp_path / "data", src)
    assert not (tmp_path / "data" / "sessions" / "0123456789abcdef").exists()


def test_an_archived_session_is_not_overwritten_and_replace_keeps_its_token(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    sid = import_archive(data, SAMPLE)
    real = load_archive(data, sid)
    assert real is not None and real.info.token_sha256 != ATTACKER
    before = _snapshot(data)
    src, _ = _forged(tmp_path)
    (src / "report.html").write_text("<script>alert(1)</script>")
    with pytest.raises(ImportRefused, match="--replace"):
        import_archive(data, src)
    assert _snapshot(data) == before  # nothing written
    import_archive(data, src, replace=True)
    replaced = load_archive(data, sid)
    assert replaced is not None and replaced.info.token_sha256 == real.info.token_sha256
    assert "<script>" in replaced.report_html()  # replaced, but the token stayed


def test_a_live_session_is_not_overwritten_and_replace_keeps_the_live_token(
        tmp_path: Path) -> None:
    src, sid = _forged(tmp_path)
    live_hash = token_digest("the-real-candidate-token")

    def live(session_id: str) -> LiveSession | None:
        return LiveSession(live_hash) if session_id == sid else None

    with pytest.raises(ImportRefused, match="live in Redis"):
        import_archive(tmp_path / "data", src, live=live)
    assert not (tmp_path / "data" / "sessions" / sid).exists()
    import_archive(tmp_path / "data", src, replace=True, live=live)
    archived = load_archive(tmp_path / "data", sid)
    assert archived is not None and archived.info.token_sha256 == live_hash
    assert not archived.token_matches("attacker-token")


@pytest.mark.parametrize("link", ["audio/x.wav", "code"])
def test_a_folder_with_a_symlink_is_refused(tmp_path: Path, link: str) -> None:
    src, sid = _forged(tmp_path)
    target = src / link
    if target.is_dir():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    os.symlink("/etc/passwd" if link.endswith(".wav") else "/etc", target)
    with pytest.raises(ImportRefused, match="symbolic link"):
        import_archive(tmp_path / "data", src)
    assert not (tmp_path / "data" / "sessions" / sid).exists()


def test_a_folder_over_the_size_cap_is_refused(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    src, sid = _forged(tmp_path)
    monkeypatch.setattr(archive_import, "MAX_IMPORT_BYTES", 1000)
    with pytest.raises(ImportRefused, match="too large"):
        import_archive(tmp_path / "data", src)
    assert not (tmp_path / "data" / "sessions" / sid).exists()


def test_viva_import_refuses_a_live_session_from_redis(redis_url: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import redis

    from server.offline import import_command
    from store import keys

    src, sid = _forged(tmp_path)
    r = redis.Redis.from_url(redis_url)
    r.hset(keys.session_meta(sid), mapping={"token": "the-real-candidate-token"})
    r.close()
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("VIVA_DATA_DIR", str(tmp_path / "data"))
    from server.settings import get_settings
    get_settings.cache_clear()
    try:
        assert import_command(str(src)) == 1
        assert not (tmp_path / "data" / "sessions" / sid).exists()
        assert import_command(str(src), replace=True) == 0
        archived = load_archive(tmp_path / "data", sid)
        assert archived is not None and archived.token_matches("the-real-candidate-token")
    finally:
        get_settings.cache_clear()


def test_a_forged_report_page_runs_no_script_and_links_are_not_followed(
        redis_url: str, tmp_path: Path) -> None:
    from tests.server.support import client

    reviewer = {"Authorization": "Bearer reviewer-secret-xyz"}

    data = tmp_path / "data"
    src, sid = _forged(tmp_path)
    (src / "report.html").write_text("<script>fetch('/x?'+location)</script>")
    import_archive(data, src)
    # a folder poisoned before imports refused links: the link is not served
    os.symlink("/etc/passwd", data / "sessions" / sid / "audio" / "x.wav")
    with client(redis_url, data) as c:
        page = c.get(f"/sessions/{sid}/report", headers=reviewer)
        assert page.status_code == 200
        csp = page.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src" not in csp
        assert page.headers["x-content-type-options"] == "nosniff"
        leaked = c.get(f"/api/sessions/{sid}/audio/x.wav", headers=reviewer)
        assert leaked.status_code == 404 and b"root:" not in leaked.content
