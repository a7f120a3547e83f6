"""``GET /metrics``: the Prometheus text format, with figures that follow what happened."""

from __future__ import annotations

import re
from pathlib import Path

from tests.server.support import METRICS_AUTH, client, create_session, send, until

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (-?[0-9.e+]+|\+Inf|NaN)$')


def parse(text: str) -> tuple[dict[str, str], list[tuple[str, str, float]]]:
    """(declared types, samples); fails on any line outside the exposition format."""
    types: dict[str, str] = {}
    samples: list[tuple[str, str, float]] = []
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert kind in ("counter", "gauge", "histogram"), line
            types[name] = kind
        elif line.startswith("# HELP "):
            continue
        else:
            m = SAMPLE.match(line)
            assert m, f"not an exposition line: {line!r}"
            samples.append((m.group(1), m.group(2) or "", float(m.group(3))))
    for name, _, _ in samples:
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        assert name in types or types.get(base) == "histogram", f"{name} has no TYPE"
    return types, samples


def value(samples: list[tuple[str, str, float]], name: str, labels: str = "") -> float:
    found = [v for n, lab, v in samples if n == name and lab == labels]
    assert found, f"no sample {name}{labels}"
    return found[0]


def test_metrics_follow_an_interview(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        _, before = parse(c.get("/metrics", headers=METRICS_AUTH).text)
        assert value(before, "viva_turns_total") == 0
        s = create_session(c)
        with c.websocket_connect(f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            until(ws, "question")
            send(ws, {"type": "answer", "text": "A hash map hashes the key to a bucket."})
            until(ws, "feedback")
            send(ws, {"type": "launch"})
            until(ws, "error")
            r = c.get("/metrics", headers=METRICS_AUTH)
            assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
            types, during = parse(r.text)
            assert value(during, "viva_websockets_open") == 1
            assert value(during, "viva_live_sessions") == 1
        _, after = parse(c.get("/metrics", headers=METRICS_AUTH).text)
    assert types["viva_answer_feedback_seconds"] == "histogram"
    assert value(after, "viva_websockets_open") == 0
    assert value(after, "viva_sessions_created_total") == 1
    assert value(after, "viva_turns_total") == 1
    assert value(after, "viva_answer_feedback_seconds_count") == 1
    assert value(after, "viva_start_question_seconds_count") == 1
    assert value(after, 'viva_errors_total', '{code="unknown_type",where="ws"}') == 1
    assert value(after, "viva_judge_queue_depth") == 0 and value(after, "viva_redis_up") == 1
    assert value(after, "process_resident_memory_bytes") > 10 * 2**20
    buckets = [v for n, lab, v in after if n == "viva_answer_feedback_seconds_bucket"]
    assert buckets == sorted(buckets) and buckets[-1] == 1  # cumulative, +Inf = count


def test_metrics_want_the_operators_token(redis_url: str, tmp_path: Path) -> None:
    """Load, errors and session counts are the operator's: no token, a candidate's session
    token or a malformed one gets 401 in the error envelope, never the figures."""
    with client(redis_url, tmp_path) as c:
        s = create_session(c)
        for headers in ({}, {"Authorization": f"Bearer {s['token']}"},
                        {"Authorization": "Bearer é".encode()}, {"Authorization": "Basic x"}):
            r = c.get("/metrics", headers=headers)
            assert r.status_code == 401, headers
            assert r.json()["error"]["code"] == "unauthorized"
            assert "viva_" not in r.text
        assert c.get("/metrics", headers=METRICS_AUTH).status_code == 200
