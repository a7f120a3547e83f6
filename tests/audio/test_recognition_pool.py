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


class PartialsWaitRecognizer(GatedRecognizer):
    """Short clips (the test's partials) wait for the gate; longer ones decode at once."""

    def recognize(self, request: RecognitionRequest) -> Recognition:
        if len(request.audio) < 10:
            self.gate.wait(5)
        self.order.append(len(request.audio))
        return Recognition(str(len(request.audio)), 0.0, 0.0, 0.0, 0.0)


async def test_with_two_workers_a_partial_never_holds_both() -> None:
    fake = PartialsWaitRecognizer()
    pool = RecognitionPool(fake, workers=2, max_pending_partials=2)
    try:
        running = pool.submit(clip(1), Priority.PARTIAL)  # one worker, stuck on the gate
        await asyncio.sleep(0.05)
        waiting = pool.submit(clip(2), Priority.PARTIAL)  # not taken by the other worker
        await asyncio.sleep(0.05)
        assert not waiting.running()
        # A pause's two decodes: the free worker takes them now, not after the partials.
        quick = asyncio.ensure_future(pool.recognize(clip(11), Priority.FINAL))
        full = asyncio.ensure_future(pool.recognize(clip(12), Priority.FINAL))
        done = await asyncio.wait_for(asyncio.gather(quick, full), 2)
        assert [r.text for r in done] == ["11", "12"]
        assert fake.order == [11, 12]
        fake.gate.set()
        assert running.result(5).text == "1" and waiting.result(5).text == "2"
    finally:
        fake.gate.set()
        pool.close()


async def test_a_closed_pool_refuses_work_and_finishes_what_it_had() -> None:
    fake = GatedRecognizer()
    pool = RecognitionPool(fake, workers=1)
    queued = pool.submit(clip(7), Priority.FINAL)
    pool.close()
    with pytest.raises(RuntimeError, match="closed"):
        pool.submit(clip(8), Priority.FINAL)
    fake.gate.set()
    assert queued.result(5).text == "7"
