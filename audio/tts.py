"""Text-to-speech port and the Piper implementation with the packaged voice."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod

import numpy as np

from audio.model_files import piper_voice_files


class SpeechSynthesizer(ABC):
    """Synthesizes one sentence at a time to mono PCM16. Blocking; run it off the loop."""

    name: str
    sample_rate: int

    @abstractmethod
    def synthesize(self, text: str) -> bytes: ...


class PiperSynthesizer(SpeechSynthesizer):
    def __init__(self) -> None:
        from piper import PiperVoice  # heavy import: only when a voice is loaded

        files = piper_voice_files()
        self.name = files.name
        self._voice = PiperVoice.load(files.model, config_path=files.config)
        self.sample_rate = int(self._voice.config.sample_rate)
        # The espeak phonemizer inside Piper is not re-entrant.
        self._lock = threading.Lock()

    def synthesize(self, text: str) -> bytes:
        with self._lock:
            chunks = [c.audio_int16_array for c in self._voice.synthesize(text)]
        if not chunks:
            return b""
        return np.concatenate(chunks).astype("<i2").tobytes()
