"""Recognizes the interviewer's own voice coming back through the candidate's microphone.

While Viva talks, the loudspeaker's sound can reach the microphone. Every chunk of speech
sent to the client is kept as a reference on a timeline that starts when the first chunk
left; a microphone block that correlates strongly with the reference at some plausible
delay is echo, not the candidate. Browser echo cancellation usually removes most of it;
this catches what gets through, and never needs to know what the candidate sounds like.
"""

from __future__ import annotations

import numpy as np

from audio.pcm import STT_RATE, pcm16_to_float, resample

MAX_DELAY_S = 0.8  # client buffering + playback + capture latency we allow for
ECHO_NCC = 0.6  # normalized cross-correlation above this is our own voice (other speech ≤ 0.5)
TAIL_S = 0.5  # reverberation after the last sample played


def max_normalized_correlation(block: np.ndarray, reference: np.ndarray) -> float:
    """Largest normalized cross-correlation of ``block`` against any span of ``reference``."""
    n = len(block)
    if n == 0 or len(reference) < n:
        return 0.0
    block_norm = float(np.linalg.norm(block))
    if block_norm < 1e-6:
        return 0.0
    size = 1 << int(np.ceil(np.log2(len(reference) + n)))
    corr = np.fft.irfft(np.fft.rfft(reference, size) * np.conj(np.fft.rfft(block, size)), size)
    corr = corr[: len(reference) - n + 1]
    energy = np.concatenate(([0.0], np.cumsum(reference.astype(np.float64) ** 2)))
    window = np.sqrt(np.maximum(energy[n:] - energy[:-n], 1e-12))
    return float(np.max(np.abs(corr) / (window * block_norm)))


class EchoDetector:
    def __init__(self) -> None:
        self._chunks: list[np.ndarray] = []
        self._reference = np.zeros(0, dtype=np.float32)
        self._started_at: float | None = None
        self._duration_s = 0.0

    def reset(self) -> None:
        self._chunks.clear()
        self._reference = np.zeros(0, dtype=np.float32)
        self._started_at = None
        self._duration_s = 0.0

    def add_reference(self, pcm: bytes, sample_rate: int, sent_at: float) -> None:
        """Record a chunk of speech just sent to the client (played right after the last)."""
        if self._started_at is None:
            self._started_at = sent_at
        audio = resample(pcm16_to_float(pcm), sample_rate, STT_RATE)
        self._chunks.append(audio)
        self._duration_s += len(audio) / STT_RATE

    def playing_until(self) -> float | None:
        """When the client will have finished playing what was sent (wall clock)."""
        if self._started_at is None:
            return None
        return self._started_at + self._duration_s

    def active(self, now: float) -> bool:
        end = self.playing_until()
        return end is not None and now <= end + MAX_DELAY_S + TAIL_S

    def is_echo(self, block: np.ndarray, now: float) -> bool:
        """``block``: the latest microphone audio (float32, 16 kHz) ending at ``now``."""
        if self._started_at is None or not self.active(now):
            return False
        if self._chunks:
            self._reference = np.concatenate([self._reference, *self._chunks])
            self._chunks.clear()
        played = now - self._started_at
        block_s = len(block) / STT_RATE
        lo = max(0, int((played - block_s - MAX_DELAY_S) * STT_RATE))
        hi = min(len(self._reference), int((played + 0.05) * STT_RATE))
        window = self._reference[lo:hi]
        if len(window) < len(block):
            # Playback has just begun: compare the newest part of the block only.
            block = block[len(block) - len(window):]
        if len(block) < STT_RATE // 20:
            return False
        return max_normalized_correlation(block, window) >= ECHO_NCC
