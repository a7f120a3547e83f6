"""PCM16 conversions and streaming resampling (soxr)."""

from __future__ import annotations

import numpy as np
import soxr

STT_RATE = 16_000


def pcm16_to_float(pcm: bytes | np.ndarray) -> np.ndarray:
    """Little-endian PCM16 → float32 in [-1, 1]."""
    samples = np.frombuffer(pcm, dtype="<i2") if isinstance(pcm, bytes) else pcm
    return samples.astype(np.float32) / 32768.0


def float_to_pcm16(audio: np.ndarray) -> np.ndarray:
    return (np.clip(audio, -1.0, 1.0) * 32767.0).astype("<i2")


def resample(audio: np.ndarray, from_rate: int, to_rate: int) -> np.ndarray:
    """One-shot resampling of float32 mono audio."""
    if from_rate == to_rate:
        return audio.astype(np.float32, copy=False)
    return np.asarray(soxr.resample(audio, from_rate, to_rate), dtype=np.float32)


class StreamResampler:
    """Resamples a live stream chunk by chunk without clicks at chunk borders."""

    def __init__(self, from_rate: int, to_rate: int = STT_RATE):
        self.from_rate = from_rate
        self.to_rate = to_rate
        self._stream = (None if from_rate == to_rate
                        else soxr.ResampleStream(from_rate, to_rate, 1, dtype="int16"))

    def process(self, samples: np.ndarray) -> np.ndarray:
        """int16 samples at ``from_rate`` → int16 samples at ``to_rate``."""
        if self._stream is None:
            return samples
        return np.asarray(self._stream.resample_chunk(samples), dtype=np.int16)
