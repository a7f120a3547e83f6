"""Real-Chromium plumbing for the web tests: launch, JavaScript-error capture, screenshots,
and a `viva serve` subprocess against the test's Redis."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import wave
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from playwright.sync_api import Browser, ConsoleMessage, Error, Page, Playwright

from tests.conftest import ROOT, free_port

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "var" / "test-artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
# recipes.md: flags that keep headless Chromium quiet and offline.
BASE_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_path() -> str:
    if not CHROMIUM.exists():
        raise RuntimeError("Chromium is missing: `make test` installs it "
                           "(apt-get install chromium)")
    return str(CHROMIUM)


def launch(playwright: Playwright, *, fake_audio: Path | None = None,
           grant_microphone: bool = True) -> Browser:
    """A fresh Chromium. With `fake_audio` the microphone plays that WAV once."""
    args = list(BASE_ARGS)
    if grant_microphone:
        args += ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"]
        if fake_audio is not None:
            args.append(f"--use-file-for-fake-audio-capture={fake_audio}%noloop")
    return playwright.chromium.launch(executable_path=chromium_path(), args=args)


@dataclass
class JsErrors:
    """Every page error and console error seen by a page; tests assert it stays empty."""

    messages: list[str] = field(default_factory=list)
    allowed: tuple[str, ...] = ()

    def watch(self, page: Page) -> None:
        page.on("pageerror", lambda exc: self._add(f"pageerror: {exc}"))
        page.on("console", self._console)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self._add(f"console.error: {message.text} @ {message.location.get('url', '')}")

    def _add(self, text: str) -> None:
        if not any(a in text for a in self.allowed):
            self.messages.append(text)

    def assert_none(self) -> None:
        assert not self.messages, "JavaScript errors on the page:\n" + "\n".join(self.messages)


def open_app(page: Page, url: str, js_errors: JsErrors | None = None) -> Page:
    """Watch ``page`` for JavaScript errors, install the event probe (before the app's own
    scripts run), then open ``url``: how every web test starts a page."""
    from tests.web.event_probe import install_event_probe

    if js_errors is not None:
        js_errors.watch(page)
    install_event_probe(page)
    page.goto(url)
    return page


def screenshot(page: Page, name: str) -> Path:
    """Saves a full-page screenshot under var/test-artifacts/screenshots and prints its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    try:
        page.screenshot(path=str(path), full_page=True)
    except Error as exc:  # a screenshot must never hide the real failure
        print(f"screenshot {name} failed: {exc}")
        return path
    print(f"screenshot: {path}")
    return path


def speech_wav(text: str, out: Path, *, lead_s: float = 2.0, tail_s: float = 4.0) -> Path:
    """Real speech for the fake microphone: the packaged Piper voice at 16 kHz mono, with
    silence before (the question is asked first) and after (so the turn can end)."""
    import numpy as np

    from audio.sample_speech import SpeechMaker

    pcm = SpeechMaker().speech(text, "piper").astype("<i2")
    quiet = np.zeros(int(16000 * lead_s), dtype="<i2"), np.zeros(int(16000 * tail_s), dtype="<i2")
    with wave.open(str(out), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(16000)
        wav.writeframes(np.concatenate([quiet[0], pcm, quiet[1]]).tobytes())
    return out


class VivaServer:
    """`viva serve` as a subprocess on a free port (real Redis, data in a temp dir)."""

    def __init__(self, redis_url: str, data_dir: Path, *, log_name: str,
                 extra_env: dict[str, str] | None = None):
        self.port = free_port()
        self.reviewer_token = "reviewer-token-for-web-tests"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.log_path = ARTIFACTS / f"server-{log_name}.log"
        env = {**os.environ, "REDIS_URL": redis_url, "VIVA_DATA_DIR": str(data_dir),
               "VIVA_ENV": "test", "VIVA_LOG_LEVEL": "warning",
               "VIVA_REVIEWER_TOKEN": self.reviewer_token,
               "VIVA_WEB_DIST": str(ROOT / "web" / "dist"), **(extra_env or {})}
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--port", str(self.port)],
            cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout_s: float = 60) -> dict[str, object]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"viva serve exited early; see {self.log_path}")
            try:
                response = httpx.get(f"{self.url}/healthz", timeout=2)
                if response.status_code == 200:
                    health: dict[str, object] = response.json()
                    return health
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"viva serve did not become healthy; see {self.log_path}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self._log.close()


@contextmanager
def viva_server(redis_url: str, data_dir: Path, log_name: str) -> Iterator[VivaServer]:
    server = VivaServer(redis_url, data_dir, log_name=log_name)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()
