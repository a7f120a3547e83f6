"""Checks what the client sends as audio and turns it into 30 ms frames at 16 kHz."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from audio.pcm import STT_RATE, StreamResampler
from audio.vad import FRAME_SAMPLES
from realtime.errors import VoiceInputError

SUPPORTED_RATES = (8000, 16000, 22050, 24000, 32000, 44100, 48000)
SUPPORTED_ENCODINGS = ("pcm_s16le",)
MAX_FRAME_MS = 250  # the contract asks for 20–100 ms frames; some slack for odd clients
BURST_S = 5.0  # audio may run ahead of real time by this much (jitter, a stalled reader)


class AudioInput:
    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self.sample_rate: int | None = None
        self._resampler: StreamResampler | None = None
        self._pending = np.zeros(0, dtype=np.int16)
        self._credit_s = BURST_S
        self._credit_at = 0.0

    def configure(self, sample_rate: int, encoding: str) -> None:
        if encoding not in SUPPORTED_ENCODINGS:
            raise VoiceInputError("unsupported_encoding",
                                  f"audio encoding {encoding!r} is not supported; send "
                                  "mono little-endian PCM16 as 'pcm_s16le'")
        if sample_rate not in SUPPORTED_RATES:
            raise VoiceInputError("unsupported_sample_rate",
                                  f"sample rate {sample_rate} is not supported; use one of "
                                  f"{', '.join(map(str, SUPPORTED_RATES))} (16000 preferred)")
        self.sample_rate = sample_rate
        self._resampler = StreamResampler(sample_rate, STT_RATE)
        self._pending = np.zeros(0, dtype=np.int16)
        self._credit_s = BURST_S
        self._credit_at = self._clock()

    def frames(self, pcm: bytes) -> list[tuple[np.ndarray, float]]:
        """Validate one binary message; return its 30 ms frames with capture times."""
        if self.sample_rate is None or self._resampler is None:
            raise VoiceInputError("audio_not_configured",
                                  'send {"type": "audio_config", "sample_rate": 16000, '
                                  '"encoding": "pcm_s16le"} before audio frames')
        if not pcm or len(pcm) % 2:
            raise VoiceInputError("bad_audio_frame",
                                  f"an audio frame is whole PCM16 samples (an even, non-zero "
                                  f"byte count); got {len(pcm)} bytes")
        duration_s = len(pcm) / 2 / self.sample_rate
        if duration_s * 1000 > MAX_FRAME_MS:
            raise VoiceInputError("audio_frame_too_large",
                                  f"audio frames carry 20–100 ms; got {duration_s * 1000:.0f} ms "
                                  f"at {self.sample_rate} Hz")
        now = self._clock()
        self._credit_s = min(BURST_S, self._credit_s + (now - self._credit_at))
        self._credit_at = now
        if duration_s > self._credit_s + 1e-6:
            raise VoiceInputError("audio_too_fast",
                                  "audio is arriving faster than real time; send it as it is "
                                  "captured (this frame was dropped)")
        self._credit_s -= duration_s
        samples = self._resampler.process(np.frombuffer(pcm, dtype="<i2").astype(np.int16))
        buffered = np.concatenate([self._pending, samples])
        whole = len(buffered) // FRAME_SAMPLES
        self._pending = buffered[whole * FRAME_SAMPLES:]
        out: list[tuple[np.ndarray, float]] = []
        for i in range(whole):
            # The message's last sample was captured about now; earlier frames earlier.
            after = len(buffered) - (i + 1) * FRAME_SAMPLES
            out.append((buffered[i * FRAME_SAMPLES:(i + 1) * FRAME_SAMPLES],
                        now - after / STT_RATE))
        return out
