"""Real spoken audio for tests and benchmarks, made on the spot (nothing big is committed).

Two voices: the packaged Piper voice, and Debian's ``espeak-ng -v en-us -s 140`` (a very
different, robotic voice). Clips come back as 16 kHz mono PCM16 and are cached on disk.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
import wave
from pathlib import Path

import numpy as np

from audio.pcm import STT_RATE, float_to_pcm16, pcm16_to_float, resample
from audio.tts import PiperSynthesizer

# Spoken answers of the kind a candidate gives, paired with the question they answer.
ANSWERS: list[tuple[str, str]] = [
    ("What is the difference between a list and a tuple in Python?",
     "A list is mutable, so you can append and remove items, while a tuple is immutable."),
    ("How does a Python dictionary work?",
     "A dictionary is a hash table that maps keys to values with constant time lookups."),
    ("What is the global interpreter lock?",
     "The global interpreter lock lets only one thread run Python bytecode at a time."),
    ("How would you process a file that does not fit in memory?",
     "I would use a generator to stream the rows instead of loading the whole file."),
    ("What is a decorator?",
     "A decorator is a function that takes another function and returns a wrapped version."),
    ("What is the complexity of binary search?",
     "Binary search runs in logarithmic time because it halves the search space each step."),
    ("A query on the users table is slow. What do you do?",
     "I would add an index on the user id column to speed up that query."),
    ("When does async code help?",
     "Async code helps when the program spends most of its time waiting for the network."),
    ("Why use a context manager?",
     "A context manager makes sure the file is closed even when an exception is raised."),
    ("Tell me about a recent project.",
     "In my last project I built a web service with FastAPI and Postgres for our sales team."),
    ("How does Python free memory?",
     "Reference counting frees most objects, and the garbage collector handles cycles."),
    ("How would you improve a long function?",
     "I would write unit tests first and then split the function into smaller pieces."),
]


def _cache_dir() -> Path:
    path = Path(tempfile.gettempdir()) / "viva-sample-speech"
    path.mkdir(parents=True, exist_ok=True)
    return path


def espeak_available() -> bool:
    return shutil.which("espeak-ng") is not None


class SpeechMaker:
    """Makes 16 kHz PCM16 clips of text in the Piper voice or the espeak-ng voice."""

    def __init__(self, synthesizer: PiperSynthesizer | None = None):
        self._piper = synthesizer

    def _piper_pcm(self, text: str) -> np.ndarray:
        if self._piper is None:
            self._piper = PiperSynthesizer()
        pcm = np.frombuffer(self._piper.synthesize(text), dtype="<i2")
        return float_to_pcm16(resample(pcm16_to_float(pcm), self._piper.sample_rate, STT_RATE))

    @staticmethod
    def _espeak_pcm(text: str) -> np.ndarray:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "speech.wav"
            subprocess.run(["espeak-ng", "-v", "en-us", "-s", "140", "-w", str(out), text],
                           check=True, capture_output=True)
            with wave.open(str(out)) as wav:
                rate = wav.getframerate()
                pcm = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
        return float_to_pcm16(resample(pcm16_to_float(pcm), rate, STT_RATE))

    def speech(self, text: str, voice: str = "piper") -> np.ndarray:
        """int16 samples at 16 kHz, with the voice's own leading/trailing quiet trimmed."""
        key = hashlib.sha256(f"{voice}\n{text}".encode()).hexdigest()[:24]
        path = _cache_dir() / f"{voice}-{key}.pcm"
        if path.is_file():
            return np.frombuffer(path.read_bytes(), dtype="<i2").copy()
        if voice == "piper":
            pcm = self._piper_pcm(text)
        elif voice == "espeak":
            pcm = self._espeak_pcm(text)
        else:
            raise ValueError(f"unknown sample voice {voice!r}; use piper or espeak")
        pcm = trim_quiet(pcm)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(pcm.astype("<i2").tobytes())
        tmp.replace(path)
        return pcm


def trim_quiet(pcm: np.ndarray, threshold: int = 200) -> np.ndarray:
    """Cut quiet samples at both ends so "end of voiced audio" is the end of the clip."""
    loud = np.flatnonzero(np.abs(pcm.astype(np.int32)) > threshold)
    if len(loud) == 0:
        return pcm[:0]
    return pcm[loud[0]:loud[-1] + 1]
