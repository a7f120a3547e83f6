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

import numpy as np

from audio.pcm import pcm16_to_float
from audio.sample_speech import ANSWERS, SpeechMaker, espeak_available, word_errors
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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="viva bench stt")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--model", default="tiny.en", choices=["tiny.en", "base"])
    parser.add_argument("--voices", default="piper,espeak")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

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
