"""Tokens stay out of logs and response bodies (issue 23, item 2).

- A real ``viva serve`` logs at info: its access log and websocket log redact every
  ``token=`` value; the generated development reviewer token goes to a 0600 file, not stderr.
- The default environment is production: no generated token, a server without a real one
  refuses to start, offline commands still run. ``make run`` says development.
- Property tests: no response body or log line carries a session or reviewer token, whatever
  route, method and place the token is sent in; the redaction filter hides a token anywhere
  in a query string.
"""

from __future__ import annotations

import logging
import os
import re
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from uvicorn.logging import AccessFormatter
from websockets.sync.client import connect

from server.log_redaction import REDACTED, RedactSecrets, redact
from server.settings import Settings
from tests.conftest import ROOT, free_port
from tests.server.support import client, create_session


def _serve(redis_url: str, data_dir: Path, log: Path, **env: str) -> subprocess.Popen[bytes]:
    environ = {k: v for k, v in os.environ.items() if k != "VIVA_REVIEWER_TOKEN"}
    environ.update({"REDIS_URL": redis_url, "VIVA_DATA_DIR": str(data_dir),
                    "VIVA_JUDGE_ENABLED": "false", "VIVA_VOICE_PRELOAD": "false",
                    "VIVA_LOG_LEVEL": "info", **env})
    handle = log.open("wb")
    return subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--port",
                             env["PORT"]], cwd=ROOT, env=environ, stdout=handle,
                            stderr=subprocess.STDOUT)


def _wait_up(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(url + "/healthz", timeout=1)
            return
        except httpx.HTTPError:
            assert proc.poll() is None, "the server exited"
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)


def test_a_real_server_logs_no_token(redis_url: str, tmp_path: Path) -> None:
    port = str(free_port())
    log = tmp_path / "server.log"
    proc = _serve(redis_url, tmp_path / "data", log, VIVA_ENV="development", PORT=port)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_up(url, proc)
        token_file = tmp_path / "data" / "reviewer-token"
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        reviewer = token_file.read_text().strip()
        created = httpx.post(url + "/api/sessions", json={
            "candidate_id": "cand-1", "role": "backend engineer", "mode": "text",
            "self_ratings": {"algorithms": 3, "engineering": 3, "projects": 3},
            "rounds": ["concepts"], "max_questions": 2}).json()
        sid, token = created["session_id"], created["token"]
        # A token in a URL is refused (and still never logged); the header is the way.
        assert httpx.get(f"{url}/api/sessions/{sid}?token={token}").status_code == 401
        assert httpx.get(f"{url}/api/sessions/{sid}",
                         headers={"authorization": f"Bearer {token}"}).status_code == 200
        assert httpx.get(f"{url}/api/review/sessions?t%6Fken={reviewer}").status_code == 401
        httpx.get(f"{url}/review?token={reviewer}&x=1")
        with connect(f"ws://127.0.0.1:{port}/ws/sessions/{sid}?token={token}"):
            pass
        ticket = httpx.post(f"{url}/api/sessions/{sid}/ticket",
                            headers={"authorization": f"Bearer {token}"}).json()["ticket"]
        with connect(f"ws://127.0.0.1:{port}/ws/sessions/{sid}?ticket={ticket}"):
            pass
        with connect(f"ws://127.0.0.1:{port}/ws/sessions/{sid}?token=wrong{token}") as ws:
            assert '"forbidden"' in str(ws.recv(timeout=10))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    text = log.read_text()
    assert f"GET /review?token={REDACTED}&x=1" in text, text[-2000:]
    assert f"/ws/sessions/{sid}?token={REDACTED}" in text, text[-2000:]
    assert f"t%6Fken={REDACTED}" in text
    assert f"/ws/sessions/{sid}?ticket={REDACTED}" in text, text[-2000:]
    assert token not in text and reviewer not in text and ticket not in text
    assert "reviewer-token" in text  # says where the token is instead


def test_the_default_environment_is_production(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    monkeypatch.delenv("VIVA_ENV", raising=False)
    monkeypatch.delenv("VIVA_REVIEWER_TOKEN", raising=False)
    settings_ = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    assert settings_.env == "production"
    assert settings_.reviewer_token == ""  # none generated, so none can be shown
    with pytest.raises(ValueError, match="VIVA_REVIEWER_TOKEN"):
        settings_.require_reviewer_token()
    env = {k: v for k, v in os.environ.items() if k not in ("VIVA_ENV", "VIVA_REVIEWER_TOKEN")}
    env["VIVA_DATA_DIR"] = str(tmp_path)
    served = subprocess.run([sys.executable, "-m", "server.cli", "serve", "--port",
                             str(free_port())], cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)},
                            capture_output=True, text=True, timeout=60)
    assert served.returncode == 2 and "VIVA_REVIEWER_TOKEN" in served.stderr
    offline = subprocess.run([sys.executable, "-m", "server.cli", "bank", "validate"],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert offline.returncode == 0, offline.stderr  # offline commands need no reviewer token


def test_make_run_says_development() -> None:
    dry = subprocess.run(["make", "-n", "-W", ".venv/.installed", "run"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60,
                         env={k: v for k, v in os.environ.items() if k != "VIVA_ENV"})
    serve = [line for line in dry.stdout.splitlines() if " serve " in line]
    assert serve and "VIVA_ENV=${VIVA_ENV:-development}" in serve[-1], dry.stdout[-1000:]


# --- property: no body or log line carries a token -----------------------------------------

ROUTES = ["/api/sessions/{sid}", "/api/sessions/{sid}/report", "/sessions/{sid}/report",
          "/api/sessions/{sid}/events", "/api/sessions/{sid}/transcript.vtt",
          "/api/sessions/{sid}/audio", "/api/sessions/{sid}/audio/x.wav",
          "/api/review/sessions", "/api/sessions/{sid}/review", "/api/sessions",
          "/healthz", "/metrics", "/api/schema/events", "/api/sessions/{sid}/nothing"]


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith("httpx"):  # the test client's own request log
            self.lines.append(self.format(record))


def test_no_response_body_or_log_line_carries_a_token(redis_url: str, tmp_path: Path) -> None:
    capture = _Capture()
    capture.setFormatter(logging.Formatter("%(name)s %(message)s %(exc_text)s"))
    root = logging.getLogger()
    root.addHandler(capture)
    old_level = root.level
    root.setLevel(logging.DEBUG)
    try:
        with client(redis_url, tmp_path) as c:
            first = create_session(c)
            other = create_session(c)
            reviewer = c.app.state.settings.reviewer_token  # type: ignore[attr-defined]
            secrets = [first["token"], other["token"], reviewer]

            @settings(max_examples=25, deadline=None,
                      suppress_health_check=[HealthCheck.function_scoped_fixture])
            @given(route=st.sampled_from(ROUTES), method=st.sampled_from(["GET", "POST"]),
                   whose=st.sampled_from([0, 1, 2]), where=st.sampled_from(
                       ["header", "query", "both", "body"]),
                   target=st.sampled_from([0, 1]), mangle=st.sampled_from(
                       ["", "x", "é", " "]))
            def probe(route: str, method: str, whose: int, where: str, target: int,
                      mangle: str) -> None:
                sid = (first, other)[target]["session_id"]
                secret = secrets[whose]
                sent = secret + mangle
                path = route.format(sid=sid)
                headers: dict[str, str] = {}
                kwargs: dict[str, Any] = {}
                if where in ("header", "both"):
                    headers["authorization"] = f"Bearer {quote(sent)}"
                if where in ("query", "both"):
                    path += f"?token={quote(sent)}"
                if where == "body":
                    kwargs["json"] = {"token": sent, "overall_score": 0.5, "note": "n",
                                      "reviewer": "r"}
                before = len(capture.lines)
                r = c.request(method, path, headers=headers, **kwargs)
                body = r.text
                logged = "\n".join(capture.lines[before:])
                for value in secrets:
                    if route == "/api/sessions" and method == "POST" and r.status_code == 201:
                        # Creating a session answers its own new token, once, by design.
                        assert value not in body.replace(r.json()["token"], "")
                    else:
                        assert value not in body, (method, path, where, r.status_code)
                    assert value not in logged, (method, path, logged[-500:])

            probe()
    finally:
        root.removeHandler(capture)
        root.setLevel(old_level)


def _access_line(path: str) -> str:
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1,
                               '%s - "%s %s HTTP/%s" %d',
                               ("127.0.0.1:5000", "GET", path, "1.1", 200), None)
    RedactSecrets().filter(record)
    return AccessFormatter("%(client_addr)s - \"%(request_line)s\" %(status_code)s",
                           use_colors=False).format(record)


TOKEN = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
                min_size=16, max_size=64)
OTHER = st.lists(st.tuples(st.sampled_from(["x", "after_seq", "mode", "q"]),
                           st.from_regex(r"[a-z0-9]{0,8}", fullmatch=True)), max_size=3)


@settings(max_examples=100, deadline=None)
@given(token=TOKEN, before=OTHER, after=OTHER,
       name=st.sampled_from(["token", "ticket", "TOKEN", "t%6Fken", "access_token"]),
       path=st.sampled_from(["/review", "/ws/sessions/abc", "/api/sessions/abc/report"]))
def test_redaction_hides_a_token_anywhere_in_the_query(token: str, before: list, after: list,
                                                       name: str, path: str) -> None:
    params = [f"{k}={v}" for k, v in before] + [f"{name}={token}"] + \
             [f"{k}={v}" for k, v in after]
    line = _access_line(path + "?" + "&".join(params))
    assert token not in line
    assert f"{name}={REDACTED}" in line
    for k, v in before + after:
        assert f"{k}={v}" in line  # the rest of the line is untouched
    ws_line = redact(f'127.0.0.1:5000 - "WebSocket {path}?{"&".join(params)}" [accepted]')
    assert token not in ws_line and re.search(r"\[accepted\]$", ws_line)
