"""Recorded speech as files a browser plays: PCM16 mono → Ogg/Opus (PyAV), WAV as a fallback.

PyAV comes with faster-whisper. Opus takes 8/12/16/24/48 kHz input; other rates (Piper's
22.05 kHz) are resampled to 48 kHz by PyAV's resampler. Opus at 24 kb/s keeps speech clear at
about a tenth of the PCM size. Decoding back (``decoded_seconds``) is how tests and the
archive check a file is whole.
"""

from __future__ import annotations

import io
import wave
from dataclasses import dataclass

import numpy as np

OPUS_RATES = (8000, 12000, 16000, 24000, 48000)
OPUS_BIT_RATE = 24_000


@dataclass(frozen=True)
class EncodedAudio:
    data: bytes
    extension: str  # "ogg" or "wav"
    content_type: str


def encode_opus(pcm: np.ndarray, sample_rate: int) -> EncodedAudio:
    """Ogg/Opus of int16 mono samples; the decoded length equals the input's."""
    import av

    buf = io.BytesIO()
    rate = sample_rate if sample_rate in OPUS_RATES else 48000
    with av.open(buf, "w", format="ogg") as container:
        stream = container.add_stream("libopus", rate=rate, layout="mono")
        stream.bit_rate = OPUS_BIT_RATE
        fmt = stream.codec_context.format
        resampler = av.AudioResampler(format=fmt.name if fmt else "s16", layout="mono",
                                      rate=rate)
        frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(pcm, dtype=np.int16)
                                           .reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = sample_rate
        for chunk in (*resampler.resample(frame), *resampler.resample(None)):
            for packet in stream.encode(chunk):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return EncodedAudio(buf.getvalue(), "ogg", "audio/ogg")


def encode_wav(pcm: np.ndarray, sample_rate: int) -> EncodedAudio:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(sample_rate)
        wav.writeframes(np.ascontiguousarray(pcm, dtype="<i2").tobytes())
    return EncodedAudio(buf.getvalue(), "wav", "audio/wav")


def encode_speech(pcm: np.ndarray, sample_rate: int, preferred: str = "opus") -> EncodedAudio:
    """Opus when asked for and PyAV can; WAV otherwise (bigger, but every browser plays it)."""
    if preferred == "opus":
        try:
            return encode_opus(pcm, sample_rate)
        except (ImportError, ValueError, RuntimeError, OSError):
            pass  # no PyAV, or an FFmpeg build without libopus: keep the audio as WAV
    return encode_wav(pcm, sample_rate)


def decoded_seconds(data: bytes) -> float:
    """Length of an encoded file, by decoding every frame (container headers can lie)."""
    import av

    samples, rate = 0, 0
    with av.open(io.BytesIO(data), "r") as container:
        for frame in container.decode(audio=0):
            samples += frame.samples
            rate = frame.sample_rate
    return samples / rate if rate else 0.0


CONTENT_TYPES = {"ogg": "audio/ogg", "wav": "audio/wav", "webm": "audio/webm"}
