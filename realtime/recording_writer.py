"""Encodes and writes recordings on one background thread per process.

``submit`` only queues (the voice turn never waits for a disk or an encoder); one thread keeps
each session's files in the order they were said. ``drain`` waits for what is queued (before
a session is archived, or at shutdown).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from audio.recording_codec import encode_speech
from realtime.recorder import Recording
from store.recordings import RecordingEntry, RecordingStore, Segment

log = logging.getLogger(__name__)


class RecordingWriter:
    def __init__(self, data_dir: Path, audio_format: str = "opus"):
        self.store = RecordingStore(data_dir)
        self.audio_format = audio_format
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recording")
        self._lock = threading.Lock()
        self._pending: dict[str, set[Future[RecordingEntry | None]]] = {}

    def submit(self, recording: Recording) -> None:
        future = self._executor.submit(self._write, recording)
        with self._lock:
            self._pending.setdefault(recording.session_id, set()).add(future)
        future.add_done_callback(lambda f: self._done(recording.session_id, f))

    def _done(self, session_id: str, future: Future[RecordingEntry | None]) -> None:
        with self._lock:
            futures = self._pending.get(session_id)
            if futures is not None:
                futures.discard(future)
                if not futures:
                    del self._pending[session_id]

    def _write(self, rec: Recording) -> RecordingEntry | None:
        try:
            encoded = encode_speech(rec.samples, rec.sample_rate, self.audio_format)
            ms = 1000 / rec.sample_rate
            entry = RecordingEntry(
                turn_id=rec.turn_id, speaker=rec.speaker, t_ms=rec.t_ms,
                duration_ms=round(len(rec.samples) * ms),
                file=f"{rec.t_ms:09d}-{rec.speaker}-{rec.name}.{encoded.extension}",
                content_type=encoded.content_type, sample_rate=rec.sample_rate,
                marks=rec.marks, cut=rec.cut,
                segments=[Segment(text=p.text, start_ms=round(p.start_sample * ms),
                                  end_ms=round(p.end_sample * ms)) for p in rec.pieces])
            return self.store.save(rec.session_id, entry, encoded.data)
        except Exception:
            # A lost recording must never break the interview: the event stream still has it.
            log.exception("could not write a recording of session %s", rec.session_id)
            return None

    async def drain(self, session_id: str | None = None, timeout_s: float = 30.0) -> None:
        with self._lock:
            if session_id is None:
                futures = [f for fs in self._pending.values() for f in fs]
            else:
                futures = list(self._pending.get(session_id, ()))
        if futures:
            await asyncio.wait([asyncio.wrap_future(f) for f in futures], timeout=timeout_s)

    async def aclose(self) -> None:
        await self.drain()
        self._executor.shutdown(wait=False)
