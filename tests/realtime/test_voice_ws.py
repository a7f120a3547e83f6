"""Voice end to end through the real app: websocket, real Redis, real models.

Spoken audio → partial and final transcripts with the right words; a spoken reply arrives;
barge-in stops the interviewer; silence yields no text; bad frames are refused cleanly.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from starlette.testclient import WebSocketTestSession

from agents.text_normalization import word_errors
from audio.pcm import STT_RATE
from audio.sample_speech import SpeechMaker
from tests.server.support import client, create_session, send

pytestmark = pytest.mark.slow

ANSWER = "A generator yields values one at a time, so it does not hold the whole list in memory."
FRAME = STT_RATE // 50


def receive(ws: WebSocketTestSession) -> dict[str, Any] | bytes:
    message = ws.receive()
    if message.get("bytes") is not None:
        return bytes(message["bytes"])
    return dict(json.loads(message["text"]))


def until(ws: WebSocketTestSession, kind: str, got: list[Any], limit: int = 3000) -> dict:
    for _ in range(limit):
        item = receive(ws)
        got.append(item)
        if isinstance(item, dict) and item["type"] == kind:
            return item
    raise AssertionError(f"no {kind}: {[i['type'] for i in got if isinstance(i, dict)]}")


def stream(ws: WebSocketTestSession, pcm: np.ndarray) -> None:
    start = time.monotonic()
    for n, i in enumerate(range(0, len(pcm), FRAME)):
        frame = pcm[i:i + FRAME]
        frame = np.concatenate([frame, np.zeros(FRAME - len(frame), dtype=np.int16)])
        ws.send_bytes(frame.astype("<i2").tobytes())
        time.sleep(max(0.0, start + (n + 1) * 0.02 - time.monotonic()))


def types(items: list[Any]) -> list[str]:
    return [i["type"] for i in items if isinstance(i, dict)]


def test_a_spoken_turn_over_the_websocket(redis_url: str, tmp_path: Path) -> None:
    answer_pcm = SpeechMaker().speech(ANSWER, "piper")
    with client(redis_url, tmp_path) as c:
        s = create_session(c, mode="voice", max_questions=3)
        url = f"/ws/sessions/{s['session_id']}?token={s['token']}"
        with c.websocket_connect(url) as ws:
            send(ws, {"type": "start"})
            ws.send_bytes(bytes(640))  # audio before audio_config
            got: list[Any] = []
            error = until(ws, "error", got)
            assert error["code"] in {"audio_not_configured", "audio_before_config"}
            send(ws, {"type": "audio_config", "sample_rate": 16000, "encoding": "pcm_s16le"})
            time.sleep(1.1)  # refused frames get one (unrecorded) notice a second
            ws.send_bytes(b"\x01\x02\x03")  # odd byte count
            error = until(ws, "error", got)
            assert error["code"] == "bad_audio_frame" and error["message"]

            # The first question is being spoken; the candidate talks over it.
            if "tts_start" not in types(got):
                until(ws, "tts_start", got)
            stream(ws, answer_pcm)
            stream(ws, np.zeros(STT_RATE, dtype=np.int16))
            final = until(ws, "transcript_final", got)
            assert "tts_stop" in types(got), types(got)
            assert types(got).index("tts_stop") < types(got).index("transcript_final")
            assert "transcript_partial" in types(got)
            errors, words = word_errors(ANSWER, final["text"])
            assert errors / words <= 0.25, final["text"]
            assert final["turn_id"]

            # The reply (feedback, next question) is spoken.
            after: list[Any] = []
            start = until(ws, "tts_start", after)
            end = until(ws, "tts_end", after)
            assert end["turn_id"] == start["turn_id"]
            audio = sum(len(i) for i in after if isinstance(i, bytes))
            assert audio > start["sample_rate"]  # over half a second of speech

            # Silence, like an open microphone: no text at all.
            stream(ws, np.zeros(2 * STT_RATE, dtype=np.int16))
            send(ws, {"type": "answer", "text": "I do not know."})  # a typed answer still works
            quiet: list[Any] = []
            until(ws, "feedback", quiet)
            assert "transcript_partial" not in types(quiet)
            finals = [i["text"] for i in quiet if isinstance(i, dict)
                      and i["type"] == "transcript_final"]
            assert finals == ["I do not know."]  # only the typed answer, nothing heard
        events = c.get(f"/api/sessions/{s['session_id']}/events",
                       headers={"Authorization": f"Bearer {s['token']}"}).text
    recorded = [json.loads(line)["type"] for line in events.splitlines() if line.strip()]
    assert "transcript_final" in recorded and "latency" in recorded and "tts_stop" in recorded


def test_a_client_that_vanishes_mid_answer_loses_nothing(redis_url: str, tmp_path: Path) -> None:
    """The connection drops halfway through a spoken answer: the server stays up, the half
    answer is not taken as one, and the candidate reconnects, resumes and answers."""
    answer_pcm = SpeechMaker().speech(ANSWER, "piper")
    with client(redis_url, tmp_path) as c:
        s = create_session(c, mode="voice", max_questions=3)
        url = f"/ws/sessions/{s['session_id']}?token={s['token']}"
        auth = {"Authorization": f"Bearer {s['token']}"}
        with c.websocket_connect(url) as ws:
            send(ws, {"type": "start"})
            send(ws, {"type": "audio_config", "sample_rate": 16000, "encoding": "pcm_s16le"})
            got: list[Any] = []
            question = until(ws, "question", got)
            stream(ws, answer_pcm[: len(answer_pcm) // 2])  # ... and the socket goes away
        assert c.get("/healthz").json()["redis"] == "ok"
        events = [json.loads(line) for line in
                  c.get(f"/api/sessions/{s['session_id']}/events", headers=auth).text.splitlines()]
        assert "feedback" not in types(events)  # half an answer was not graded as one
        with c.websocket_connect(url) as ws:
            send(ws, {"type": "resume", "after_seq": 0})
            replayed: list[Any] = []
            assert until(ws, "question", replayed)["seq"] == question["seq"]
            send(ws, {"type": "answer", "text": ANSWER})
            feedback = until(ws, "feedback", replayed)
            assert feedback["text"]
        seqs = [e["seq"] for e in events]
        assert seqs == sorted(set(seqs))
