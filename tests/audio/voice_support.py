"""Shared pieces for voice tests: real models loaded once, real speech made on the spot."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import numpy as np

from audio.pcm import STT_RATE
from audio.sample_speech import SpeechMaker
from core.events import Event, wire
from realtime.ports import Outbox
from realtime.voice_services import VoiceServices

_services: VoiceServices | None = None


def shared_services(cache_dir: Path) -> VoiceServices:
    """One VoiceServices per test process (the model load is the slow part)."""
    global _services
    if _services is None:
        _services = VoiceServices.load(stt_model="tiny.en", cache_dir=cache_dir)
    return _services


def speech(services: VoiceServices, text: str, voice: str = "piper") -> np.ndarray:
    return SpeechMaker(services.synthesizer).speech(text, voice)  # type: ignore[arg-type]


class RecordingOutbox(Outbox):
    """The real Outbox protocol, recording what a client would receive."""

    def __init__(self) -> None:
        self.items: list[tuple[float, dict[str, Any] | bytes]] = []
        self._seq = 0
        self.changed = asyncio.Event()

    async def send_event(self, event: Event) -> dict[str, Any]:
        self._seq += 1
        recorded = {**wire(event), "seq": self._seq}
        self.items.append((time.monotonic(), recorded))
        self.changed.set()
        return recorded

    async def send_audio(self, pcm: bytes) -> None:
        self.items.append((time.monotonic(), pcm))
        self.changed.set()

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [e for _, e in self.items if isinstance(e, dict)
                and (kind is None or e["type"] == kind)]

    def audio_bytes(self) -> int:
        return sum(len(e) for _, e in self.items if isinstance(e, bytes))

    async def wait_for(self, kind: str, timeout_s: float = 20.0, count: int = 1) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while len(self.events(kind)) < count:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {kind} event within {timeout_s} s; got "
                                     f"{[e['type'] for e in self.events()]}")
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                pass
        return self.events(kind)[count - 1]


FRAME = STT_RATE // 50  # 20 ms


async def stream(session: Any, pcm: np.ndarray, *, realtime: bool = True) -> None:
    """Feed ``pcm`` as 20 ms frames, paced like a live microphone."""
    start = time.monotonic()
    for n, i in enumerate(range(0, len(pcm), FRAME)):
        frame = pcm[i:i + FRAME]
        if len(frame) < FRAME:
            frame = np.concatenate([frame, np.zeros(FRAME - len(frame), dtype=np.int16)])
        await session.feed(frame.astype("<i2").tobytes())
        if realtime:
            await asyncio.sleep(max(0.0, start + (n + 1) * 0.02 - time.monotonic()))


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * STT_RATE), dtype=np.int16)
