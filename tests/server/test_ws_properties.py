"""Property tests (hypothesis) of hostile input: any frame, any body, the contract holds.

Over one websocket, each generated frame (a mutated message of every client type, garbage
text, or binary) is followed by a marker frame. Whatever the frame did, the socket stays
open, the marker's ``unknown_type`` error comes back, every event has a ``type`` and a
``seq``, recorded events arrive in consecutive seq order (none missing, none twice — except
the replay a ``resume`` asks for), and every error has the contract's shape.
``audio_config`` is left out of the valid messages: a valid one loads the speech models
(the voice tests cover it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.ws_messages import KNOWN_TYPES, LANGUAGES
from tests.server.support import client, create_session, send

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=3),
    max_leaves=8)

MESSAGE = st.fixed_dictionaries(
    {"type": st.sampled_from(sorted(KNOWN_TYPES - {"audio_config"})) | st.text(max_size=12)
     | JSON},
    optional={
        "text": st.text(max_size=300) | JSON,
        "after_seq": st.integers(min_value=-5, max_value=10**15) | JSON,
        "problem_id": st.text(max_size=20) | JSON,
        "language": st.sampled_from(LANGUAGES) | JSON,
        "code": st.text(max_size=200) | JSON,
        "kind": st.sampled_from(["run", "submit"]) | JSON,
        "extra": JSON,
    })

FRAME = (MESSAGE.map(lambda m: ("text", json.dumps(m)))
         | st.text(max_size=200).map(lambda t: ("text", t))
         | st.binary(max_size=256).map(lambda b: ("bytes", b)))


def check_event(event: Any) -> None:
    assert isinstance(event, dict) and isinstance(event.get("type"), str), event
    assert isinstance(event.get("seq"), int) and event["seq"] >= 0, event
    if event["type"] == "error":
        assert isinstance(event.get("code"), str) and event["code"], event
        assert isinstance(event.get("message"), str) and event["message"], event


def test_any_websocket_frame_keeps_the_contract(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        s = create_session(c, max_questions=3)
        with c.websocket_connect(f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
            state = {"last_seq": 0, "n": 0}

            @settings(max_examples=80, deadline=None, database=None,
                      suppress_health_check=[HealthCheck.function_scoped_fixture,
                                             HealthCheck.too_slow])
            @given(FRAME)
            def one_frame(frame: tuple[str, Any]) -> None:
                kind, payload = frame
                if kind == "bytes":
                    ws.send_bytes(payload)
                else:
                    ws.send_text(payload)
                # A resume replays from its after_seq: the next recorded event may go back.
                replay = kind == "text" and '"resume"' in payload
                state["n"] += 1
                marker = f"marker-{state['n']}"
                send(ws, {"type": marker})
                for _ in range(200):
                    event = ws.receive_json()
                    check_event(event)
                    if event["seq"]:  # recorded: the next one, none skipped
                        if replay:
                            assert 1 <= event["seq"] <= state["last_seq"] + 1, (event, state)
                            replay = False
                        else:
                            assert event["seq"] == state["last_seq"] + 1, (event, state)
                        state["last_seq"] = event["seq"]
                    if event["type"] == "error" and marker in event["message"]:
                        assert event["code"] == "unknown_type"
                        return
                raise AssertionError("the marker's error never came back")

            one_frame()


BODY = st.fixed_dictionaries({}, optional={
    "candidate_id": st.text(max_size=30) | JSON, "role": st.text(max_size=30) | JSON,
    "mode": st.sampled_from(["voice", "text"]) | JSON,
    "self_ratings": st.fixed_dictionaries({}, optional={
        k: st.integers(-2, 8) | JSON for k in ("algorithms", "engineering", "projects")}) | JSON,
    "resume_text": st.text(max_size=100) | JSON,
    "rounds": st.lists(st.sampled_from(["concepts", "coding", "x"]), max_size=3) | JSON,
    "max_questions": st.integers(-3, 10**6) | JSON,
}) | JSON


def test_any_session_body_gets_201_or_the_error_envelope(redis_url: str,
                                                         tmp_path: Path) -> None:
    with client(redis_url, tmp_path) as c:
        @settings(max_examples=120, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture])
        @given(BODY)
        def one_body(body: Any) -> None:
            r = c.post("/api/sessions", json=body)
            assert r.status_code in (201, 422), (r.status_code, r.text)
            out = r.json()
            if r.status_code == 201:
                # The contract's three, and whether it joined the candidate's progress
                # (with the candidate key when this body claimed the id).
                assert set(out) == {"session_id", "token", "ws_url", "joins_progress",
                                    "candidate_key"}
                assert isinstance(out["joins_progress"], bool)
            else:
                assert set(out) == {"error"} and out["error"]["code"] == "invalid_input"
                assert out["error"]["message"]

        one_body()
