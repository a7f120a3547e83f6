"""One speech model per process, shared by every live session through a bounded pool.

Final transcripts (a candidate is waiting for the reply) go before partial ones (nice to
have). Partials are refused with :class:`RecognizerBusy` when the backlog is full, so under
load the partial rate drops instead of the final latency growing: that is the backpressure.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import queue
import threading
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from audio.stt import Recognition, RecognitionRequest, SpeechRecognizer


class Priority(IntEnum):
    FINAL = 0
    PARTIAL = 1
    STOP = 9  # sorts after all real work: a worker exits when it reaches it


class RecognizerBusy(RuntimeError):
    """The pool's backlog is full; a partial decode was not queued."""


@dataclass(order=True)
class _Job:
    priority: int
    order: int
    request: RecognitionRequest = field(compare=False)
    future: concurrent.futures.Future[Recognition] = field(compare=False)


class RecognitionPool:
    def __init__(self, recognizer: SpeechRecognizer, *, workers: int | None = None,
                 max_pending_partials: int | None = None):
        self.recognizer = recognizer
        self.workers = workers or recognizer.max_concurrency
        # One partial waiting per worker is enough to keep the workers busy.
        self.max_pending_partials = max_pending_partials or self.workers
        self._queue: queue.PriorityQueue[_Job] = queue.PriorityQueue()
        self._order = itertools.count()
        self._lock = threading.Lock()
        self._pending_partials = 0
        self._threads = [threading.Thread(target=self._work, name=f"stt-{i}", daemon=True)
                         for i in range(self.workers)]
        for thread in self._threads:
            thread.start()
        self.completed = 0

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job.priority == Priority.STOP:
                return
            if job.priority == Priority.PARTIAL:
                with self._lock:
                    self._pending_partials -= 1
            if not job.future.set_running_or_notify_cancel():
                continue
            try:
                job.future.set_result(self.recognizer.recognize(job.request))
            except BaseException as exc:  # handed to the awaiting session, not lost
                job.future.set_exception(exc)
            self.completed += 1

    def submit(self, request: RecognitionRequest,
               priority: Priority) -> concurrent.futures.Future[Recognition]:
        if priority == Priority.PARTIAL:
            with self._lock:
                if self._pending_partials >= self.max_pending_partials:
                    raise RecognizerBusy("speech recognizer backlog is full")
                self._pending_partials += 1
        future: concurrent.futures.Future[Recognition] = concurrent.futures.Future()
        self._queue.put(_Job(int(priority), next(self._order), request, future))
        return future

    async def recognize(self, request: RecognitionRequest,
                        priority: Priority = Priority.FINAL) -> Recognition:
        """Queue ``request`` and wait for it. Cancelling the wait drops a job not yet begun."""
        future = self.submit(request, priority)
        try:
            return await asyncio.wrap_future(future)
        finally:
            future.cancel()

    def close(self) -> None:
        for _ in self._threads:
            self._queue.put(_Job(int(Priority.STOP), next(self._order), RecognitionRequest(
                audio=np.zeros(0, dtype=np.float32)), concurrent.futures.Future()))
