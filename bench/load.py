"""``viva bench load``: many concurrent sessions against a real server process and Redis.

Two modes:

- text (default): K simulated candidates at once (``--sessions``, default 200). Each creates
  a session, starts it and answers every question as soon as it arrives. Reported: start →
  first question and answer → feedback latency percentiles, session creation latency,
  answers per second, and every error (HTTP status, websocket ``error`` event, exception).
- idle (``--idle N``): N sessions whose websockets open, start, get their first question and
  then sit for ``--hold`` seconds. Then one event per session is written straight into its
  Redis stream, as a judge worker or another app process would, and each socket must receive
  it exactly once (this is the path through the process's single event reader).

Both report each server process's peak RSS and the open websockets (from ``/metrics``) and
the peak number of Redis client connections (``INFO clients``), sampled while the load runs.
``--processes N`` starts N app processes on one Redis; candidate n creates its session on
process n mod N and holds its websocket on the next one, so every interview crosses
processes (state and events live in Redis only). With ``--url`` (repeatable) the bench drives
servers already running (their Redis from ``REDIS_URL``); with ``--compose`` it brings up
docker-compose.yml and drives its nginx, in front of two app processes.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import redis.asyncio as aioredis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bench.local_stack import (
    LocalRedis,
    app_server,
    bench_reviewer_token,
    local_redis,
    private_redis,
    ws_url,
)
from bench.stats import percentile
from core.tasks import cancel_and_wait

ANSWER = ("I would use a hash map for constant time lookups, and think about collisions, "
          "memory, and the worst case when many keys land in the same bucket.")
RATINGS = {"algorithms": 3, "engineering": 3, "projects": 3}
RECV_TIMEOUT_S = 60.0


def pct(values: list[float], p: float) -> float | None:
    value = percentile(values, p)
    return None if value is None else round(value, 1)


def summary(values: list[float]) -> dict[str, float | None]:
    return {"p50": pct(values, 50), "p95": pct(values, 95), "p99": pct(values, 99),
            "max": round(max(values), 1) if values else None,
            "mean": round(statistics.fmean(values), 1) if values else None}


@dataclass
class Figures:
    create_ms: list[float] = field(default_factory=list)
    first_question_ms: list[float] = field(default_factory=list)
    # From the POST that creates the session to its first question's event: what a
    # candidate pressing "Start" waits (issue 23's goal: p95 <= 2 s with 200 at once).
    post_to_first_question_ms: list[float] = field(default_factory=list)
    answer_to_feedback_ms: list[float] = field(default_factory=list)
    errors: collections.Counter[str] = field(default_factory=collections.Counter)

    def error(self, kind: str) -> None:
        self.errors[kind] += 1


class Sampler:
    """Peaks of each server's RSS and websockets (/metrics) and Redis's client count."""

    def __init__(self, bases: list[str], redis_url: str):
        self.bases, self.redis_url = bases, redis_url
        self.rss_mb: dict[str, list[float]] = {b: [] for b in bases}
        self.redis_clients: list[int] = []
        self.ws_open: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def sample(self, http: httpx.AsyncClient, redis: aioredis.Redis) -> None:
        with contextlib.suppress(Exception):
            info = await redis.info("clients")
            self.redis_clients.append(int(info["connected_clients"]))
        open_now = 0.0
        for base in self.bases:
            with contextlib.suppress(Exception):
                text = (await http.get(base + "/metrics", timeout=10,
                                       headers=metrics_headers())).text
                figures = parse_metrics(text)
                self.rss_mb[base].append(
                    figures.get("process_resident_memory_bytes", 0) / 2**20)
                open_now += figures.get("viva_websockets_open", 0)
        self.ws_open.append(open_now)

    async def _run(self) -> None:
        redis = aioredis.Redis.from_url(self.redis_url, decode_responses=True)
        async with httpx.AsyncClient() as http:
            try:
                while True:
                    await self.sample(http, redis)
                    await asyncio.sleep(0.5)
            finally:
                await redis.aclose()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        await cancel_and_wait(self._task, context="load sampler")

    def report(self) -> dict[str, Any]:
        firsts = [v[0] for v in self.rss_mb.values() if v]
        peaks = [max(v) for v in self.rss_mb.values() if v]
        return {"processes": len(self.bases),
                "server_rss_mb": {"first": round(max(firsts), 1) if firsts else None,
                                  "peak": round(max(peaks), 1) if peaks else None,
                                  "peak_per_process": [round(p, 1) for p in peaks]},
                "redis_clients": {"first": self.redis_clients[0] if self.redis_clients
                                  else None,
                                  "peak": max(self.redis_clients, default=None)},
                "server_ws_open_peak": int(max(self.ws_open)) if self.ws_open else None}


def metrics_headers() -> dict[str, str]:
    """/metrics is the operator's: the bench's servers share its reviewer token."""
    return {"authorization": f"Bearer {bench_reviewer_token()}"}


def parse_metrics(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#") and "{" not in line:
            name, _, value = line.partition(" ")
            with contextlib.suppress(ValueError):
                out[name] = float(value)
    return out


async def create(http: httpx.AsyncClient, base: str, n: int, questions: int, fig: Figures
                 ) -> dict[str, Any]:
    t0 = time.perf_counter()
    r = await http.post(base + "/api/sessions", json={
        "candidate_id": f"load-{n}", "role": "backend", "mode": "text",
        "self_ratings": RATINGS, "max_questions": questions})
    if r.status_code != 201:
        code = r.json().get("error", {}).get("code", "?") if r.content else "?"
        raise BenchError(f"create {r.status_code} {code}")
    fig.create_ms.append(1000 * (time.perf_counter() - t0))
    out: dict[str, Any] = r.json()
    return out


class BenchError(Exception):
    pass


async def recv(ws: ClientConnection) -> dict[str, Any]:
    event: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), RECV_TIMEOUT_S))
    return event


async def interview(bases: list[str], http: httpx.AsyncClient, n: int, questions: int,
                    fig: Figures) -> int:
    """One candidate from session creation to session_end; returns answers given."""
    pressed = time.perf_counter()
    session = await create(http, bases[n % len(bases)], n, questions, fig)
    answered = 0
    async with connect(ws_url(bases[(n + 1) % len(bases)], session), max_size=2**22,
                       open_timeout=60) as ws:
        started = time.perf_counter()
        await ws.send(json.dumps({"type": "start"}))
        sent_at: float | None = None
        while True:
            event = await recv(ws)
            kind = event["type"]
            if kind == "error":
                fig.error(f"ws {event.get('code')}")
            elif kind == "feedback" and sent_at is not None and not event.get("final"):
                fig.answer_to_feedback_ms.append(1000 * (time.perf_counter() - sent_at))
                sent_at = None
            elif kind == "question":
                if not answered:
                    now = time.perf_counter()
                    fig.first_question_ms.append(1000 * (now - started))
                    fig.post_to_first_question_ms.append(1000 * (now - pressed))
                sent_at = time.perf_counter()
                await ws.send(json.dumps({"type": "answer", "text": ANSWER}))
                answered += 1
            elif kind == "session_end":
                return answered


async def guarded(coro: Any, fig: Figures) -> Any:
    try:
        return await coro
    except BenchError as exc:
        fig.error(str(exc))
    except ConnectionClosed as exc:
        frame = exc.rcvd or exc.sent
        side = "server" if exc.rcvd is not None else "client"
        fig.error(f"ws closed by {side} ({frame.code if frame is not None else None})")
    except Exception as exc:
        fig.error(type(exc).__name__)
    return None


async def run_text(bases: list[str], redis_url: str, sessions: int, questions: int,
                   restart: Callable[[], None] | None = None) -> dict[str, Any]:
    fig = Figures()
    sampler = Sampler(bases, redis_url)
    sampler.start()
    # One client with a connection per candidate: building 200 httpx clients costs the
    # bench ~3.5 s of CPU (an SSL context each), which it would then report as latency.
    limits = httpx.Limits(max_connections=sessions, max_keepalive_connections=sessions)
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        # Which grader and model the server measured runs with (VIVA_LLM_PROVIDER).
        llm = (await http.get(f"{bases[0]}/healthz")).json().get("llm")
        t0 = time.perf_counter()
        answered = await asyncio.gather(*(guarded(interview(bases, http, i, questions, fig),
                                                  fig) for i in range(sessions)))
        wall = time.perf_counter() - t0
        recovery: dict[str, Any] = {}
        if restart is not None:
            # Right after the load, every pooled connection has been used: restart Redis
            # and time how soon this process answers again.
            probe = await create(http, bases[0], sessions, questions, Figures())
            recovery = await recover_after_restart(bases[0], probe, restart)
    await sampler.stop()
    done = [a for a in answered if a is not None]
    return {
        "bench": "load", "mode": "text", "llm": llm, "sessions": sessions,
        "completed": len(done),
        "errors": sum(fig.errors.values()), "error_kinds": dict(fig.errors),
        "answers": sum(done), "wall_s": round(wall, 2),
        "answers_per_s": round(sum(done) / wall, 1),
        "first_question_ms": summary(fig.first_question_ms),
        "post_to_first_question_ms": summary(fig.post_to_first_question_ms),
        "answer_to_feedback_ms": summary(fig.answer_to_feedback_ms),
        "create_session_ms": summary(fig.create_ms),
        **({"redis_restart": recovery} if restart is not None else {}),
        **sampler.report(),
    }


async def open_idle(base: str, session: dict[str, Any], fig: Figures,
                    stack: contextlib.AsyncExitStack) -> ClientConnection:
    ws = await stack.enter_async_context(connect(ws_url(base, session), max_size=2**22,
                                                 open_timeout=120))
    started = time.perf_counter()
    await ws.send(json.dumps({"type": "start"}))
    while True:
        event = await recv(ws)
        if event["type"] == "error":
            raise BenchError(f"ws {event.get('code')}")
        if event["type"] == "question":
            fig.first_question_ms.append(1000 * (time.perf_counter() - started))
            return ws


async def bounded(limit: int, coros: list[Any]) -> list[Any]:
    gate = asyncio.Semaphore(limit)

    async def one(coro: Any) -> Any:
        async with gate:
            return await coro
    return await asyncio.gather(*(one(c) for c in coros))


async def wait_for_ping(ws: ClientConnection, marker: str, written_at: dict[str, float],
                        fig: Figures) -> float:
    """Drain the socket until the injected event arrives; its delay in ms."""
    while True:
        event = await recv(ws)
        if event["type"] == "bench_ping" and event.get("marker") == marker:
            return 1000 * (time.perf_counter() - written_at[marker])
        if event["type"] == "error":
            fig.error(f"ws {event.get('code')}")


async def recover_after_restart(base: str, session: dict[str, Any],
                                restart: Callable[[], None]) -> dict[str, Any]:
    """Restart Redis, then ask for one session's state every 50 ms: how long after Redis
    answers again until this process answers 200 again, and what it answered meanwhile."""
    url = f"{base}/api/sessions/{session['session_id']}"
    headers = {"authorization": f"Bearer {session['token']}"}
    statuses: collections.Counter[str] = collections.Counter()
    await asyncio.to_thread(restart)
    back = time.perf_counter()
    async with httpx.AsyncClient(timeout=5) as http:
        while time.perf_counter() - back < 60:
            try:
                status = str((await http.get(url, headers=headers)).status_code)
            except httpx.HTTPError as exc:
                status = type(exc).__name__
            statuses[status] += 1
            if status == "200":
                return {"recovered_ms": round(1000 * (time.perf_counter() - back), 1),
                        "answers_before": dict(statuses)}
            await asyncio.sleep(0.05)
    return {"recovered_ms": None, "answers_before": dict(statuses)}


async def run_idle(bases: list[str], redis_url: str, n: int, hold_s: float,
                   restart: Callable[[], None] | None = None) -> dict[str, Any]:
    from store.events import EventLog

    fig = Figures()
    sampler = Sampler(bases, redis_url)
    sampler.start()
    t0 = time.perf_counter()
    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=50)) as http:
        made = await bounded(50, [guarded(create(http, bases[i % len(bases)], i, 4, fig), fig)
                                  for i in range(n)])
    sessions = [s for s in made if s is not None]
    created_s = time.perf_counter() - t0
    redis = aioredis.Redis.from_url(redis_url, decode_responses=True)
    async with contextlib.AsyncExitStack() as stack:
        opened = await bounded(100, [
            guarded(open_idle(bases[(i + 1) % len(bases)], s, fig, stack), fig)
            for i, s in enumerate(sessions)])
        live = [(s, ws) for s, ws in zip(sessions, opened, strict=True) if ws is not None]
        opened_s = time.perf_counter() - t0 - created_s
        await asyncio.sleep(hold_s)
        recovery: dict[str, Any] = {}
        if restart is not None and live:
            # Under load: every socket's session is live while Redis goes away and back.
            recovery = await recover_after_restart(bases[0], live[0][0], restart)
            await redis.aclose()
            redis = aioredis.Redis.from_url(redis_url, decode_responses=True)
        # Alive after the hold (and the restart), and fed by the one reader: events
        # written from outside.
        log = EventLog(redis)
        written_at: dict[str, float] = {}
        waits = [asyncio.create_task(guarded(
            wait_for_ping(ws, s["session_id"], written_at, fig), fig)) for s, ws in live]
        for s, _ in live:
            written_at[s["session_id"]] = time.perf_counter()
            await log.append(s["session_id"], {"type": "bench_ping",
                                               "marker": s["session_id"]})
        delivered = [d for d in await asyncio.gather(*waits) if d is not None]
        await sampler.stop()
        async with httpx.AsyncClient() as http:
            await sampler.sample(http, redis)  # the figures with every socket still open
    await redis.aclose()
    return {
        "bench": "load", "mode": "idle", "sessions": n, "websockets_open": len(live),
        "errors": sum(fig.errors.values()), "error_kinds": dict(fig.errors),
        "hold_s": hold_s, "create_s": round(created_s, 1), "open_s": round(opened_s, 1),
        "first_question_ms": summary(fig.first_question_ms),
        "external_event_delivered": len(delivered),
        "external_event_ms": summary(delivered),
        **({"redis_restart": recovery} if restart is not None else {}),
        **sampler.report(),
    }


@contextlib.contextmanager
def stack_for(urls: list[str], processes: int) -> Iterator[tuple[list[str], str]]:
    if urls:
        yield ([u.rstrip("/") for u in urls],
               os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
        return
    with private_redis() as redis_url, contextlib.ExitStack() as stack:
        bases = [stack.enter_context(app_server(redis_url, VIVA_JUDGE_ENABLED="false",
                                                VIVA_VOICE_PRELOAD="false"))
                 for _ in range(processes)]
        yield bases, redis_url


@contextlib.contextmanager
def restartable_stack(processes: int) -> Iterator[tuple[list[str], LocalRedis]]:
    with local_redis(persist=True) as server, contextlib.ExitStack() as stack:
        bases = [stack.enter_context(app_server(server.url, VIVA_JUDGE_ENABLED="false",
                                                VIVA_VOICE_PRELOAD="false"))
                 for _ in range(processes)]
        yield bases, server


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="viva bench load")
    parser.add_argument("--sessions", type=int, default=200,
                        help="concurrent text interviews (default 200)")
    parser.add_argument("--questions", type=int, default=4)
    parser.add_argument("--idle", type=int, default=0, metavar="N",
                        help="instead: open N websockets that sit idle")
    parser.add_argument("--hold", type=float, default=10.0, help="idle mode: seconds to sit")
    parser.add_argument("--processes", type=int, default=1,
                        help="app processes to start on one Redis (default 1)")
    parser.add_argument("--url", action="append", default=[],
                        help="drive this running server instead (repeatable)")
    parser.add_argument("--compose", action="store_true",
                        help="bring up docker-compose.yml (nginx, two app processes) and "
                             "drive it through the proxy")
    parser.add_argument("--redis-restart", action="store_true",
                        help="restart the bench's own Redis after the load (idle mode: "
                             "after the hold) and report how long until requests (and "
                             "events) flow again")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.redis_restart and (args.url or args.compose):
        parser.error("--redis-restart needs the bench's own stack (no --url, --compose)")
    target: contextlib.AbstractContextManager[tuple[list[str], Any]]
    if args.redis_restart:
        target = restartable_stack(args.processes)
    elif args.compose:
        from bench.compose_stack import compose_stack

        target = compose_stack()
    else:
        target = stack_for(args.url, args.processes)
    with target as (bases, where):
        # A restartable stack hands over its Redis server; the others, Redis's URL.
        redis_url, restart = ((where.url, where.restart) if isinstance(where, LocalRedis)
                              else (where, None))
        if args.idle:
            result = asyncio.run(run_idle(bases, redis_url, args.idle, args.hold, restart))
        else:
            result = asyncio.run(run_text(bases, redis_url, args.sessions, args.questions,
                                          restart))
    if not args.json:
        print(json.dumps(result, indent=2))
    print(json.dumps(result))
    return 0
