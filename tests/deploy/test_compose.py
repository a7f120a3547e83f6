"""docker-compose.yml for real: Redis, two app processes behind nginx, two judge workers.

The file is checked everywhere (structure, and `docker-compose config` when the CLI is
there). Where a Docker engine runs, the stack is brought up from locally built images
(scripts/setup-compose.sh), a text interview runs through the proxy, the app process that
holds the websocket is SIGKILLed mid-turn, the client reconnects through the proxy (landing
on the other process) and resumes: every event seq arrives once, none is missing, and the
acknowledged answer is evaluated. A submission is judged by a worker. Then it is torn down.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
TOKEN = "compose-test-reviewer-" + uuid.uuid4().hex
REDIS_PASSWORD = uuid.uuid4().hex
SECRETS = {"VIVA_REVIEWER_TOKEN": TOKEN, "VIVA_REDIS_PASSWORD": REDIS_PASSWORD}


def compose_cli() -> list[str] | None:
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if shutil.which("docker") and subprocess.run(
            ["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    return None


def engine_running() -> bool:
    return shutil.which("docker") is not None and subprocess.run(
        ["docker", "info"], capture_output=True).returncode == 0


def test_compose_file_describes_the_scaled_out_deployment() -> None:
    spec = yaml.safe_load(COMPOSE_FILE.read_text())
    services = spec["services"]
    assert {"redis", "app1", "app2", "proxy", "worker1", "worker2"} <= set(services)
    redis = services["redis"]
    command = " ".join(redis["command"])
    assert "--appendonly yes" in command and "--protected-mode yes" in command
    # A password, from a file (not the command line), and no bind to every interface.
    assert "requirepass" in command and "$$VIVA_REDIS_PASSWORD" in command
    assert "--requirepass" not in command and "0.0.0.0" not in command
    assert "ports" not in redis
    assert any(v.endswith(":/data") for v in redis["volumes"])
    # Redis, the apps and the workers on an internal network; the proxy only in front.
    assert spec["networks"]["back"]["internal"] is True
    assert redis["networks"] == ["back"] and services["proxy"]["networks"] == ["front"]
    for app in ("app1", "app2"):
        env = services[app]["environment"]
        assert env["REDIS_URL"].startswith("redis://:${VIVA_REDIS_PASSWORD:?")
        assert env["REDIS_URL"].endswith("@redis:6379/0")
        assert set(services[app]["networks"]) == {"front", "back"}
        # Judging is the workers' job; the apps only enqueue.
        assert env["VIVA_JUDGE_IN_PROCESS_WORKER"] == "false"
    for worker in ("worker1", "worker2"):
        assert "worker" in " ".join(services[worker]["command"])
        assert services[worker]["environment"]["REDIS_URL"].startswith("redis://:${VIVA_")
        assert services[worker]["networks"] == ["back"]  # candidate code reaches nothing else
    assert services["proxy"]["ports"]
    conf = NGINX_CONF.read_text()
    assert "server app1:8000" in conf and "server app2:8000" in conf
    assert "proxy_set_header Upgrade $http_upgrade" in conf
    assert re.search(r"proxy_read_timeout\s+\d{3,}s", conf)
    # Every image is local: nothing in the file names a registry.
    for svc in services.values():
        assert svc["image"].split(":")[0].startswith(("${VIVA_", "viva-")), svc["image"]


def test_compose_config_validates() -> None:
    cli = compose_cli()
    if cli is None:
        pytest.skip("no docker-compose CLI (scripts/setup-system.sh installs Debian's)")
    env = {**os.environ, **SECRETS}
    out = subprocess.run([*cli, "-f", str(COMPOSE_FILE), "config", "-q"], env=env,
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    # Without a reviewer token or a Redis password the file refuses to start, saying why.
    for name in SECRETS:
        without = {k: v for k, v in env.items() if k != name}
        out = subprocess.run([*cli, "-f", str(COMPOSE_FILE), "config", "-q"], env=without,
                             capture_output=True, text=True, cwd=ROOT)
        assert out.returncode != 0 and name in out.stderr, (name, out.stderr)


class Stack:
    """One compose project with a unique name and port; `down -v` removes all it made."""

    def __init__(self, cli: list[str], app_image: str):
        self.project = "vivatest" + uuid.uuid4().hex[:10]
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, **SECRETS, "VIVA_APP_IMAGE": app_image,
                    "VIVA_HTTP_PORT": str(self.port), "VIVA_ENV": "production"}
        self.cli = [*cli, "-p", self.project, "-f", str(COMPOSE_FILE)]

    def run(self, *args: str, check: bool = True, timeout: float = 300) -> str:
        out = subprocess.run([*self.cli, *args], env=self.env, capture_output=True, text=True,
                             cwd=ROOT, timeout=timeout)
        if check and out.returncode != 0:
            raise AssertionError(f"{' '.join(args)}: {out.stderr[-2000:]}")
        return out.stdout

    def container(self, service: str) -> str:
        return self.run("ps", "-q", service).strip()

    def ips_of(self, service: str) -> list[str]:
        """Its address on each network it is on."""
        return subprocess.run(
            ["docker", "inspect", "-f",
             "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}",
             self.container(service)], capture_output=True, text=True, check=True,
        ).stdout.split()

    def exec(self, service: str, *command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["docker", "exec", self.container(service), *command],
                              capture_output=True, text=True, timeout=60)

    def wait_ready(self, timeout: float = 120) -> dict[str, Any]:
        """Until both app processes answered /healthz through the proxy and both workers
        consume the judge queue."""
        seen: set[str] = set()
        deadline = time.monotonic() + timeout
        last: Any = None
        while time.monotonic() < deadline:
            try:
                r = httpx.get(f"{self.base}/healthz", timeout=5)
                last = r.text
                if r.status_code == 200:
                    seen.add(r.headers.get("x-viva-upstream", ""))
                    body = r.json()
                    if len(seen) >= 2 and body.get("judge_workers") == 2:
                        return dict(body)
            except httpx.HTTPError as exc:
                last = repr(exc)
            time.sleep(0.5)
        raise AssertionError(f"stack not ready: upstreams {seen}, last {last}\n"
                             + self.run("logs", "--tail", "30", check=False))


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    cli = compose_cli()
    if cli is None:
        pytest.skip("no docker-compose CLI (scripts/setup-system.sh installs Debian's)")
    if not engine_running():
        pytest.skip("no Docker engine answers (scripts/setup-judge.sh starts one)")
    built = subprocess.run(["bash", str(ROOT / "scripts" / "setup-compose.sh")],
                           capture_output=True, text=True, timeout=1500)
    match = re.search(r"viva-app:([0-9a-f]{12})", built.stdout.splitlines()[-1]
                      if built.stdout else "")
    assert built.returncode == 0 and match, built.stdout[-2000:] + built.stderr[-2000:]
    s = Stack(cli, f"viva-app:{match.group(1)}")
    try:
        s.run("up", "-d", "--no-build")
        s.wait_ready()
        yield s
    finally:
        s.run("down", "-v", "--remove-orphans", "-t", "5", check=False)


def recv_until(ws: Any, kind: str, got: list[dict[str, Any]], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        got.append(event)
        if event["type"] == kind:
            return
    raise AssertionError(f"no {kind}: {[e['type'] for e in got]}")


def connect_via_proxy(stack: Stack, path: str, exits: contextlib.ExitStack,
                      timeout: float = 30) -> tuple[Any, str]:
    """Connect through nginx; it skips a dead upstream after one failed connect."""
    from websockets.sync.client import connect

    deadline = time.monotonic() + timeout
    while True:
        try:
            ws = exits.enter_context(connect(f"ws://127.0.0.1:{stack.port}{path}",
                                             open_timeout=10))
            upstream = ws.response.headers.get("X-Viva-Upstream", "")
            # nginx lists every upstream it tried ("a:8000, b:8000"): the last one answered.
            return ws, upstream.split(",")[-1].strip()
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def open_question(events: list[dict[str, Any]]) -> bool:
    """A question was asked after the last answer."""
    kinds = [e["type"] for e in events]
    last_q = max((i for i, k in enumerate(kinds) if k == "question"), default=-1)
    last_a = max((i for i, k in enumerate(kinds) if k == "transcript_final"), default=-1)
    return last_q > last_a


@pytest.mark.docker
@pytest.mark.slow
def test_interview_through_the_proxy_survives_killing_an_app_process(stack: Stack) -> None:
    body = {"candidate_id": "compose-1", "role": "backend engineer", "mode": "text",
            "self_ratings": {"algorithms": 3, "engineering": 3, "projects": 3},
            "rounds": ["concepts"], "max_questions": 3}
    r = httpx.post(f"{stack.base}/api/sessions", json=body, timeout=30)
    assert r.status_code == 201, r.text
    s = r.json()
    path = f"/ws/sessions/{s['session_id']}?token={s['token']}"
    ips = {ip: app for app in ("app1", "app2") for ip in stack.ips_of(app)}

    seen: list[dict[str, Any]] = []
    exits = contextlib.ExitStack()
    with exits:
        ws, upstream = connect_via_proxy(stack, path, exits)
        first = ips[upstream.split(":")[0]]
        ws.send(json.dumps({"type": "start"}))
        recv_until(ws, "question", seen)
        ws.send(json.dumps({"type": "answer", "text": "A hash map gives O(1) average "
                                                      "lookups, but the worst case is linear."}))
        recv_until(ws, "transcript_final", seen)  # acknowledged: kill its process, mid-turn
        subprocess.run(["docker", "kill", "-s", "KILL", stack.container(first)], check=True,
                       capture_output=True)
        from websockets.exceptions import ConnectionClosed

        with pytest.raises((ConnectionClosed, TimeoutError)):
            while True:  # whatever was in flight before the socket dropped
                seen.append(json.loads(ws.recv(timeout=15)))

        ws, upstream = connect_via_proxy(stack, path, exits)
        second = ips[upstream.split(":")[0]]
        assert second != first, "the reconnect must land on the surviving app process"
        last_seq = max(e["seq"] for e in seen if e["seq"] > 0)
        ws.send(json.dumps({"type": "resume", "after_seq": last_seq}))
        resumed: list[dict[str, Any]] = []
        deadline = time.monotonic() + 90
        # Until the next question is out (it may have arrived before the kill).
        while not open_question(seen + resumed):
            resumed.append(json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic()))))
        # The acknowledged answer was evaluated (before the kill, or by recovery on resume).
        assert any(e["type"] == "feedback" for e in seen + resumed)
        while True:
            ws.send(json.dumps({"type": "answer", "text": "I am not sure."}))
            recv_until(ws, "state", resumed)
            if any(e["type"] == "session_end" for e in resumed):
                break
            if len([e for e in seen + resumed if e["type"] == "question"]) >= 3:
                ws.send(json.dumps({"type": "end"}))
                recv_until(ws, "session_end", resumed, timeout=90)
                break
            while not open_question(seen + resumed):
                resumed.append(json.loads(ws.recv(timeout=60)))

    got = [e["seq"] for e in seen + resumed if e["seq"] > 0]  # seq 0: unrecorded notices
    # Every event once, in order, with no gap — across the kill and the other process.
    assert got == list(range(1, len(got) + 1)), got
    timeline = httpx.get(f"{stack.base}/api/sessions/{s['session_id']}/events",
                         headers={"Authorization": f"Bearer {s['token']}"}, timeout=30)
    assert timeline.status_code == 200, timeline.text
    stored = [json.loads(line) for line in timeline.text.splitlines() if line.strip()]
    assert [e["seq"] for e in stored][: len(got)] == got
    by_seq = {e["seq"]: e for e in seen + resumed}
    assert all(by_seq[e["seq"]]["type"] == e["type"] for e in stored[: len(got)])


@pytest.mark.docker
@pytest.mark.slow
def test_a_worker_judges_a_submission_made_through_the_proxy(stack: Stack) -> None:
    problems = httpx.get(f"{stack.base}/api/problems", timeout=30)
    assert problems.status_code == 200, problems.text
    listed = problems.json()
    items = listed["problems"] if isinstance(listed, dict) else listed
    problem = httpx.get(f"{stack.base}/api/problems/{items[0]['id']}", timeout=30).json()
    body = {"candidate_id": "compose-2", "role": "backend", "mode": "text",
            "self_ratings": {"algorithms": 3, "engineering": 3, "projects": 3}}
    s = httpx.post(f"{stack.base}/api/sessions", json=body, timeout=30).json()
    auth = {"Authorization": f"Bearer {s['token']}"}
    code = problem["templates"]["python"]
    r = httpx.post(f"{stack.base}/api/sessions/{s['session_id']}/submissions", headers=auth,
                   json={"problem_id": problem["id"], "language": "python", "code": code,
                         "kind": "run"}, timeout=30)
    assert r.status_code == 202, r.text
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        result = httpx.get(f"{stack.base}/api/submissions/{r.json()['submission_id']}",
                           headers=auth, timeout=30).json()
        if result["status"] == "done":
            break
        time.sleep(0.5)
    assert result["status"] == "done", result
    # Run for real in a worker's bubblewrap sandbox (a template is not a solution).
    assert result["image"].startswith("bwrap"), result["image"]
    assert result["verdict"] in {"AC", "WA", "RE", "TLE"} and result["total"] >= 1, result


@pytest.mark.docker
@pytest.mark.slow
def test_redis_wants_its_password_and_only_the_back_network_reaches_it(stack: Stack) -> None:
    # Inside its own container, without the password: refused.
    out = stack.exec("redis", "redis-cli", "ping")
    assert "NOAUTH" in out.stdout + out.stderr, out
    out = stack.exec("redis", "redis-cli", "--no-auth-warning", "-a", "wrong", "ping")
    assert "PONG" not in out.stdout, out
    # An app (the one the kill test left running) reaches it with the password ...
    pings = [stack.exec(app, "python3", "-c", PING) for app in ("app1", "app2")]
    assert any(p.stdout.strip() == "True" for p in pings), pings
    # ... the proxy, on the front network only, cannot even resolve it, and no port of it
    # is published on the host.
    out = stack.exec("proxy", "getent", "hosts", "redis")
    assert out.returncode != 0 and not out.stdout.strip(), out
    assert stack.run("port", "redis", "6379", check=False).strip() in ("", ":0")
    # A worker (it runs candidate code) has no route out of the internal network.
    out = stack.exec("worker1", "python", "-c", "import socket; socket.create_connection("
                                                "('1.1.1.1', 53), timeout=3)")
    assert out.returncode != 0, out


PING = ("import os, redis; print(redis.Redis.from_url(os.environ['REDIS_URL'])"
        ".ping())")


@pytest.mark.docker
@pytest.mark.slow
def test_a_worker_runs_without_cap_sys_admin_under_a_seccomp_filter(stack: Stack) -> None:
    # PID 1 of the worker container is the worker itself (the entrypoint execs it).
    status = stack.exec("worker1", "cat", "/proc/1/status").stdout
    fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
    sys_admin = 1 << 21  # CAP_SYS_ADMIN
    for field in ("CapBnd", "CapEff", "CapPrm"):
        assert not int(fields[field], 16) & sys_admin, (field, fields[field])
    assert fields["Seccomp"].strip() == "2", fields["Seccomp"]  # a filter, not unconfined
    assert fields["NoNewPrivs"].strip() == "1"
    # The filter refuses what the worker never needs: keyctl, which works on this host
    # outside the container (it fetches the session keyring), is EPERM in the worker.
    out = stack.exec("worker1", "python3", "-c", KEYCTL)
    assert out.stdout.strip() == "refused 1", out


# keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, create) on x86-64.
KEYCTL = ("import ctypes; libc = ctypes.CDLL(None, use_errno=True); "
          "r = libc.syscall(250, 0, -3, 1); "
          "print('refused' if r == -1 else 'allowed', ctypes.get_errno())")
