"""Connections that scale: websockets hold no Redis connection of their own.

A real ``viva serve`` process and real sockets. Events written from outside the app (as a
judge worker or a second app process writes them) reach every socket through the process's
one event reader; a client that reads nothing is held to a bounded buffer and still gets
everything, in order, once it reads again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

import httpx
import redis.asyncio as aioredis
from websockets.asyncio.client import ClientConnection, connect

from bench.load import parse_metrics
from bench.local_stack import app_server
from store import keys
from store.events import EventLog
from tests.server.support import METRICS_AUTH, RATINGS, client

# /metrics is the operator's: the app processes started here share the reviewer token of
# the environment (conftest); the in-process app has its own (support.METRICS_AUTH).
SERVED_METRICS_AUTH = {"authorization": f"Bearer {os.environ['VIVA_REVIEWER_TOKEN']}"}

SOCKETS = 120  # more than redis-py's default pool of 100
POOL = 8       # request connections: far fewer than sockets, so requests must queue


def serve(redis_url: str, **env: str) -> contextlib.AbstractContextManager[str]:
    return app_server(redis_url, VIVA_ENV="test", VIVA_JUDGE_ENABLED="false",
                      VIVA_VOICE_PRELOAD="false", **env)


async def new_session(http: httpx.AsyncClient, n: int) -> dict[str, Any]:
    r = await http.post("/api/sessions", json={
        "candidate_id": f"scale-{n}", "role": "backend", "mode": "text",
        "self_ratings": RATINGS, "rounds": ["concepts"], "max_questions": 2})
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


async def recv_until(ws: ClientConnection, kind: str, seen: list[dict[str, Any]],
                     limit_s: float = 60) -> dict[str, Any]:
    async with asyncio.timeout(limit_s):
        while True:
            event: dict[str, Any] = json.loads(await ws.recv())
            seen.append(event)
            if event["type"] == kind:
                return event


async def metrics(base: str) -> dict[str, float]:
    async with httpx.AsyncClient() as http:
        return parse_metrics((await http.get(base + "/metrics",
                                             headers=SERVED_METRICS_AUTH)).text)


async def test_more_than_100_websockets_on_one_process(redis_url: str) -> None:
    with serve(redis_url, VIVA_REDIS_POOL_SIZE=str(POOL)) as base:
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            gate = asyncio.Semaphore(20)

            async def make(n: int) -> dict[str, Any]:
                async with gate:
                    return await new_session(http, n)
            sessions = await asyncio.gather(*(make(n) for n in range(SOCKETS)))
        seen: dict[str, list[dict[str, Any]]] = {s["session_id"]: [] for s in sessions}
        async with contextlib.AsyncExitStack() as stack:
            async def open_and_start(s: dict[str, Any]) -> ClientConnection:
                ws = await stack.enter_async_context(
                    connect(s["ws_url"], open_timeout=60))
                await ws.send(json.dumps({"type": "start"}))
                await recv_until(ws, "question", seen[s["session_id"]])
                return ws
            sockets = await asyncio.gather(*(open_and_start(s) for s in sessions))

            figures = await metrics(base)
            assert figures["viva_websockets_open"] == SOCKETS
            assert figures["viva_fanout_subscribers"] == SOCKETS
            redis = aioredis.Redis.from_url(redis_url, decode_responses=True)
            try:
                clients = int((await redis.info("clients"))["connected_clients"])
                # The pool, the one reader, this test: not one connection per socket.
                assert clients <= POOL + 4, clients

                # Another writer (a judge worker, a second app) appends to every stream.
                log = EventLog(redis)
                for s in sessions:
                    await log.append(s["session_id"], {"type": "external",
                                                       "marker": s["session_id"]})
                pings = await asyncio.gather(*(
                    recv_until(ws, "external", seen[s["session_id"]])
                    for s, ws in zip(sessions, sockets, strict=True)))
                assert [p["marker"] for p in pings] == [s["session_id"] for s in sessions]

                # The interviews still run, on far fewer request connections than sockets.
                few = list(zip(sessions, sockets, strict=True))[:20]
                for _, ws in few:
                    await ws.send(json.dumps({"type": "answer", "text": "I am not sure."}))
                await asyncio.gather(*(recv_until(ws, "feedback", seen[s["session_id"]],
                                                  limit_s=120) for s, ws in few))
                # In seq order, exactly once, nothing missing: what the stream holds.
                for s, _ in few:
                    sid = s["session_id"]
                    got = [e["seq"] for e in seen[sid]]
                    assert got == list(range(1, len(got) + 1)), got
                    stored = await redis.xrange(keys.session_events(sid), count=len(got))
                    assert [int(i.split("-")[0]) for i, _ in stored] == got
            finally:
                await redis.aclose()


async def test_a_client_that_reads_nothing_is_bounded_and_loses_nothing(
        redis_url: str) -> None:
    buffer = 32
    with serve(redis_url, VIVA_FANOUT_BUFFER_EVENTS=str(buffer)) as base:
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            s = await new_session(http, 0)
        redis = aioredis.Redis.from_url(redis_url, decode_responses=True)
        # A client with a one-frame queue: once it stops reading, TCP pushes back.
        async with connect(s["ws_url"], max_queue=1, max_size=2**22) as ws:
            seen: list[dict[str, Any]] = []
            await ws.send(json.dumps({"type": "start"}))
            await recv_until(ws, "question", seen)
            await asyncio.sleep(0.5)  # the start's remaining events are in flight
            log = EventLog(redis)
            n, pad = 4000, "x" * 8000  # 32 MB: far more than the socket buffers hold
            rss_before = (await metrics(base))["process_resident_memory_bytes"]
            peak = 0.0
            for start in range(0, n, 200):
                async with redis.pipeline(transaction=False) as pipe:
                    for i in range(start, start + 200):
                        await log._append(
                            keys=log.script_keys(s["session_id"]),
                            args=log.script_args(json.dumps({"type": "flood", "i": i,
                                                             "pad": pad})),
                            client=pipe)
                    await pipe.execute()
                peak = max(peak, (await metrics(base))["viva_fanout_buffered_events"])
            await asyncio.sleep(1.0)
            figures = await metrics(base)
            assert max(peak, figures["viva_fanout_buffered_events"]) <= buffer
            assert figures["viva_fanout_overflows_total"] >= 1
            # Unbounded buffering would hold the 32 MB (more, as dicts); ~1 MB is measured.
            growth = figures["process_resident_memory_bytes"] - rss_before
            assert growth < 16 * 2**20, f"RSS grew {growth / 2**20:.1f} MB"
            # Reading again, the client gets every event, in order, once.
            flood: list[int] = []
            async with asyncio.timeout(120):
                while len(flood) < n:
                    event = json.loads(await ws.recv())
                    seen.append(event)
                    if event["type"] == "flood":
                        flood.append(event["i"])
            assert flood == list(range(n))
            seqs = [e["seq"] for e in seen]
            assert seqs == list(range(1, len(seqs) + 1))
        await redis.aclose()


def test_an_exhausted_pool_is_reported_as_busy_not_as_redis_down(redis_url: str,
                                                                 tmp_path: Path) -> None:
    with client(redis_url, tmp_path, redis_pool_size=1, redis_pool_timeout_s=0.3) as c:
        redis = c.app.state.redis
        held = c.portal.start_task_soon(redis.blpop, ["nothing-here"], 3)
        for _ in range(100):  # until the blocked BLPOP holds the only connection
            if redis.connection_pool.stats()["in_use"] == 1:
                break
            time.sleep(0.01)
        body = {"candidate_id": "busy", "role": "r", "self_ratings": RATINGS}
        r = c.post("/api/sessions", json=body)
        assert r.status_code == 503 and r.headers["retry-after"] == "1"
        error = r.json()["error"]
        assert error["code"] == "server_busy"
        assert "overloaded" in error["message"] and "unreachable" not in error["message"]
        held.result(timeout=10)
        assert c.post("/api/sessions", json=body).status_code == 201  # and it recovers
        figures = parse_metrics(c.get("/metrics", headers=METRICS_AUTH).text)
        assert figures["viva_redis_pool_max"] == 1
        busy = 'viva_errors_total{code="server_busy",where="http"} 1'
        assert busy in c.get("/metrics", headers=METRICS_AUTH).text


async def test_events_written_by_another_process_reach_this_one(redis_url: str) -> None:
    """Two app processes, one session, a socket on each: what one process commits (the
    editor state sent on its socket) reaches the other's socket through its event reader,
    once and in order; a resume on the other process replays exactly what was missed."""
    with serve(redis_url) as a, serve(redis_url) as b:
        async with httpx.AsyncClient(base_url=a, timeout=60) as http:
            s = await new_session(http, 0)
            # A ticket opens one socket: the second one buys its own (never the token).
            r = await http.post(f"/api/sessions/{s['session_id']}/ticket",
                                headers={"Authorization": f"Bearer {s['token']}"})
            assert r.status_code == 201, r.text
        url_b = (s["ws_url"].split("?", 1)[0].replace(a.split("//")[1], b.split("//")[1])
                 + f"?ticket={r.json()['ticket']}")
        async with connect(s["ws_url"]) as on_a, connect(url_b) as on_b:
            seen_a: list[dict[str, Any]] = []
            seen_b: list[dict[str, Any]] = []
            await on_a.send(json.dumps({"type": "start"}))
            await recv_until(on_a, "question", seen_a)
            await on_b.send(json.dumps({"type": "resume", "after_seq": 0}))
            await recv_until(on_b, "question", seen_b)
            for i in range(5):
                await on_a.send(json.dumps({"type": "code_change", "problem_id": "p",
                                            "language": "python", "code": f"x = {i}"}))
            for _ in range(5):
                await recv_until(on_b, "code_change", seen_b)
        codes = [e["code"] for e in seen_b if e["type"] == "code_change"]
        assert codes == [f"x = {i}" for i in range(5)]
        seqs = [e["seq"] for e in seen_b]
        assert seqs == list(range(1, len(seqs) + 1))
        # Reconnect to B after the 2nd edit: exactly the rest comes back, nothing twice.
        after = next(e["seq"] for e in seen_b if e.get("code") == "x = 1")
        async with httpx.AsyncClient(base_url=b, timeout=60) as http:
            r = await http.post(f"/api/sessions/{s['session_id']}/ticket",
                                headers={"Authorization": f"Bearer {s['token']}"})
        async with connect(url_b.split("?", 1)[0] + f"?ticket={r.json()['ticket']}") as again:
            await again.send(json.dumps({"type": "resume", "after_seq": after}))
            replay: list[dict[str, Any]] = []
            while len([e for e in replay if e["type"] == "code_change"]) < 3:
                await recv_until(again, "code_change", replay)
        assert [e["seq"] for e in replay] == list(range(after + 1, after + 1 + len(replay)))
        assert [e["code"] for e in replay if e["type"] == "code_change"] == [
            "x = 2", "x = 3", "x = 4"]
