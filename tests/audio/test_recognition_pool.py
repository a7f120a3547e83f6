"""The shared recognizer pool: finals first, partials refused under backlog, errors kept."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest

from audio.stt import Recognition, RecognitionRequest, SpeechRecognizer
from audio.stt_pool import Priority, RecognitionPool, RecognizerBusy


class GatedRecognizer(SpeechRecognizer):
    """A fake recognizer: each call waits for the gate, then returns the clip length."""

    name = "gated"

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.order: list[int] = []

    def recognize(self, request: RecognitionRequest) -> Recognition:
        self.gate.wait(5)
        self.order.append(len(request.audio))
        if len(request.audio) == 13:
            raise RuntimeError("bad clip")
        return Recognition(str(len(request.audio)), 0.0, 0.0, 0.0, 0.0)


def clip(n: int) -> RecognitionRequest:
    return RecognitionRequest(np.zeros(n, dtype=np.float32))


async def test_finals_go_before_partials_and_backlog_refuses_partials() -> None:
    fake = GatedRecognizer()
    pool = RecognitionPool(fake, workers=1, max_pending_partials=1)
    try:
        first = pool.submit(clip(1), Priority.PARTIAL)  # taken by the worker, blocks on gate
        await asyncio.sleep(0.05)
        queued_partial = pool.submit(clip(2), Priority.PARTIAL)
        with pytest.raises(RecognizerBusy):
            pool.submit(clip(3), Priority.PARTIAL)
        final = asyncio.ensure_future(pool.recognize(clip(4), Priority.FINAL))
        await asyncio.sleep(0.05)
        fake.gate.set()
        assert (await final).text == "4"
        assert queued_partial.result(5).text == "2"
        assert first.result(5).text == "1"
        assert fake.order == [1, 4, 2]  # the final overtook the waiting partial
    finally:
        pool.close()


async def test_a_failing_decode_reaches_the_caller() -> None:
    fake = GatedRecognizer()
    fake.gate.set()
    pool = RecognitionPool(fake, workers=1)
    try:
        with pytest.raises(RuntimeError, match="bad clip"):
            await pool.recognize(clip(13))
        assert (await pool.recognize(clip(5))).text == "5"  # the worker survived
    finally:
        pool.close()
