"""A voice interview with real recorded speech, recorded: audio of both sides per turn,
WebVTT on that audio, the NDJSON timeline, the archive that outlives its Redis keys, export
and import, and token isolation (audio included). Real Redis, faster-whisper, Piper, PyAV."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
import wave
from pathlib import Path
from typing import Any

import av
import numpy as np
import pytest
import redis
import soxr

from audio.recording_codec import decoded_seconds
from audio.speech_set import REPO_SET, load_speech_set
from server.archive_import import import_archive
from server.archived_session import export_archive
from tests.conftest import ROOT
from tests.realtime.test_voice_ws import receive, types, until
from tests.realtime.test_voice_ws import stream as ws_stream
from tests.server.support import client, create_session, send

pytestmark = pytest.mark.slow

PLAIN = {c.name: c for c in load_speech_set(REPO_SET / "plain")}
ANSWERS = ["vctk_p314_272.wav", "arctic_a0009.wav"]


def pcm_of(name: str) -> np.ndarray:
    with wave.open(str(PLAIN[name].path), "rb") as w:
        assert w.getframerate() == 16000
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").copy()


def room(seconds: float, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).normal(0, 30, int(16000 * seconds)).astype(np.int16)


def decode_16k(data: bytes) -> np.ndarray:
    chunks, rate = [], 16000
    with av.open(io.BytesIO(data), "r") as container:
        for frame in container.decode(audio=0):
            chunks.append(frame.to_ndarray().reshape(-1, frame.samples)[0].astype(np.float32))
            rate = frame.sample_rate
    audio = np.concatenate(chunks)
    if audio.dtype != np.float32 or np.abs(audio).max() > 2:
        audio = audio / 32768
    return soxr.resample(audio, rate, 16000) if rate != 16000 else audio


def best_correlation(recorded: np.ndarray, speech: np.ndarray) -> float:
    """Peak normalised cross-correlation of the speech inside the recording."""
    s = speech.astype(np.float32) / 32768
    n = len(recorded) + len(s)
    xc = np.fft.irfft(np.fft.rfft(recorded, n) * np.conj(np.fft.rfft(s, n)), n)
    lag = int(np.argmax(np.abs(xc)))
    seg = np.roll(np.pad(recorded, (0, len(s))), -lag)[:len(s)]
    denom = float(np.linalg.norm(seg) * np.linalg.norm(s)) or 1.0
    return float(abs(xc[lag]) / denom)


def spoken_turn(ws: Any, got: list[Any]) -> tuple[dict[str, Any], int]:
    """Receive one full utterance and listen to it to its end, as a person would (it is sent
    faster than it plays; talking over it would be a barge-in, right after it a false end of
    turn). Returns its tts_start and the PCM bytes received."""
    while "tts_start" not in types(got):
        got.append(receive(ws))
    began = time.monotonic()
    start = next(i for i in got if isinstance(i, dict) and i["type"] == "tts_start")
    pcm = 0
    at = got.index(start)
    for item in got[at + 1:]:
        if isinstance(item, bytes):
            pcm += len(item)
    while True:
        item = receive(ws)
        got.append(item)
        if isinstance(item, bytes):
            pcm += len(item)
        elif item["type"] in ("tts_end", "tts_stop"):
            time.sleep(max(0.0, began + pcm / 2 / start["sample_rate"] - time.monotonic()))
            return start, pcm


def cues(vtt: str) -> list[tuple[int, int, str, str]]:
    def ms(ts: str) -> int:
        h, m, s = ts.split(":")
        return round((int(h) * 3600 + int(m) * 60 + float(s)) * 1000)

    out = []
    for block in vtt.split("\n\n")[1:]:
        lines = block.strip().splitlines()
        if len(lines) < 3:
            continue
        a, b = lines[1].split(" --> ")
        voice, text = re.match(r"<v (\w+)>(.*)", lines[2]).groups()  # type: ignore[union-attr]
        out.append((ms(a), ms(b), voice, text))
    return out


def record_voice_interview(c: Any, answers: list[str]) -> tuple[
        dict[str, Any], list[dict[str, Any]], tuple[dict[str, Any], int]]:
    """A voice interview: each answer spoken (real speech; one that names no clip of the set
    is typed instead) after the question was heard, two
    editor states, then the end and the closing words. Waits until it is archived whole.
    Returns the session, its events and the first utterance (tts_start, PCM bytes)."""
    s = create_session(c, mode="voice", max_questions=3)
    sid, auth = s["session_id"], {"Authorization": f"Bearer {s['token']}"}
    with c.websocket_connect(f"/ws/sessions/{sid}?token={s['token']}") as ws:
        send(ws, {"type": "start"})
        send(ws, {"type": "audio_config", "sample_rate": 16000, "encoding": "pcm_s16le"})
        first_utterance = spoken_turn(ws, [])
        for i, name in enumerate(answers):
            if name in PLAIN:
                ws_stream(ws, np.concatenate([room(0.4, i), pcm_of(name), room(3.0, i + 7)]))
            else:  # typed instead of spoken
                time.sleep(1.0)
                send(ws, {"type": "answer", "text": name})
            after: list[Any] = []
            while "transcript_final" not in types(after):
                after.append(receive(ws))
            spoken_turn(ws, after)  # the reply, heard to its end
        for code in ("print('first')\n", "print('second')\n"):
            send(ws, {"type": "code_change", "problem_id": "two-sum", "language": "python",
                      "code": code})
            time.sleep(0.5)  # typing
        send(ws, {"type": "end"})
        closing: list[Any] = []
        while "session_end" not in types(closing):
            closing.append(receive(ws))
        spoken_turn(ws, closing)  # the closing words
    events = [json.loads(line) for line in
              c.get(f"/api/sessions/{sid}/events", headers=auth).text.splitlines()]
    mark = Path(c.app.state.settings.data_dir) / "sessions" / sid / "archive.json"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        info = json.loads(mark.read_text()) if mark.is_file() else {}
        # Whole: every event, and a recording per utterance and per answer.
        if info.get("last_seq") == events[-1]["seq"] and info.get("recordings") == len(
                [e for e in events if e["type"] == "tts_start"
                 or (e["type"] == "transcript_final" and "confidence" in e)]):
            return s, events, first_utterance
        time.sleep(0.2)
    raise AssertionError("the session was not archived")


def test_a_voice_interview_is_recorded_archived_and_private(redis_url: str,
                                                            tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with client(redis_url, data_dir) as c:
        other = create_session(c, mode="text", max_questions=1)
        s, events, first_utterance = record_voice_interview(c, ANSWERS)
        sid, auth = s["session_id"], {"Authorization": f"Bearer {s['token']}"}
        live_ndjson = c.get(f"/api/sessions/{sid}/events", headers=auth).text
        folder = data_dir / "sessions" / sid

        # -- the timeline: ordered and complete
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert [e["t_ms"] for e in events] == sorted(e["t_ms"] for e in events)
        kinds = set(types(events))
        assert {"question", "transcript_final", "feedback", "tts_start", "tts_end",
                "code_change", "session_end"} <= kinds
        finals = [e for e in events if e["type"] == "transcript_final"]
        assert len(finals) == len(ANSWERS)

        # -- audio: one file per turn and utterance, each decodes, durations on the marks
        listing = c.get(f"/api/sessions/{sid}/audio", headers=auth)
        assert listing.status_code == 200
        audio = listing.json()
        assert [a["t_ms"] for a in audio] == sorted(a["t_ms"] for a in audio)
        assert {"turn_id", "speaker", "t_ms", "duration_ms", "url"} <= set(audio[0])
        candidate = [a for a in audio if a["speaker"] == "candidate"]
        interviewer = [a for a in audio if a["speaker"] == "interviewer"]
        assert len(candidate) == len(ANSWERS)
        assert len(interviewer) == len([e for e in events if e["type"] == "tts_start"])
        manifest = {json.loads(line)["file"]: json.loads(line)
                    for line in (folder / "audio.jsonl").read_text().splitlines()}
        decoded: dict[str, bytes] = {}
        for a in audio:
            r = c.get(a["url"], headers=auth)
            assert r.status_code == 200 and r.headers["content-type"] == "audio/ogg"
            decoded[a["url"]] = r.content
            seconds = decoded_seconds(r.content)
            assert abs(seconds * 1000 - a["duration_ms"]) <= 100, a
        for a, final, name in zip(candidate, finals, ANSWERS, strict=True):
            marks = manifest[a["url"].rsplit("/", 1)[1]]["marks"]
            seconds = decoded_seconds(decoded[a["url"]])
            assert abs(seconds * 1000 - (marks["turn_end"] - marks["speech_start"])) <= 100
            assert a["t_ms"] == marks["speech_start"]
            assert a["turn_id"] == final["turn_id"]
            speech_s = len(pcm_of(name)) / 16000
            # From the onset (with its pre-roll) to the end of the turn: all the speech, plus
            # the pause waited (at most the 3 s of room noise streamed after it).
            assert speech_s - 0.3 <= seconds <= speech_s + 3.5, (seconds, speech_s)
            assert a["t_ms"] + a["duration_ms"] <= final["t_ms"] + 100  # heard, then decoded
            # It is the microphone's audio: the real speech is inside it.
            assert best_correlation(decode_16k(decoded[a["url"]]), pcm_of(name)) > 0.6
        starts = [e for e in events if e["type"] == "tts_start"]
        for a, start in zip(interviewer, starts, strict=True):
            assert a["turn_id"] == start["turn_id"]
            assert abs(a["t_ms"] - start["t_ms"]) <= 100, (a, start)
        assert first_utterance is not None
        start, pcm_bytes = first_utterance
        sent_ms = pcm_bytes / 2 / start["sample_rate"] * 1000
        assert abs(interviewer[0]["duration_ms"] - sent_ms) <= 100

        # -- WebVTT on the audio
        vtt = c.get(f"/api/sessions/{sid}/transcript.vtt", headers=auth).text
        parsed = cues(vtt)
        said = [q for q in parsed if q[2] == "Candidate"]
        assert [q[3] for q in said] == [f["text"] for f in finals]
        for (begin, end, _, _), a in zip(said, candidate, strict=True):
            assert begin == a["t_ms"] and end == a["t_ms"] + a["duration_ms"]
        for begin, end, voice, _ in parsed:
            if voice == "Interviewer":
                assert any(i["t_ms"] - 1 <= begin < end <= i["t_ms"] + i["duration_ms"] + 1
                           for i in interviewer), (begin, end)
        assert len([q for q in parsed if q[2] == "Interviewer"]) >= len(interviewer)

        # -- report evidence anchors resolve to real events: the answer they quote
        report = c.get(f"/api/sessions/{sid}/report", headers=auth).json()
        anchors = [q for p in report["assessment_points"] for q in p["evidence"]] + [
            n for n in report["strength_notes"] + report["weak_notes"] if n.get("quote")]
        assert anchors
        for anchor in anchors:
            heard = [f for f in finals if f["turn_id"] == anchor["turn_id"]
                     and f["t_ms"] - 50 <= anchor["t_ms"] <= f["t_ms"] + 2000]
            assert heard, anchor
            words = " ".join(f["text"] for f in heard).lower()
            assert all(w in words for w in re.findall(r"[a-z']+", anchor["quote"].lower()))

        # -- another session's token opens nothing of this one, audio included
        theirs = {"Authorization": f"Bearer {other['token']}"}
        for path in ("/audio", "/events", "/transcript.vtt", "/report"):
            assert c.get(f"/api/sessions/{sid}{path}", headers=theirs).status_code == 403
        assert c.get(audio[0]["url"], headers=theirs).status_code == 403
        assert c.get(audio[0]["url"]).status_code == 401
        file_name = audio[0]["url"].rsplit("/", 1)[1]
        assert c.get(f"/api/sessions/{other['session_id']}/audio/{file_name}",
                     headers=theirs).status_code == 404
        assert c.get(f"/api/sessions/{sid}/audio/..%2Faudio.jsonl",
                     headers=auth).status_code in (404, 422)

        # -- the archive outlives the Redis keys
        live_report = c.get(f"/api/sessions/{sid}/report", headers=auth).json()
        r = redis.Redis.from_url(redis_url)
        doomed = r.keys(f"viva:session:{sid}:*")
        assert doomed and r.delete(*doomed) == len(doomed)
        r.close()
        assert c.get(f"/api/sessions/{sid}/events", headers=auth).text == live_ndjson
        assert c.get(f"/api/sessions/{sid}/transcript.vtt", headers=auth).text == vtt
        assert c.get(f"/api/sessions/{sid}/report", headers=auth).json() == live_report
        page = c.get(f"/sessions/{sid}/report", headers=auth)
        assert page.status_code == 200 and "Interview report" in page.text
        assert "Code revisions" in page.text and f"/playback/{sid}?t=" in page.text
        assert c.get(f"/api/sessions/{sid}/audio", headers=auth).json() == audio
        assert c.get(audio[-1]["url"], headers=auth).content == decoded[audio[-1]["url"]]
        assert c.get(f"/api/sessions/{sid}/audio", headers=theirs).status_code == 403
        assert c.get(f"/api/sessions/{sid}/events",
                     headers={"Authorization": "Bearer reviewer-secret-xyz"}).status_code == 200
        revisions = json.loads((folder / "code" / "revisions.json").read_text())
        assert [(folder / "code" / rev["file"]).read_text() for rev in revisions] == [
            "print('first')\n", "print('second')\n"]

        # -- export (the command line), then import into an empty data dir
        tarball = tmp_path / "export.tar.gz"
        run_viva(data_dir, redis_url, "export", sid, "--out", str(tarball))
        elsewhere = tmp_path / "elsewhere"
        assert run_viva(elsewhere, redis_url, "import", str(tarball)).strip() == sid
        assert (elsewhere / "sessions" / sid / "events.ndjson").read_text() == live_ndjson
        assert import_archive(tmp_path / "again", export_archive(
            elsewhere, sid, tmp_path / "folder")) == sid  # a folder export reads back too

    assert run_viva(elsewhere, redis_url, "report", sid, "--format", "vtt").strip() == vtt.strip()


def run_viva(data_dir: Path, redis_url: str, *args: str) -> str:
    env = {**os.environ, "VIVA_DATA_DIR": str(data_dir), "REDIS_URL": redis_url,
           "VIVA_ENV": "test"}
    out = subprocess.run([sys.executable, "-m", "server.cli", *args], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.timeout(180)
def test_a_barge_in_keeps_only_what_was_heard(redis_url: str, tmp_path: Path) -> None:
    """The candidate talks over the first question: its recording ends at the stop."""
    with client(redis_url, tmp_path) as c:
        s = create_session(c, mode="voice", max_questions=2)
        sid, auth = s["session_id"], {"Authorization": f"Bearer {s['token']}"}
        with c.websocket_connect(f"/ws/sessions/{sid}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            send(ws, {"type": "audio_config", "sample_rate": 16000, "encoding": "pcm_s16le"})
            got: list[Any] = []
            until(ws, "tts_start", got)
            # A person talks over a question they hear: its first audio has arrived. (Talking
            # before any was sent leaves no interviewer recording at all: nothing was heard.)
            while not any(isinstance(i, bytes) for i in got):
                got.append(receive(ws))
            ws_stream(ws, np.concatenate([pcm_of("arctic_a0009.wav"), room(2.5)]))
            until(ws, "transcript_final", got)
        kinds = [i if isinstance(i, bytes) else i["type"] for i in got]
        until_stop = got[:kinds.index("tts_stop")] if "tts_stop" in kinds else got
        sent = sum(len(i) for i in until_stop if isinstance(i, bytes))
        events = [json.loads(line) for line in
                  c.get(f"/api/sessions/{sid}/events", headers=auth).text.splitlines()]
        start = next(e for e in events if e["type"] == "tts_start")
        stop = next(e for e in events if e["type"] == "tts_stop")
        deadline = time.monotonic() + 20
        first = None
        while time.monotonic() < deadline and first is None:
            first = next((a for a in c.get(f"/api/sessions/{sid}/audio", headers=auth).json()
                          if a["turn_id"] == start["turn_id"]
                          and a["speaker"] == "interviewer"), None)
            time.sleep(0.2)
        assert first is not None and first["cut"]
        # Heard from tts_start until the stop (no more than had been sent by then), not the
        # whole question.
        heard_ms = min(sent / 2 / start["sample_rate"] * 1000, stop["t_ms"] - start["t_ms"])
        assert abs(first["duration_ms"] - heard_ms) <= 150, (first, stop, sent)
