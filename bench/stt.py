"""``viva bench stt``: speed (real-time factor) and accuracy (WER) of speech-to-text.

Speaks the sample answers in two voices (the packaged Piper voice and espeak-ng en-us, a
harder, robotic one), decodes each clip whole the way a live turn is decoded at its end,
with and without the question as recognition context, and reports per-configuration WER,
real-time factor and decode time. Silence and noise clips must come back empty.
The last stdout line is one JSON object with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from dataclasses import dataclass

import numpy as np

from agents.text_normalization import word_errors
from audio.pcm import pcm16_to_float
from audio.sample_speech import ANSWERS, SpeechMaker, espeak_available
from audio.speech_set import SpeechClip
from audio.stt import RecognitionBias, RecognitionRequest
from audio.whisper_stt import WhisperRecognizer

KEY_TERMS = ["list", "tuple", "dictionary", "hash table", "GIL", "bytecode", "generator",
             "decorator", "binary search", "index", "async", "context manager", "FastAPI",
             "Postgres", "garbage collector", "unit tests"]


def _measure(recognizer: WhisperRecognizer, clips: list[tuple[str, str, np.ndarray]],
             with_context: bool) -> dict[str, object]:
    errors = words = 0
    audio_s = decode_s = 0.0
    times: list[float] = []
    worst: list[tuple[int, str, str]] = []
    for question, answer, pcm in clips:
        bias = (RecognitionBias(context=question, hotwords=tuple(KEY_TERMS))
                if with_context else RecognitionBias())
        result = recognizer.recognize(RecognitionRequest(pcm16_to_float(pcm), bias))
        e, n = word_errors(answer, result.text)
        errors, words = errors + e, words + n
        audio_s += result.audio_s
        decode_s += result.decode_s
        times.append(result.decode_s)
        if e:
            worst.append((e, answer, result.text))
    worst.sort(key=lambda w: -w[0])
    return {"wer": round(errors / max(words, 1), 4), "rtf": round(decode_s / audio_s, 4),
            "decode_ms_p50": round(statistics.median(times) * 1000),
            "decode_ms_max": round(max(times) * 1000), "utterances": len(clips),
            "audio_s": round(audio_s, 1),
            "worst": [{"said": s, "heard": h} for _, s, h in worst[:2]]}


LEAD_S = 1.0  # room noise before the answer starts


@dataclass(frozen=True)
class TurnAudio:
    audio: np.ndarray  # float32 at 16 kHz: what the recognizer is handed
    voice_end_s: float | None  # where the turn detector put the voice's end (clip's clock)


def turn_audio(pcm: np.ndarray, complete_ms: int | None = None) -> TurnAudio:
    """A clip as a live turn hands it to the recognizer: room noise around it, the VAD's
    frames, the turn opened where the detector hears its onset with the transcriber's
    pre-roll before it, closed ``complete_ms`` after the last voiced frame, and long unvoiced
    runs squeezed (``_Turn.clip``). The live final decodes a paused turn in pieces; this is
    the whole turn in one decode, so it isolates what the cut does to the audio. Also where
    the detector timed the voice's end (its last pause), which the reply waits on."""
    from collections import deque

    from audio.vad import FRAME_MS
    from bench.voice_set import ROOM_RMS, detector_frames
    from realtime.end_of_turn import TurnTakingSettings
    from realtime.frames import SpeechPaused, SpeechStarted
    from realtime.transcriber import PREROLL_FRAMES, _Turn

    complete_ms = complete_ms or TurnTakingSettings().complete_ms
    rng = np.random.default_rng(7)

    def room(seconds: float) -> np.ndarray:
        return rng.normal(0, ROOM_RMS, int(seconds * 16000)).astype(np.int16)

    audio = np.concatenate([room(LEAD_S), pcm.astype(np.int16), room(complete_ms / 1000 + 0.1)])
    preroll: deque[tuple[np.ndarray, bool]] = deque(maxlen=PREROLL_FRAMES)
    turn: _Turn | None = None
    last_voiced = -1
    voice_end_s: float | None = None
    for _, frame, voiced, events in detector_frames(audio):
        for event in events:
            if isinstance(event, SpeechPaused):
                voice_end_s = event.voiced_end_at - LEAD_S
        if turn is None:
            preroll.append((frame, voiced))
            if any(isinstance(e, SpeechStarted) for e in events):
                turn = _Turn(1)
                for samples, was_voiced in preroll:
                    turn.add(samples, was_voiced)
        else:
            turn.add(frame, voiced)
        if turn is not None and voiced:
            last_voiced = len(turn.frames) - 1
    if turn is None:
        return TurnAudio(np.zeros(0, dtype=np.float32), None)
    return TurnAudio(turn.clip(0, min(len(turn.frames), last_voiced + 1 + complete_ms // FRAME_MS)),
                     voice_end_s)


def voice_end_lag(clips: list[tuple[SpeechClip, np.ndarray]],
                  turns: dict[str, TurnAudio]) -> dict[str, object]:
    """How late the turn detector times the end of finished answers, against the voiced end
    ``viva bench voice`` measures voice-to-voice from (the last frame well above the
    recording's noise): every millisecond of it is waited before the reply."""
    from bench.stats import percentile
    from bench.voice_set import is_finished, read_clip, voiced_end_s

    lags = [(end - voiced_end_s(read_clip(clip))) * 1000 for clip, _ in clips
            if is_finished(clip.text, clip.end)
            and (end := turns[clip.name].voice_end_s) is not None]
    return {"finished": len(lags), **{f"p{q}": round(percentile(lags, q) or 0)
                                      for q in (5, 50, 75, 90, 95)}}


def measure_set(set_dir: str, models: list[str]) -> dict[str, object]:
    """Each model on a folder of real recorded speech: every clip decoded whole by the live
    recognizer (short window, greedy), the same on the audio a live turn would hand it
    (``turn_audio``: the VAD's cut, pre-roll and squeeze), and by faster-whisper's offline
    ``transcribe`` (30 s window, beam 1); Whisper-style normalised WER, decode times."""
    from faster_whisper import WhisperModel

    from audio.model_files import whisper_model_dir
    from audio.speech_set import load_speech_set
    from bench.stats import percentile
    from bench.voice_set import read_clip

    clips = [(c, pcm16_to_float(read_clip(c))) for c in load_speech_set(set_dir)]
    turns = {c.name: turn_audio(read_clip(c)) for c, _ in clips}
    figures: dict[str, object] = {"bench": "stt", "set": set_dir, "clips": len(clips),
                                  "audio_s": round(sum(len(a) for _, a in clips) / 16000, 1),
                                  "voice_end_lag_ms": voice_end_lag(clips, turns)}
    for model in models:
        live = WhisperRecognizer.load(model)
        offline = WhisperModel(str(whisper_model_dir(model)), device="cpu",
                               compute_type="int8", cpu_threads=2)
        row: dict[str, object] = {}
        for mode in ("live", "turn", "offline"):
            errors = words = 0
            times: list[float] = []
            for clip, audio in clips:
                started = time.perf_counter()
                if mode == "live":
                    text = live.recognize(RecognitionRequest(audio)).text
                elif mode == "turn":
                    text = live.recognize(RecognitionRequest(turns[clip.name].audio)).text
                else:
                    segments, _ = offline.transcribe(audio, language="en", beam_size=1)
                    text = " ".join(seg.text.strip() for seg in segments)
                times.append(time.perf_counter() - started)
                e, n = word_errors(clip.text, text)
                errors, words = errors + e, words + n
            audio_s = sum(len(a) for _, a in clips) / 16000
            row[mode] = {"wer": round(errors / max(words, 1), 4),
                         "rtf": round(sum(times) / audio_s, 3),
                         "decode_ms_p50": round((percentile(times, 50) or 0) * 1000),
                         "decode_ms_p95": round((percentile(times, 95) or 0) * 1000)}
        figures[model] = row
    return figures


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="viva bench stt")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--model", default="tiny.en", choices=["tiny.en", "base"])
    parser.add_argument("--voices", default="piper,espeak")
    parser.add_argument("--set", help="a folder of real speech (WAVs + transcripts.tsv)")
    parser.add_argument("--models", default="tiny.en,base",
                        help="with --set: the models to compare")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.set:
        result = measure_set(args.set, [m for m in args.models.split(",") if m])
        print(json.dumps(result) if args.json else json.dumps(result, indent=1))
        return 0

    started = time.perf_counter()
    recognizer = WhisperRecognizer.load(args.model)
    load_s = time.perf_counter() - started
    maker = SpeechMaker()
    voices = [v for v in args.voices.split(",") if v != "espeak" or espeak_available()]
    figures: dict[str, object] = {"bench": "stt", "model": args.model,
                                  "load_s": round(load_s, 2)}
    overall_errors = overall_words = 0.0
    for voice in voices:
        clips = [(q, a, maker.speech(a, voice)) for q, a in ANSWERS]
        for with_context in (False, True):
            key = f"{voice}_{'context' if with_context else 'plain'}"
            result = _measure(recognizer, clips, with_context)
            figures[key] = result
            if with_context:
                wer = float(str(result["wer"]))
                words = sum(len(a.split()) for _, a, _ in clips)
                overall_errors += wer * words
                overall_words += words
            if not args.json:
                print(key, {k: v for k, v in result.items() if k != "worst"})
    rng = np.random.default_rng(7)
    empties = {"silence": np.zeros(32000, dtype=np.int16),
               "noise": (rng.normal(0, 300, 32000)).astype(np.int16)}
    hallucinated = {}
    for name, pcm in empties.items():
        text = recognizer.recognize(RecognitionRequest(pcm16_to_float(pcm))).text
        hallucinated[name] = text
    figures["silence_text"] = hallucinated
    figures["wer"] = round(overall_errors / max(overall_words, 1), 4)
    first = figures.get(f"{voices[0]}_context") if voices else None
    if isinstance(first, dict):
        figures["rtf"] = first["rtf"]
    print(json.dumps(figures) if args.json else json.dumps(figures, indent=1))
    return 0
