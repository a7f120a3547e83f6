"""schemathesis against the app's own OpenAPI schema, on a real Redis.

Every operation gets a bounded number of generated requests (valid and invalid bodies, path
and query values), half of them with a real session's id and token so the checks reach past
authentication. Whatever comes in: never a 500, only 503 for a named dependency, and every
error in the contract's envelope ``{"error": {"code", "message", "details"}}``.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings

from server.app import create_app
from tests.conftest import RedisServer
from tests.server.support import create_session, make_settings

# Only to read the schema: the app under test is built per module, on the test Redis.
SCHEMA = schemathesis.openapi.from_dict(
    create_app(make_settings("redis://127.0.0.1:1/0", Path("/nonexistent"))).openapi())
# Per operation: enough to find a crash, short enough for `make test` (more: set the env).
EXAMPLES = int(os.environ.get("VIVA_FUZZ_EXAMPLES", "12"))
# A dependency that is down is named, never vague.
KNOWN_503 = {"judge_unavailable", "dependency_down", "server_busy"}


@pytest.fixture(scope="module")
def fuzz(redis_server: RedisServer,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    redis.Redis.from_url(redis_server.url).flushdb()
    data = tmp_path_factory.mktemp("fuzz")
    # The judge is on (problems, submissions) but runs no worker here: fuzzed code is queued,
    # never executed, and the queue goes with the next test's flush.
    app = create_app(make_settings(redis_server.url, data, ip_requests_burst=100_000,
                                   ip_sessions_burst=100_000, judge_enabled=True,
                                   judge_in_process_worker=False, judge_backend="bwrap"))
    with TestClient(app, raise_server_exceptions=False) as c:
        s = create_session(c)
        yield {"client": c, "session": s, "rng": random.Random(12), "statuses": Counter()}


def _send(c: TestClient, case: Any) -> Any:
    kwargs = case.as_transport_kwargs(base_url="http://testserver")
    body = kwargs.pop("data", None)
    request: dict[str, Any] = {k: kwargs[k] for k in ("method", "url", "headers", "params",
                                                     "json", "files") if k in kwargs}
    if kwargs.get("cookies"):  # a generated cookie goes in as a header (no client jar)
        request["headers"] = {**(request.get("headers") or {}), "Cookie": "; ".join(
            f"{k}={v}" for k, v in kwargs["cookies"].items())}
    if body is not None:
        request["content" if isinstance(body, bytes | str) else "data"] = body
    return c.request(**request)


@SCHEMA.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_no_500_and_the_error_envelope_always(case: Any, fuzz: dict[str, Any]) -> None:
    s, rng = fuzz["session"], fuzz["rng"]
    if rng.random() < 0.5:
        # Reach past auth: this session's id and token, so handlers themselves are fuzzed.
        for name in ("session_id", "id"):
            if case.path_parameters and name in case.path_parameters:
                case.path_parameters[name] = s["session_id"]
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {s['token']}"}
    r = _send(fuzz["client"], case)
    fuzz["statuses"][r.status_code] += 1
    where = f"{case.method} {case.formatted_path} -> {r.status_code}: {r.text[:300]}"
    assert r.status_code != 500, where
    if r.status_code < 400:
        return
    page = (not case.formatted_path.startswith("/api/")
            or case.formatted_path.endswith(".html"))
    if page and r.headers["content-type"].startswith("text/html"):
        # A page a browser opens by link (a report, a printable progress page): a refusal is
        # a page that says what is missing, never raw JSON.
        assert r.status_code in (401, 403, 404) and "<h1>" in r.text, where
        return
    assert r.headers["content-type"].startswith("application/json"), where
    body = json.loads(r.text)
    assert set(body) == {"error"}, where
    err = body["error"]
    assert set(err) <= {"code", "message", "details"}, where
    assert isinstance(err["code"], str) and err["code"], where
    assert isinstance(err["message"], str) and err["message"], where
    if r.status_code >= 500:
        assert r.status_code == 503 and err["code"] in KNOWN_503, where


def test_the_fuzzing_reached_the_handlers(fuzz: dict[str, Any]) -> None:
    """Runs after the fuzz above: it got past auth and validation, not only refusals."""
    statuses = fuzz["statuses"]
    assert sum(statuses.values()) >= 13 * min(EXAMPLES, 5), statuses
    assert any(200 <= code < 300 for code in statuses), statuses
    assert statuses[422] > 0 and any(code in statuses for code in (401, 403, 404)), statuses
