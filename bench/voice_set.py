"""``viva bench voice --set DIR``: the live voice pipeline on real recorded speech.

DIR holds 16 kHz mono WAVs and ``transcripts.tsv`` (see ``audio/speech_set.py``), e.g.
``tests/data/real_speech/plain`` or ``.../paused`` (with thinking pauses inserted mid-answer).
Each simulated candidate opens a voice interview on the real server (real Redis, real models)
and answers every question with the next clip, streamed like a live microphone (20 ms frames
in real time, then room-level silence that keeps coming). Per run:
- streaming WER (the last ``transcript_final`` of the answer) and the same model's offline
  WER (the whole clip decoded in one go by faster-whisper): the gap is the pipeline's cost;
  and the offline WER *with the live prompt*: each whole clip decoded by the live recognizer
  with the question it answered and that question's key terms as the prompt, as the session
  decodes it. The set's clips do not answer the bench's questions, so the prompt can cost
  words here that it wins on real answers; the gap to this figure is what streaming alone
  costs (cutting the audio into turns and pauses), the prompt's share set apart;
- cut-ins: reply audio that started before the candidate finished the clip;
- split answers: a clip whose words were committed as two answers (two question turns, or
  two finals that were not one amended answer); false ends recovered by amendment;
- voice-to-voice p50/p95 (end of the clip's voiced audio → first reply audio byte) on
  answers that were not cut, end-of-turn delay p50/p95 and per-stage times from the
  server's ``latency`` marks.
With ``--json`` the last stdout line is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
import wave
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.text_normalization import normalize_words, word_errors
from audio.pcm import STT_RATE, pcm16_to_float
from audio.speech_set import SpeechClip, load_speech_set
from audio.stt import RecognitionBias, RecognitionRequest
from audio.vad import FRAME_MS, FRAME_SAMPLES, WebRtcVoiceDetector
from bench.local_stack import app_server, private_redis
from bench.stats import percentile
from bench.voice import VoiceClient
from realtime.frames import AudioFrame, TurnFrame
from realtime.transcript_cues import transcript_cue
from realtime.turn_detector import ONSET_MS, TurnDetector
from realtime.voice_session import MAX_HOTWORDS

MAX_QUESTIONS = 30  # the API's limit: a longer set goes on in a new session
ANSWER_AFTER_S = 0.6  # a person starts answering this long after the question ends
ROOM_RMS = 30.0  # the simulated microphone's room noise between and around the clips
MIN_VOICED_RMS = 60.0  # int16 RMS below which a 30 ms frame is never voice


def read_clip(clip: SpeechClip) -> np.ndarray:
    with wave.open(str(clip.path), "rb") as wav:
        if wav.getframerate() != STT_RATE or wav.getnchannels() != 1:
            raise ValueError(f"{clip.path}: need 16 kHz mono PCM16")
        return np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2").copy()


def voiced_end_s(pcm: np.ndarray) -> float:
    """Where the clip's last sound ends (trailing room noise excluded): the last run of
    frames well above the recording's own noise floor that lasts as long as the live
    detector needs to open a turn (``ONSET_MS``). A lone loud frame after the last word, a
    click or a lip smack, is not where the candidate stopped talking: counted as the end,
    it made replies look early (cut-ins) or quick (voice-to-voice) by up to a second."""
    step = STT_RATE * 30 // 1000
    frames = pcm[:len(pcm) // step * step].astype(np.float32).reshape(-1, step)
    if not len(frames):
        return len(pcm) / STT_RATE
    rms = np.sqrt(np.mean(frames ** 2, axis=1))
    threshold = max(MIN_VOICED_RMS, 4 * float(np.percentile(rms, 10)),
                    0.03 * float(np.percentile(rms, 95)))
    loud = rms >= threshold
    run = -(-ONSET_MS // FRAME_MS)
    # full[i]: frames i .. i + run - 1 are all loud
    full = np.convolve(loud.astype(np.int32), np.ones(run, dtype=np.int32), "valid") == run
    starts = np.flatnonzero(full)
    if not len(starts):
        return len(pcm) / STT_RATE
    last = int(starts[-1]) + run - 1
    return (last + 1) * step / STT_RATE


def detector_frames(pcm: np.ndarray) -> Iterator[tuple[float, np.ndarray, bool, list[TurnFrame]]]:
    """A clip's 30 ms frames as the live pipeline hears them: each frame's end (seconds on
    the clip's clock), its samples, the live voice detector's call, and what a live turn
    detector that never ends the turn makes of it."""
    vad, detector = WebRtcVoiceDetector(), TurnDetector(silence_ms=10 ** 9)
    for i in range(len(pcm) // FRAME_SAMPLES):
        frame = pcm[i * FRAME_SAMPLES:(i + 1) * FRAME_SAMPLES]
        at = (i + 1) * FRAME_MS / 1000
        voiced = vad.is_speech(frame)
        yield at, frame, voiced, detector.push(AudioFrame(frame, at, voiced))


@dataclass
class ClipResult:
    clip: str
    said: str
    heard: str
    finals: int
    amended: int
    turn_ids: int
    cut_in: bool
    v2v_ms: float | None
    marks: dict[str, Any] | None
    errors: list[dict[str, Any]] = field(default_factory=list)
    verdicts: list[dict[str, Any]] = field(default_factory=list)  # every end-of-turn verdict
    ended: bool = False
    next_question: dict[str, Any] = field(default_factory=dict)
    played_until: float = 0.0
    asked: dict[str, Any] = field(default_factory=dict)  # the question this clip answered

    def mark(self, name: str) -> float | None:
        """One of the server's latency marks (ms after the voice end it heard), if sent."""
        value = ((self.marks or {}).get("marks_ms") or {}).get(name)
        return None if value is None else float(value)

    @property
    def heard_end_late_ms(self) -> float | None:
        """How much later than the recording's voiced end the server placed the voice's end
        (and the reply's trip back): the voice-to-voice time less the server's own count
        from the end it heard to its first reply audio."""
        first_audio = self.mark("first_audio")
        if self.v2v_ms is None or first_audio is None:
            return None
        return round(self.v2v_ms - first_audio)

    @property
    def split(self) -> bool:
        return self.turn_ids > 1 or self.finals - self.amended > 1


async def answer_with_clip(client: VoiceClient, clip: SpeechClip, pcm: np.ndarray,
                           within_s: float = 40.0) -> ClipResult:
    assert client.mic is not None
    said_at = time.monotonic()
    spoken = client.mic.say(pcm)
    voiced_end_at = said_at + voiced_end_s(pcm)  # refined once the microphone reports
    finals: list[dict[str, Any]] = []
    reply_audio_at: float | None = None  # the first reply audio byte after the last final
    reply_bytes, rate = 0, 22050
    cut_in = False
    marks: dict[str, Any] | None = None
    errors: list[dict[str, Any]] = []
    verdicts: list[dict[str, Any]] = []
    next_question: dict[str, Any] = {}
    ended = False
    deadline = time.monotonic() + within_s + len(pcm) / STT_RATE
    while time.monotonic() < deadline:
        try:
            at, item = await asyncio.wait_for(client.events.get(), 0.1)
        except TimeoutError:
            continue
        clip_done = spoken.done()
        if isinstance(item, bytes):
            if finals:
                if reply_audio_at is None:
                    reply_audio_at = at
                    # The interviewer talks before the candidate has finished: a cut-in.
                    cut_in = cut_in or at < voiced_end_at
                reply_bytes += len(item)
            continue
        kind = item.get("type")
        if kind == "transcript_final":
            finals.append(item)
            reply_audio_at, reply_bytes = None, 0
        elif kind == "question":
            next_question = item
        elif kind == "tts_start":
            rate = int(item.get("sample_rate", rate))
        elif kind == "tts_stop":
            reply_audio_at, reply_bytes = None, 0
        elif kind == "latency":
            marks = item
            if item.get("end_of_turn"):
                verdicts.append(item["end_of_turn"])
        elif kind == "error":
            errors.append(item)
        elif kind == "session_end":
            ended = True
            if clip_done:
                break
        elif kind == "tts_end" and finals and clip_done and reply_audio_at is not None:
            break
    if spoken.done():
        start, _ = spoken.result()
        voiced_end_at = start + voiced_end_s(pcm)
    v2v = None
    if reply_audio_at is not None and spoken.done() and not cut_in:
        v2v = (reply_audio_at - voiced_end_at) * 1000
    heard = finals[-1]["text"] if finals else ""
    return ClipResult(
        clip=clip.name, said=clip.text, heard=heard, finals=len(finals),
        amended=sum(1 for f in finals if f.get("amended")),
        turn_ids=len({f.get("turn_id") for f in finals}), cut_in=cut_in, v2v_ms=v2v,
        marks=marks, errors=errors, verdicts=verdicts, ended=ended, next_question=next_question,
        played_until=(reply_audio_at or time.monotonic()) + reply_bytes / 2 / rate)


async def run_candidate(base_url: str, clips: list[SpeechClip], progress: bool,
                        offset: int = 0) -> list[ClipResult]:
    results: list[ClipResult] = []
    client: VoiceClient | None = None
    played_until = 0.0
    question: dict[str, Any] = {}  # the question the next clip answers
    order = clips[offset:] + clips[:offset]
    try:
        for clip in order:
            if client is None:
                client = VoiceClient(base_url)
                await client.open(max_questions=min(len(clips) + 2, MAX_QUESTIONS),
                                  noise_rms=ROOM_RMS)
                question, played_until = await client.listen_to_speech()
            # Wait for the question to finish playing, then answer as a person does.
            await asyncio.sleep(max(0.0, played_until - time.monotonic()) + ANSWER_AFTER_S)
            pcm = read_clip(clip)
            result = await answer_with_clip(client, clip, pcm)
            result.asked = question
            results.append(result)
            question = result.next_question or question
            if progress:
                print(f"{clip.name}: finals={result.finals} amended={result.amended} "
                      f"cut_in={result.cut_in} v2v={result.v2v_ms and round(result.v2v_ms)} "
                      f"heard={result.heard!r} eot={(result.marks or {}).get('end_of_turn')} "
                      f"marks={(result.marks or {}).get('marks_ms')}",
                      file=sys.stderr)
            played_until = result.played_until
            if result.ended or not result.next_question:
                await client.close()
                client = None
    finally:
        if client is not None:
            await client.close()
    return results


def offline_wer(clips: list[SpeechClip], model: str) -> tuple[float, dict[str, str]]:
    """The same model decoding each whole clip offline (faster-whisper, beam 1)."""
    from faster_whisper import WhisperModel

    from audio.model_files import whisper_model_dir

    whisper = WhisperModel(str(whisper_model_dir(model)), device="cpu", compute_type="int8",
                           cpu_threads=2)
    errors = words = 0
    texts: dict[str, str] = {}
    for clip in clips:
        audio = pcm16_to_float(read_clip(clip))
        segments, _ = whisper.transcribe(audio, language="en", beam_size=1,
                                         vad_filter=False)
        text = " ".join(s.text.strip() for s in segments)
        texts[clip.name] = text
        e, n = word_errors(clip.text, text)
        errors, words = errors + e, words + n
    return errors / max(words, 1), texts


def live_prompt(asked: dict[str, Any], key_terms: dict[str, list[str]]) -> RecognitionBias:
    """The prompt the session decoded this answer with: the question asked, and its key
    terms when it is a bank question (as ``server/ws.py`` sets the voice context)."""
    qid = str(asked.get("question_id") or "")
    return RecognitionBias(context=str(asked.get("text") or ""),
                           hotwords=tuple(key_terms.get(qid, [])[:MAX_HOTWORDS]))


def prompted_offline(results: list[ClipResult], clips: list[SpeechClip],
                     model: str) -> tuple[float, dict[tuple[str, str], str]]:
    """Each answer's whole clip decoded by the live recognizer with the live prompt (one
    decode per clip and question), scored over the answers as the streaming WER is."""
    from agents.question_bank import load_question_bank
    from audio.whisper_stt import WhisperRecognizer

    bank = load_question_bank()
    terms = {qid: q.key_terms for qid, q in bank.questions.items()}
    recognizer = WhisperRecognizer.load(model, cpu_threads=2)
    by_name = {c.name: c for c in clips}
    texts: dict[tuple[str, str], str] = {}
    errors = words = 0
    for r in results:
        bias = live_prompt(r.asked, terms)
        key = (r.clip, bias.context)
        if key not in texts:
            audio = pcm16_to_float(read_clip(by_name[r.clip]))
            texts[key] = recognizer.recognize(RecognitionRequest(audio=audio, bias=bias)).text
        e, n = word_errors(r.said, texts[key])
        errors, words = errors + e, words + n
    return errors / max(words, 1), texts


def repeated_ngrams(reference: str, hypothesis: str, n: int = 3) -> int:
    """n-grams said twice in a row in the hypothesis but not in the reference."""
    def doubled(words: list[str]) -> set[tuple[str, ...]]:
        return {tuple(words[i:i + n]) for i in range(len(words) - 2 * n + 1)
                if words[i:i + n] == words[i + n:i + 2 * n]}

    return len(doubled(normalize_words(hypothesis)) - doubled(normalize_words(reference)))


GOAL_PAUSE_S = (1.0, 2.5)  # the thinking pauses the turn-taking goal counts cut-ins over


def is_finished(reference: str, label: str = "") -> bool:
    """The set's own label (``end``) when it has one, else the reference's punctuation."""
    if label:
        return label == "finished"
    text = reference.strip()
    return not text.endswith((",", ";", ":", "-")) and not transcript_cue(text).open_clause


def summarize(results: list[ClipResult], clips: list[SpeechClip], sessions: int,
              model: str, offline: float | None, set_dir: Path,
              prompted: float | None = None) -> dict[str, Any]:
    errors = words = 0
    for r in results:
        e, n = word_errors(r.said, r.heard)
        errors, words = errors + e, words + n
    v2v = [r.v2v_ms for r in results if r.v2v_ms is not None]
    labels = {c.name: getattr(c, "end", "") for c in clips}
    finished_results = [r for r in results
                        if r.v2v_ms is not None and is_finished(r.said, labels.get(r.clip, ""))]
    finished = [r.v2v_ms for r in finished_results if r.v2v_ms is not None]
    heard_late = [x for r in finished_results if (x := r.heard_end_late_ms) is not None]

    def stage(a: str, b: str) -> list[float]:
        out = []
        for r in results:
            x, y = r.mark(a), r.mark(b)
            if x is not None and y is not None:
                out.append(y - x)
        return out

    eot = [x for r in results if (x := r.mark("turn_end")) is not None]
    # The goal is about 1–2.5 s thinking pauses; longer ones meet the 3 s think limit.
    longest = {c.name: max((length for _, length in c.pauses), default=0.0) for c in clips}
    in_goal = [r for r in results if GOAL_PAUSE_S[0] <= longest.get(r.clip, 0.0)
               <= GOAL_PAUSE_S[1]]

    def rnd(x: float | None) -> float | None:
        return None if x is None else round(x)

    streaming = errors / max(words, 1)
    return {
        "bench": "voice", "set": str(set_dir), "clips": len(clips), "sessions": sessions,
        "stt_model": model, "answers": len(results),
        "wer_streaming": round(streaming, 4),
        "wer_offline": None if offline is None else round(offline, 4),
        "wer_gap_points": None if offline is None else round((streaming - offline) * 100, 2),
        # The same whole clips decoded with the live prompt (the question and its terms).
        "wer_offline_prompted": None if prompted is None else round(prompted, 4),
        "wer_gap_prompted_points": (None if prompted is None
                                    else round((streaming - prompted) * 100, 2)),
        "cut_ins": sum(r.cut_in for r in results),
        "goal_pauses": len(in_goal),  # answers whose longest pause is 1–2.5 s
        "goal_pause_cut_ins": sum(r.cut_in for r in in_goal),
        "split_answers": sum(r.split for r in results),
        "amended_answers": sum(1 for r in results if r.amended),
        "repeated_ngrams": sum(repeated_ngrams(r.said, r.heard) for r in results),
        "no_transcript": sum(1 for r in results if not r.heard),
        "v2v_ms_p50": rnd(percentile(v2v, 50)), "v2v_ms_p95": rnd(percentile(v2v, 95)),
        "v2v_ms_max": rnd(max(v2v) if v2v else None), "v2v_n": len(v2v),
        # Answers whose reference is a finished sentence (not a fragment ending in a comma
        # or an open clause): the ones the voice-to-voice goal is about.
        "v2v_finished_ms_p50": rnd(percentile(finished, 50)),
        "v2v_finished_ms_p95": rnd(percentile(finished, 95)), "v2v_finished_n": len(finished),
        # Of the finished answers' voice-to-voice time, how much is the server hearing the
        # voice end after the recording's voiced end (a breath, a fading word, the VAD).
        "heard_end_late_ms_p50": rnd(percentile(heard_late, 50)),
        "heard_end_late_ms_p90": rnd(percentile(heard_late, 90)),
        "end_of_turn_ms_p50": rnd(percentile(eot, 50)),
        "end_of_turn_ms_p95": rnd(percentile(eot, 95)),
        "stage_ms_p50": {
            "stt_after_turn_end": rnd(percentile(stage("turn_end", "stt_final"), 50)),
            "engine": rnd(percentile(stage("stt_final", "reply_ready"), 50)),
            "tts_first_audio": rnd(percentile(stage("reply_ready", "first_audio"), 50)),
        },
        "errors": sum(len(r.errors) for r in results),
        # What the signals said when a turn ended too early (the first verdict of the clip).
        "false_ends": [{"clip": r.clip, **r.verdicts[0]} for r in results
                       if (r.cut_in or r.amended) and r.verdicts],
        "load_avg_1m": round(os.getloadavg()[0], 2), "cpus": os.cpu_count(),
        "worst": sorted(({"clip": r.clip, "said": r.said, "heard": r.heard}
                         for r in results if word_errors(r.said, r.heard)[0]),
                        key=lambda w: -word_errors(w["said"], w["heard"])[0])[:3],
    }


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    clips = load_speech_set(args.set)
    if args.limit:
        clips = clips[:args.limit]
    model = args.stt_model or os.environ.get("VIVA_STT_MODEL", "tiny.en")
    env = {"VIVA_ENV": "test", "VIVA_JUDGE_ENABLED": "false", "VIVA_STT_MODEL": model}
    with private_redis() as redis_url, app_server(redis_url, **env) as base_url:
        runs = await asyncio.gather(*[
            run_candidate(base_url, clips, not args.json, offset=i * len(clips) // args.sessions)
            for i in range(args.sessions)])
    offline, offline_texts = (None, {}) if args.no_offline else offline_wer(clips, model)
    results = [r for run in runs for r in run]
    prompted, prompted_texts = ((None, {}) if args.no_offline
                                else prompted_offline(results, clips, model))
    if args.clips_out:
        write_clip_lines(Path(args.clips_out), results, offline_texts, prompted_texts)
    return summarize(results, clips, args.sessions, model, offline, Path(args.set), prompted)


def write_clip_lines(path: Path, results: list[ClipResult], offline: dict[str, str],
                     prompted: dict[tuple[str, str], str] | None = None) -> None:
    """One JSON line per answer: where the live final and the offline decode part ways."""
    with path.open("w", encoding="utf-8") as out:
        for r in results:
            asked = str(r.asked.get("text") or "")
            with_prompt = (prompted or {}).get((r.clip, asked))
            line: dict[str, Any] = {
                "clip": r.clip, "said": r.said, "heard": r.heard,
                "live_errors": word_errors(r.said, r.heard)[0],
                "offline": offline.get(r.clip),
                "offline_errors": (word_errors(r.said, offline[r.clip])[0]
                                   if r.clip in offline else None),
                "asked": asked or None, "offline_prompted": with_prompt,
                "offline_prompted_errors": (None if with_prompt is None
                                            else word_errors(r.said, with_prompt)[0]),
                "cut_in": r.cut_in, "amended": r.amended, "v2v_ms": r.v2v_ms,
                # Where the wait went: the server's turn end after the voiced end, and the
                # verdict that ended the turn (its reason, fused P(finished), window).
                "turn_end_ms": r.mark("turn_end"),
                "heard_end_late_ms": r.heard_end_late_ms,
                "end_of_turn": (r.marks or {}).get("end_of_turn"),
                # Every turn end's verdict in this answer, in order: after a cut-in the
                # first is the one that ended the answer at its pause.
                "verdicts": r.verdicts}
            out.write(json.dumps(line) + "\n")
