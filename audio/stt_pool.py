"""One speech model per process, shared by every live session through a bounded pool.

Final transcripts (a candidate is waiting for the reply) go before partial ones (nice to
have). Partials are refused with :class:`RecognizerBusy` when the backlog is full, so under
load the partial rate drops instead of the final latency growing: that is the backpressure.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections import deque
from dataclasses import dataclass
from enum import IntEnum

from audio.stt import Recognition, RecognitionRequest, SpeechRecognizer


class Priority(IntEnum):
    FINAL = 0
    PARTIAL = 1


class RecognizerBusy(RuntimeError):
    """The pool's backlog is full; a partial decode was not queued."""


@dataclass
class _Job:
    request: RecognitionRequest
    future: concurrent.futures.Future[Recognition]


class RecognitionPool:
    """``workers`` threads over two queues, finals first. With two or more workers the last
    one decodes finals only: a partial never holds every worker when a pause's decodes (the
    verdict's and the words') arrive, so they start at once, side by side."""

    def __init__(self, recognizer: SpeechRecognizer, *, workers: int | None = None,
                 max_pending_partials: int | None = None):
        self.recognizer = recognizer
        self.workers = workers or recognizer.max_concurrency
        # One partial waiting per worker is enough to keep the workers busy.
        self.max_pending_partials = max_pending_partials or self.workers
        self._finals: deque[_Job] = deque()
        self._partials: deque[_Job] = deque()
        self._ready = threading.Condition()
        self._closed = False
        self._threads = [threading.Thread(target=self._work, args=(i,), name=f"stt-{i}",
                                          daemon=True) for i in range(self.workers)]
        for thread in self._threads:
            thread.start()
        self.completed = 0

    def _next(self, finals_only: bool) -> _Job | None:
        """The next job for a worker (None: closed and nothing left for it)."""
        with self._ready:
            while True:
                if self._finals:
                    return self._finals.popleft()
                if self._partials and not finals_only:
                    return self._partials.popleft()
                if self._closed:
                    return None
                self._ready.wait()

    def _work(self, index: int) -> None:
        finals_only = self.workers > 1 and index == self.workers - 1
        while (job := self._next(finals_only)) is not None:
            if not job.future.set_running_or_notify_cancel():
                continue
            try:
                job.future.set_result(self.recognizer.recognize(job.request))
            except BaseException as exc:  # handed to the awaiting session, not lost
                job.future.set_exception(exc)
            self.completed += 1

    def submit(self, request: RecognitionRequest,
               priority: Priority) -> concurrent.futures.Future[Recognition]:
        future: concurrent.futures.Future[Recognition] = concurrent.futures.Future()
        with self._ready:
            if self._closed:
                raise RuntimeError("the speech recognizer pool is closed")
            if priority == Priority.PARTIAL:
                if len(self._partials) >= self.max_pending_partials:
                    raise RecognizerBusy("speech recognizer backlog is full")
                self._partials.append(_Job(request, future))
            else:
                self._finals.append(_Job(request, future))
            self._ready.notify_all()
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
        """Let the workers finish what is queued, then stop."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()
