"""``GET /metrics``: the process's figures in the Prometheus text format (version 0.0.4).

Hand-written (a few counters, gauges and histograms) rather than a dependency. Instruments
live on ``app.state.metrics``, one set per app, so two apps in one test never mix figures.
Figures that already live elsewhere (the event reader, the Redis pool, the judge queue, the
process's memory) are read when scraped, not mirrored.
"""

from __future__ import annotations

import hmac
import math
import os
import resource
from collections.abc import Iterable
from typing import Any

import redis.exceptions
from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from server.deps import header_token, well_formed
from server.errors import Unauthorized

router = APIRouter()

LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def _labels(pairs: Iterable[tuple[str, str]]) -> str:
    body = ",".join(f'{k}="{_escape(v)}"' for k, v in pairs)
    return "{" + body + "}" if body else ""


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _num(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


class Counter:
    kind = "counter"

    def __init__(self, name: str, help_text: str):
        self.name, self.help = name, help_text
        self.values: dict[tuple[tuple[str, str], ...], float] = {}

    def inc(self, amount: float = 1.0, **labels: str) -> None:
        key = tuple(sorted(labels.items()))
        self.values[key] = self.values.get(key, 0.0) + amount

    def value(self, **labels: str) -> float:
        return self.values.get(tuple(sorted(labels.items())), 0.0)

    def samples(self) -> list[str]:
        if not self.values:
            return [f"{self.name} 0"] if self.kind == "counter" else []
        return [f"{self.name}{_labels(k)} {_num(v)}" for k, v in sorted(self.values.items())]


class Gauge(Counter):
    kind = "gauge"

    def dec(self, amount: float = 1.0, **labels: str) -> None:
        self.inc(-amount, **labels)

    def samples(self) -> list[str]:
        if not self.values:
            return [f"{self.name} 0"]
        return super().samples()


class Histogram:
    kind = "histogram"

    def __init__(self, name: str, help_text: str, buckets: tuple[float, ...] = LATENCY_BUCKETS):
        self.name, self.help = name, help_text
        self.buckets = buckets
        self.counts = [0] * len(buckets)
        self.count = 0
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.count += 1
        self.sum += value
        for i, bound in enumerate(self.buckets):
            if value <= bound:
                self.counts[i] += 1

    def samples(self) -> list[str]:
        out = [f'{self.name}_bucket{{le="{_num(b)}"}} {c}'
               for b, c in zip(self.buckets, self.counts, strict=True)]
        out.append(f'{self.name}_bucket{{le="+Inf"}} {self.count}')
        out.append(f"{self.name}_sum {_num(round(self.sum, 6))}")
        out.append(f"{self.name}_count {self.count}")
        return out


Instrument = Counter | Histogram


class Metrics:
    """The instruments the app updates as it works."""

    def __init__(self) -> None:
        self.sessions_created = Counter("viva_sessions_created_total",
                                        "Interview sessions created by this process.")
        self.websockets = Gauge("viva_websockets_open", "Websockets open on this process.")
        self.turns = Counter("viva_turns_total", "Candidate answers (typed or spoken) "
                                                 "accepted on this process's websockets.")
        self.answer_latency = Histogram(
            "viva_answer_feedback_seconds",
            "Typed answer received → the interviewer's feedback and next question sent.")
        self.start_latency = Histogram("viva_start_question_seconds",
                                       "Start received → the first question sent.")
        self.errors = Counter("viva_errors_total",
                              "Errors returned to clients, by code and where (http, ws).")

    def instruments(self) -> list[Instrument]:
        return [self.sessions_created, self.websockets, self.turns, self.answer_latency,
                self.start_latency, self.errors]


def _process_figures() -> list[tuple[str, str, str, float]]:
    """(name, kind, help, value) of this process's memory, fds and CPU."""
    page = os.sysconf("SC_PAGE_SIZE")
    out: list[tuple[str, str, str, float]] = []
    try:
        with open("/proc/self/statm") as f:
            rss = int(f.read().split()[1]) * page
        out.append(("process_resident_memory_bytes", "gauge", "Resident memory size.", rss))
        out.append(("process_open_fds", "gauge", "Open file descriptors.",
                    len(os.listdir("/proc/self/fd"))))
    except OSError:
        pass
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out.append(("process_cpu_seconds_total", "counter", "User and system CPU time.",
                usage.ru_utime + usage.ru_stime))
    return out


async def _collected(state: Any) -> list[tuple[str, str, str, float]]:
    """Figures read at scrape time from the parts that own them."""
    out: list[tuple[str, str, str, float]] = []
    fanout = getattr(state, "fanout", None)
    if fanout is not None:
        out += [
            ("viva_live_sessions", "gauge", "Sessions this process follows (event reader).",
             fanout.streams),
            ("viva_fanout_subscribers", "gauge", "Websocket subscriptions to the event reader.",
             fanout.subscribers),
            ("viva_fanout_buffered_events", "gauge",
             "Events buffered in memory for websockets that have not taken them yet.",
             fanout.buffered),
            ("viva_fanout_reads_total", "counter", "XREAD calls made by the event reader.",
             fanout.reads),
            ("viva_fanout_overflows_total", "counter",
             "Slow subscribers whose buffer was dropped (they re-read the stream).",
             fanout.overflows),
            ("viva_fanout_up", "gauge", "1 when the event reader's last XREAD succeeded.",
             1 if fanout.healthy else 0),
        ]
    client = getattr(state, "redis", None)
    pool = getattr(client, "connection_pool", None)
    if pool is not None and hasattr(pool, "stats"):
        stats = pool.stats()
        out += [("viva_redis_pool_in_use", "gauge", "Request-pool connections in use.",
                 stats["in_use"]),
                ("viva_redis_pool_idle", "gauge", "Request-pool connections idle.",
                 stats["idle"]),
                ("viva_redis_pool_max", "gauge", "Request-pool size.", stats["max"])]
    if client is not None:
        from judge.queue import GROUP, STREAM

        try:
            depth = await client.xlen(STREAM)
            pending = await client.xpending(STREAM, GROUP) if depth else None
            out += [("viva_judge_queue_depth", "gauge",
                     "Judge jobs queued or running (all workers).", int(depth)),
                    ("viva_judge_jobs_running", "gauge", "Judge jobs held by a worker.",
                     int(pending["pending"]) if pending else 0)]
            up = 1
        except (redis.exceptions.RedisError, OSError):
            up = 0
        out.append(("viva_redis_up", "gauge", "1 when Redis answered this scrape.", up))
    return out


def render(metrics: Metrics, collected: list[tuple[str, str, str, float]]) -> str:
    lines: list[str] = []
    for inst in metrics.instruments():
        lines += [f"# HELP {inst.name} {inst.help}", f"# TYPE {inst.name} {inst.kind}"]
        lines += inst.samples()
    for name, kind, help_text, value in collected:
        lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}",
                  f"{name} {_num(value)}"]
    return "\n".join(lines) + "\n"


@router.get("/metrics", response_class=PlainTextResponse, include_in_schema=False)
async def metrics_endpoint(request: Request) -> PlainTextResponse:
    """For the operator's scraper only: the figures show load, errors and sessions."""
    state = request.app.state
    settings = state.settings
    token = header_token(request.headers.get("authorization"))
    allowed = [t for t in (settings.metrics_token, settings.reviewer_token) if t]
    if token is None or not well_formed(token) or not any(
            hmac.compare_digest(token.encode(), t.encode()) for t in allowed):
        raise Unauthorized("metrics want `Authorization: Bearer` with VIVA_METRICS_TOKEN "
                           "(or the reviewer token)")
    collected = await _collected(state) + _process_figures()
    return PlainTextResponse(render(state.metrics, collected),
                             media_type="text/plain; version=0.0.4; charset=utf-8")
