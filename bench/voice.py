"""``viva bench voice``: voice-to-voice latency, partial-transcript delay and WER, measured
through the real websocket server.

A server process (uvicorn, real Redis, real models) is started; each simulated client opens
a voice interview, "plays" every spoken question in real time, then answers like a live
microphone: 20 ms PCM16 frames of real speech (Piper, or ``espeak-ng -v en-us -s 140``),
followed by silence frames that keep coming. Voice-to-voice latency is the time from the end
of the voiced audio to the first byte of reply audio, silence window included.
``--sessions 4`` runs that many clients at once. With ``--json`` the last stdout line is one
JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import numpy as np
import websockets

from agents.text_normalization import word_errors
from audio.pcm import STT_RATE
from audio.sample_speech import SpeechMaker
from bench.local_stack import app_server, private_redis, ws_url
from bench.stats import percentile
from core.tasks import cancel_and_wait

FRAME_S = 0.02
MAX_CATCH_UP_S = 0.1  # a microphone this far behind its schedule skips ahead, no burst
FRAME_SAMPLES = int(STT_RATE * FRAME_S)
SILENCE = np.zeros(FRAME_SAMPLES, dtype="<i2").tobytes()
RATINGS = {"algorithms": 3, "engineering": 3, "projects": 3}


@dataclass
class TurnResult:
    said: str
    heard: str
    v2v_ms: float | None
    first_partial_ms: float | None  # speech start → first partial transcript
    partial_gaps_ms: list[float]
    partials: list[str]
    server_marks: dict[str, Any] | None
    errors: list[dict[str, Any]] = field(default_factory=list)
    next_question: dict[str, Any] = field(default_factory=dict)  # asked in the reply
    reply_played_until: float = 0.0
    ended: bool = False


class LiveMicrophone:
    """Sends a 20 ms frame every 20 ms for ever: speech when given, silence otherwise."""

    def __init__(self, ws: Any, noise_rms: float = 0.0):
        self._ws = ws
        self._noise = np.random.default_rng(7) if noise_rms else None
        self._noise_rms = noise_rms
        self._speech: asyncio.Queue[tuple[np.ndarray, asyncio.Future[tuple[float, float]]]] = (
            asyncio.Queue())
        self.sent_frames = 0

    def say(self, pcm: np.ndarray) -> asyncio.Future[tuple[float, float]]:
        """Queue speech; resolves to (speech start, end of voiced audio) on the local clock."""
        done: asyncio.Future[tuple[float, float]] = asyncio.get_running_loop().create_future()
        self._speech.put_nowait((pcm, done))
        return done

    async def run(self) -> None:
        start = time.monotonic()
        current: list[bytes] = []
        done: asyncio.Future[tuple[float, float]] | None = None
        speech_start = 0.0
        tail_samples = 0
        while True:
            if not current and not self._speech.empty():
                pcm, done = self._speech.get_nowait()
                pcm = pcm.astype("<i2")
                tail_samples = (-len(pcm)) % FRAME_SAMPLES
                padded = np.concatenate([pcm, np.zeros(tail_samples, dtype="<i2")])
                current = [padded[i:i + FRAME_SAMPLES].tobytes()
                           for i in range(0, len(padded), FRAME_SAMPLES)]
                speech_start = time.monotonic()
            if current:
                frame = current.pop(0)
            elif self._noise is not None:  # a live microphone's room noise, not zeros
                frame = self._noise.normal(0, self._noise_rms, FRAME_SAMPLES).astype(
                    "<i2").tobytes()
            else:
                frame = SILENCE
            await self._ws.send(frame)
            self.sent_frames += 1
            if done is not None and not current:
                # A live microphone hands over a frame when its last sample is captured:
                # the voiced audio ended tail_samples before now.
                done.set_result((speech_start - FRAME_S,
                                 time.monotonic() - tail_samples / STT_RATE))
                done = None
            delay = start + self.sent_frames * FRAME_S - time.monotonic()
            if delay < -MAX_CATCH_UP_S:
                # This process stalled (a model loading, the GIL): go on in real time from
                # here instead of sending the missed frames in a burst, which the server
                # rightly refuses as faster than real time (dropping the speech in it).
                start -= delay
                delay = 0.0
            await asyncio.sleep(max(0.0, delay))


class VoiceClient:
    """One candidate on the websocket: listens to every event and binary frame."""

    def __init__(self, base_url: str):
        self.base_url = base_url
        self.events: asyncio.Queue[tuple[float, dict[str, Any] | bytes]] = asyncio.Queue()
        self.log: list[tuple[float, dict[str, Any] | bytes]] = []
        self.ws: Any = None
        self.mic: LiveMicrophone | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.session: dict[str, Any] = {}

    async def open(self, *, max_questions: int = 12, sample_rate: int = STT_RATE,
                   mic: bool = True, noise_rms: float = 0.0,
                   rounds: tuple[str, ...] = ("concepts",)) -> None:
        async with httpx.AsyncClient(base_url=self.base_url, timeout=30) as http:
            r = await http.post("/api/sessions", json={
                "candidate_id": f"bench-{os.getpid()}-{id(self)}", "role": "backend engineer",
                "mode": "voice", "self_ratings": RATINGS, "rounds": list(rounds),
                "max_questions": max_questions})
            r.raise_for_status()
            self.session = r.json()
        self.ws = await websockets.connect(ws_url(self.base_url, self.session),
                                           max_size=1 << 22)
        self._tasks.append(asyncio.create_task(self._receive()))
        await self.send({"type": "start"})
        await self.send({"type": "audio_config", "sample_rate": sample_rate,
                         "encoding": "pcm_s16le"})
        if mic:
            self.mic = LiveMicrophone(self.ws, noise_rms)
            self._tasks.append(asyncio.create_task(self.mic.run()))

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def _receive(self) -> None:
        async for message in self.ws:
            item: dict[str, Any] | bytes = (message if isinstance(message, bytes)
                                            else json.loads(message))
            stamped = (time.monotonic(), item)
            self.log.append(stamped)
            self.events.put_nowait(stamped)

    async def next_event(self, *types: str, within_s: float = 60.0) -> tuple[float, dict[str, Any]]:
        deadline = time.monotonic() + within_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {types} event within {within_s} s")
            at, item = await asyncio.wait_for(self.events.get(), left)
            if isinstance(item, dict) and (not types or item.get("type") in types):
                return at, item

    async def listen_to_speech(self, within_s: float = 60.0) -> tuple[dict[str, Any], float]:
        """Wait for a whole utterance (tts_start … tts_end); return the question event seen
        (if any) and when the client would finish playing it."""
        question: dict[str, Any] = {}
        first_audio: float | None = None
        audio_bytes = 0
        rate = 22050
        deadline = time.monotonic() + within_s
        while True:
            at, item = await asyncio.wait_for(self.events.get(), deadline - time.monotonic())
            if isinstance(item, bytes):
                first_audio = first_audio or at
                audio_bytes += len(item)
                continue
            kind = item.get("type")
            if kind == "question":
                question = item
            elif kind == "tts_start":
                rate = int(item.get("sample_rate", rate))
            elif kind == "tts_end":
                played_until = (first_audio or at) + audio_bytes / 2 / rate
                return question, played_until
            elif kind == "session_end":
                return {"ended": True}, at

    async def close(self) -> None:
        await cancel_and_wait(*self._tasks, context="bench client")
        if self.ws is not None:
            await self.ws.close()


async def speak_turn(client: VoiceClient, pcm: np.ndarray, said: str,
                     within_s: float = 60.0) -> TurnResult:
    """Say ``pcm`` into the live microphone; wait for the final transcript and the reply."""
    assert client.mic is not None
    spoken = client.mic.say(pcm)
    partials: list[tuple[float, str]] = []
    errors: list[dict[str, Any]] = []
    heard = ""
    marks: dict[str, Any] | None = None
    first_reply_audio: float | None = None
    reply_bytes = 0
    rate = 22050
    next_question: dict[str, Any] = {}
    ended = False
    deadline = time.monotonic() + within_s + len(pcm) / STT_RATE
    got_final = False
    while time.monotonic() < deadline:
        try:
            at, item = await asyncio.wait_for(client.events.get(), deadline - time.monotonic())
        except TimeoutError:
            break
        if isinstance(item, bytes):
            if got_final:
                first_reply_audio = first_reply_audio or at
                reply_bytes += len(item)
            continue
        kind = item.get("type")
        if kind == "question":
            next_question = item
        elif kind == "tts_start":
            rate = int(item.get("sample_rate", rate))
        elif kind == "transcript_partial":
            partials.append((at, item["text"]))
        elif kind == "transcript_final":
            heard, got_final = item["text"], True
        elif kind == "latency":
            marks = item
        elif kind == "error":
            errors.append(item)
        elif kind == "session_end":
            ended = True
            break
        elif kind == "tts_end" and got_final:
            break
    start, voiced_end = await spoken if spoken.done() else (None, None)
    v2v = None
    if first_reply_audio is not None and voiced_end is not None:
        v2v = (first_reply_audio - voiced_end) * 1000
    first_partial = ((partials[0][0] - start) * 1000
                     if partials and start is not None else None)
    gaps = [(b[0] - a[0]) * 1000 for a, b in zip(partials, partials[1:], strict=False)]
    played_until = (first_reply_audio or time.monotonic()) + reply_bytes / 2 / rate
    return TurnResult(said, heard, v2v, first_partial, gaps, [p for _, p in partials], marks,
                      errors, next_question, played_until, ended)


def answer_script() -> dict[str, str]:
    """What the simulated candidate says to each bank question: the start of its reference
    answer (so recognition meets the interview's real vocabulary)."""
    from agents.question_bank import load_question_bank

    script: dict[str, str] = {}
    for q in load_question_bank().questions.values():
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", q.reference_answer.strip()) if s]
        for i, key in enumerate([q.id, *[f.id for f in q.followups]]):
            words = sentences[min(i, len(sentences) - 1)].split()
            script[key] = " ".join(words[:28]).rstrip(",;:") + ("" if len(words) <= 28 else ".")
    return script


async def run_candidate(base_url: str, turns: int, maker: SpeechMaker, voice: str,
                        script: dict[str, str], progress: bool) -> list[TurnResult]:
    results: list[TurnResult] = []
    client: VoiceClient | None = None
    question: dict[str, Any] = {}
    played_until = 0.0
    try:
        while len(results) < turns:
            if client is None:
                client = VoiceClient(base_url)
                await client.open(max_questions=turns + 2)
                question, played_until = await client.listen_to_speech()
                if question.get("ended"):
                    await client.close()
                    client = None
                    continue
            # The candidate waits for the question to finish playing, then thinks briefly.
            await asyncio.sleep(max(0.0, played_until - time.monotonic()) + 0.4)
            text = script.get(str(question.get("question_id")),
                              "I would start with the simplest approach and then measure it.")
            pcm = await asyncio.to_thread(maker.speech, text, voice)
            result = await speak_turn(client, pcm, text)
            results.append(result)
            if progress:
                print(f"turn {len(results)}: v2v={result.v2v_ms and round(result.v2v_ms)} ms "
                      f"heard={result.heard!r} marks={result.server_marks}", file=sys.stderr)
            question, played_until = result.next_question, result.reply_played_until
            if result.ended or not question or result.v2v_ms is None:
                # The interview ended, or no new question was spoken: start a fresh one.
                await client.close()
                client = None
    finally:
        if client is not None:
            await client.close()
    return results


def summarize(results: list[TurnResult], sessions: int, voice: str) -> dict[str, Any]:
    v2v = [r.v2v_ms for r in results if r.v2v_ms is not None]
    errors = words = 0
    for r in results:
        e, n = word_errors(r.said, r.heard)
        errors, words = errors + e, words + n
    first_partial = [r.first_partial_ms for r in results if r.first_partial_ms is not None]
    gaps = [g for r in results for g in r.partial_gaps_ms]
    decode = [r.server_marks["stt_decode_ms"] for r in results
              if r.server_marks and r.server_marks.get("stt_decode_ms") is not None]
    hits = [bool(r.server_marks.get("speculative_hit")) for r in results if r.server_marks]

    def rnd(x: float | None) -> float | None:
        return None if x is None else round(x)

    return {
        "bench": "voice", "sessions": sessions, "voice": voice, "turns": len(results),
        "replied_turns": len(v2v),
        "v2v_ms_p50": rnd(percentile(v2v, 50)), "v2v_ms_p95": rnd(percentile(v2v, 95)),
        "v2v_ms_max": rnd(max(v2v) if v2v else None),
        "partial_first_ms_p50": rnd(percentile(first_partial, 50)),
        "partial_gap_ms_p50": rnd(percentile(gaps, 50)),
        "partial_gap_ms_p95": rnd(percentile(gaps, 95)),
        "wer": round(errors / max(words, 1), 4),
        "stt_final_decode_ms_p50": rnd(percentile([float(d) for d in decode], 50)),
        "speculative_hit_rate": round(sum(hits) / len(hits), 2) if hits else None,
        "errors": sum(len(r.errors) for r in results),
        # Other work on the machine slows everything: say how busy it was.
        "load_avg_1m": round(os.getloadavg()[0], 2), "cpus": os.cpu_count(),
        "worst": sorted(({"said": r.said, "heard": r.heard} for r in results
                         if word_errors(r.said, r.heard)[0]),
                        key=lambda w: -word_errors(w["said"], w["heard"])[0])[:3],
    }


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    # The real stack: a private Redis and `viva serve` in child processes.
    with private_redis() as redis_url, app_server(
            redis_url, VIVA_ENV="test", VIVA_JUDGE_ENABLED="false") as base_url:
        maker = SpeechMaker()
        script = answer_script()
        per_session = max(1, -(-args.turns // args.sessions))
        runs = await asyncio.gather(*[
            run_candidate(base_url, per_session, maker, args.voice, script,
                          not args.json) for _ in range(args.sessions)])
        return summarize([r for run in runs for r in run], args.sessions, args.voice)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="viva bench voice")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--turns", type=int, default=10, help="spoken turns in all")
    parser.add_argument("--voice", choices=["piper", "espeak"], default="piper",
                        help="the simulated candidate's voice")
    parser.add_argument("--set", help="a folder of real recorded speech (WAVs + "
                        "transcripts.tsv): answer with those clips instead of synthetic speech")
    parser.add_argument("--stt-model", help="VIVA_STT_MODEL for the server (with --set)")
    parser.add_argument("--limit", type=int, default=0, help="use the first N clips")
    parser.add_argument("--no-offline", action="store_true",
                        help="skip the offline decode of the same clips")
    parser.add_argument("--clips-out", help="with --set: write one JSON line per answer "
                        "(the clip, its reference, the live final, the offline decode, the "
                        "word errors of each, cut-in and amendment) to this file")
    args = parser.parse_args(argv)
    if args.set:
        from bench import voice_set

        figures = asyncio.run(voice_set.bench(args))
        print(json.dumps(figures) if args.json else json.dumps(figures, indent=1))
        return 0
    if args.sessions > 1 and args.turns == 10:
        args.turns = 10 * args.sessions  # ≥ 10 turns per concurrent candidate
    figures = asyncio.run(bench(args))
    print(json.dumps(figures) if args.json else json.dumps(figures, indent=1))
    return 0
