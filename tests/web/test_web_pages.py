"""The page routes and static assets of server/routes/pages.py (no browser)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from server.errors import install_error_handlers
from server.routes import pages
from server.settings import get_settings

PAGE_PATHS = ["/", "/interview/abc123", "/playback/abc123", "/review"]


def client_for(monkeypatch: pytest.MonkeyPatch, dist: Path) -> Iterator[TestClient]:
    monkeypatch.setenv("VIVA_WEB_DIST", str(dist))
    get_settings.cache_clear()
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(pages.router)
    with TestClient(app) as client:
        yield client
    get_settings.cache_clear()


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[TestClient]:
    dist = tmp_path / "dist"
    (dist / "assets" / "chunks").mkdir(parents=True)
    (dist / "index.html").write_text("<!doctype html><title>Viva</title>")
    (dist / "assets" / "main.js").write_text("console.log('viva')")
    (dist / "assets" / "chunks" / "lobby-ABC.js").write_text("export{}")
    (tmp_path / "secret.txt").write_text("outside the build")
    yield from client_for(monkeypatch, dist)


@pytest.fixture
def unbuilt(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[TestClient]:
    yield from client_for(monkeypatch, tmp_path / "nothing-here")


@pytest.mark.parametrize("path", PAGE_PATHS)
def test_every_page_serves_the_app_shell(built: TestClient, path: str) -> None:
    response = built.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "<title>Viva</title>" in response.text
    assert "default-src 'self'" in response.headers["content-security-policy"]
    assert response.headers["cache-control"] == "no-cache"


def test_assets_are_served_with_cache_rules(built: TestClient) -> None:
    main = built.get("/assets/main.js")
    assert main.status_code == 200
    assert main.headers["content-type"].startswith("text/javascript")
    assert main.headers["cache-control"] == "no-cache"
    chunk = built.get("/assets/chunks/lobby-ABC.js")
    assert "immutable" in chunk.headers["cache-control"]
    assert built.head("/assets/main.js").status_code == 200


@pytest.mark.parametrize("path", ["/assets/../secret.txt", "/assets/%2e%2e/secret.txt",
                                  "/assets/nope.js", "/assets/chunks"])
def test_nothing_outside_the_build_or_missing_is_served(built: TestClient, path: str) -> None:
    response = built.get(path)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert "outside the build" not in response.text


@pytest.mark.parametrize("path", [*PAGE_PATHS, "/assets/main.js"])
def test_missing_build_says_how_to_fix_it(unbuilt: TestClient, path: str) -> None:
    response = unbuilt.get(path)
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "web_not_built"
    assert "make web" in error["message"]


def test_real_build_has_no_cdn_references(web_dist: Path) -> None:
    """Everything the browser loads comes from this server: no http(s) script/style URLs."""
    index = (web_dist / "index.html").read_text()
    assert "http://" not in index and "https://" not in index
    for name in ("main.js", "editor.worker.js", "capture-worklet.js"):
        assert (web_dist / "assets" / name).stat().st_size > 0
    css = (web_dist / "assets" / "main.css").read_text()
    assert ".monaco-editor" in css  # the editor's styles are bundled, not fetched
    assert "cdn.jsdelivr" not in css and "unpkg.com" not in css
