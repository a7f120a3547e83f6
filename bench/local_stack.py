"""A private Redis and an app server in subprocesses, for benchmarks that measure the
real stack end to end (not in-process shortcuts)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalRedis:
    """A redis-server child process on a fixed port, which a bench may restart. With
    ``persist`` it keeps an append-only file, as docker-compose.yml runs Redis, so sessions
    survive the restart."""

    def __init__(self, exe: str, data_dir: str, persist: bool = False):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._argv = [exe, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", data_dir,
                      "--save", "", "--appendonly", "yes" if persist else "no",
                      "--appendfsync", "no"]
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self._proc = subprocess.Popen(self._argv, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.02)
        raise SystemExit(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self._proc is not None:
            self._proc.terminate()
            self._proc.wait(10)
            self._proc = None

    def restart(self, down_s: float = 0.5) -> None:
        """Stop the server (every client's connection drops), wait, start it again."""
        self.stop()
        time.sleep(down_s)
        self.start()


@contextmanager
def local_redis(persist: bool = False) -> Iterator[LocalRedis]:
    exe = shutil.which("redis-server")
    if exe is None:
        raise SystemExit("redis-server is not installed; run `make run` once or set REDIS_URL")
    with tempfile.TemporaryDirectory() as d:
        server = LocalRedis(exe, d, persist)
        server.start()
        try:
            yield server
        finally:
            server.stop()


@contextmanager
def private_redis() -> Iterator[str]:
    """A throwaway redis-server, unless REDIS_URL is set."""
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    with local_redis() as server:
        yield server.url


def bench_reviewer_token() -> str:
    """The reviewer token of the servers a bench starts (it also reads their /metrics)."""
    return os.environ.setdefault("VIVA_REVIEWER_TOKEN", "bench-reviewer")


@contextmanager
def app_server(redis_url: str, **env: str) -> Iterator[str]:
    """``viva serve`` on a free port; yields its base URL."""
    port = free_port()
    with tempfile.TemporaryDirectory() as d:
        proc = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--port", str(port)], cwd=ROOT,
            env={**os.environ, "REDIS_URL": redis_url, "VIVA_DATA_DIR": d,
                 "VIVA_LOG_LEVEL": "warning",
                 "VIVA_REVIEWER_TOKEN": bench_reviewer_token(),
                 **env})
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    httpx.get(url + "/healthz", timeout=1)
                    break
                except httpx.HTTPError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        raise SystemExit("the app server did not start") from None
                    time.sleep(0.2)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()


def ws_url(base: str, session: dict[str, object]) -> str:
    """The socket URL with the one-time ticket POST /api/sessions handed out (one use), on
    ``base``: no session token ever goes into a URL (nor into the server's access log)."""
    path = str(session["ws_url"]).split("/ws/", 1)[1]
    return base.replace("http", "ws", 1) + "/ws/" + path
