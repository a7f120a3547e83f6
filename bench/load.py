"""``viva bench load``: many concurrent text interviews against a real server and Redis.

Each simulated candidate creates a session, starts it and answers every question with a
plausible answer as soon as it arrives. Reported: answer → feedback latency percentiles
(the interviewer's thinking time, server-side agents + Redis commits + websocket), session
creation latency, and answers per second across all sessions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any

import httpx
from websockets.asyncio.client import connect

from bench.local_stack import app_server, private_redis
from bench.stats import percentile

ANSWER = ("I would use a hash map for constant time lookups, and think about collisions, "
          "memory, and the worst case when many keys land in the same bucket.")


def pct(values: list[float], p: float) -> float | None:
    value = percentile(values, p)
    return None if value is None else round(value, 2)


async def one_session(base: str, n: int, questions: int, out: dict[str, list[float]]) -> int:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        t0 = time.perf_counter()
        r = await http.post("/api/sessions", json={
            "candidate_id": f"load-{n}", "role": "backend", "mode": "text",
            "self_ratings": {"algorithms": 3, "engineering": 3, "projects": 3},
            "max_questions": questions})
        r.raise_for_status()
        out["create_ms"].append(1000 * (time.perf_counter() - t0))
        s = r.json()
    answered = 0
    ws_url = base.replace("http", "ws") + f"/ws/sessions/{s['session_id']}?token={s['token']}"
    async with connect(ws_url, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "start"}))
        sent_at: float | None = None
        while True:
            event: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 60))
            if event["type"] == "feedback" and sent_at is not None and not event.get("final"):
                out["answer_to_feedback_ms"].append(1000 * (time.perf_counter() - sent_at))
                sent_at = None
            elif event["type"] == "question":
                sent_at = time.perf_counter()
                await ws.send(json.dumps({"type": "answer", "text": ANSWER}))
                answered += 1
            elif event["type"] == "session_end":
                return answered


async def run(base: str, sessions: int, questions: int) -> dict[str, Any]:
    out: dict[str, list[float]] = {"create_ms": [], "answer_to_feedback_ms": []}
    t0 = time.perf_counter()
    answered = await asyncio.gather(*(one_session(base, i, questions, out)
                                      for i in range(sessions)))
    wall = time.perf_counter() - t0
    lat = out["answer_to_feedback_ms"]
    return {
        "bench": "load", "sessions": sessions, "answers": sum(answered),
        "wall_s": round(wall, 2), "answers_per_s": round(sum(answered) / wall, 1),
        "answer_to_feedback_ms": {"p50": pct(lat, 50), "p95": pct(lat, 95),
                                  "p99": pct(lat, 99),
                                  "mean": round(statistics.fmean(lat), 2) if lat else None},
        "create_session_ms": {"p50": pct(out["create_ms"], 50),
                              "p95": pct(out["create_ms"], 95)},
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="viva bench load")
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--questions", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with private_redis() as redis_url, app_server(redis_url, VIVA_JUDGE_ENABLED="false",
                                                    VIVA_VOICE_PRELOAD="false") as base:
        result = asyncio.run(run(base, args.sessions, args.questions))
    if not args.json:
        print(f"{result['sessions']} sessions, {result['answers']} answers in "
              f"{result['wall_s']} s; answer→feedback {result['answer_to_feedback_ms']}")
    print(json.dumps(result))
    return 0
