"""Voice activity detection on 30 ms frames of 16 kHz PCM16 (no torch).

webrtcvad decides "speech-like"; an adaptive energy gate on top keeps steady background
noise (fans, hiss), which webrtcvad sometimes calls speech, from opening a turn.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
import webrtcvad

from audio.pcm import STT_RATE

FRAME_MS = 30
FRAME_SAMPLES = STT_RATE * FRAME_MS // 1000


class VoiceActivityDetector(ABC):
    """Decides per frame of ``FRAME_SAMPLES`` int16 samples at 16 kHz. One per stream."""

    frame_samples: int = FRAME_SAMPLES

    @abstractmethod
    def is_speech(self, frame: np.ndarray) -> bool: ...


class WebRtcVoiceDetector(VoiceActivityDetector):
    MIN_RMS = 120.0  # int16 units (≈ -49 dBFS): quieter than this is never speech
    NOISE_MARGIN = 2.5  # speech must stand this far above the tracked noise floor

    def __init__(self, aggressiveness: int = 2):
        self._vad = webrtcvad.Vad(aggressiveness)
        self._noise_floor = self.MIN_RMS / self.NOISE_MARGIN

    def is_speech(self, frame: np.ndarray) -> bool:
        if len(frame) != self.frame_samples:
            raise ValueError(f"VAD frames are {self.frame_samples} samples, got {len(frame)}")
        rms = float(np.sqrt(np.mean(frame.astype(np.float32) ** 2)))
        voiced = self._vad.is_speech(frame.astype("<i2").tobytes(), STT_RATE)
        if not voiced:
            # Track the floor on non-speech frames only: fast down, slow up.
            rate = 0.3 if rms < self._noise_floor else 0.02
            self._noise_floor += rate * (rms - self._noise_floor)
        gate = max(self.MIN_RMS, self._noise_floor * self.NOISE_MARGIN)
        return voiced and rms >= gate
