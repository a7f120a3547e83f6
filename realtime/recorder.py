"""Records both sides of a voice session, per turn, without slowing the turn down.

Candidate: every microphone frame passes through; from speech onset (with the onset the
detector needed, plus a little pre-roll so the first consonant is kept) to the end of the
turn the frames are kept, then handed over once the final transcript names the question they
answer (a continuation after a false end belongs to the earlier answer, not to the question
asked meanwhile). Interviewer: the PCM sent for one utterance, with where each sentence
starts; cut where a barge-in stopped it, or where the next utterance began (the client
drops what it was playing when a new one starts), since the client heard no more than that.

Only list appends happen on the event loop; encoding and writing happen in the
:class:`RecordingWriter`'s thread.
"""

from __future__ import annotations

import logging
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Literal, Protocol

import numpy as np

from audio.pcm import STT_RATE
from audio.vad import FRAME_MS
from realtime.session_clock import SessionClock

log = logging.getLogger(__name__)

PREROLL_MS = 150  # before the first voiced frame the detector counted
MAX_TURN_S = 300  # a bound on memory, beyond the detector's own hard cap
RING_FRAMES = 40  # 1.2 s of audio kept while nobody speaks


@dataclass(frozen=True)
class SpokenPiece:
    text: str
    start_sample: int
    end_sample: int


@dataclass
class Recording:
    """One finished recording, ready to encode (int16 mono samples)."""

    session_id: str
    speaker: Literal["candidate", "interviewer"]
    turn_id: str
    t_ms: int
    samples: np.ndarray
    sample_rate: int
    marks: dict[str, int] = field(default_factory=dict)
    pieces: list[SpokenPiece] = field(default_factory=list)
    cut: bool = False
    name: str = field(default_factory=lambda: uuid.uuid4().hex[:8])


class RecordingSink(Protocol):
    def submit(self, recording: Recording) -> None:
        """Take a recording to write; must not block."""
        ...


@dataclass
class _Turn:
    turn: int
    frames: list[tuple[np.ndarray, float]]
    ended: Recording | None = None


@dataclass
class _Utterance:
    turn_id: str
    rate: int
    starts_at: float  # when the client began to play it
    chunks: list[bytes] = field(default_factory=list)
    pieces: list[tuple[str, int]] = field(default_factory=list)  # text, first byte
    sent_bytes: int = 0


class VoiceRecorder:
    def __init__(self, session_id: str, sink: RecordingSink, clock: SessionClock):
        self.session_id = session_id
        self._sink = sink
        self._clock = clock
        self._ring: deque[tuple[np.ndarray, float]] = deque(maxlen=RING_FRAMES)
        self._turn: _Turn | None = None
        self._pending: dict[int, Recording] = {}  # ended turns waiting for their turn_id
        self._utterance: _Utterance | None = None
        # The last utterance, held until it has been played out (or the next one cuts it).
        self._held: tuple[Recording, float] | None = None  # (recording, when it started)

    # -- candidate ----------------------------------------------------------------------

    def frame(self, samples: np.ndarray, captured_at: float) -> None:
        if self._held is not None:
            held, began = self._held
            if captured_at > began + len(held.samples) / held.sample_rate:
                self._release_held()
        if self._turn is not None:
            if len(self._turn.frames) * FRAME_MS < MAX_TURN_S * 1000:
                self._turn.frames.append((samples, captured_at))
        else:
            self._ring.append((samples, captured_at))

    def speech_started(self, turn: int, at: float, onset_ms: int) -> None:
        since = at - (onset_ms + PREROLL_MS + FRAME_MS) / 1000
        self._turn = _Turn(turn, [f for f in self._ring if f[1] > since])
        self._ring.clear()

    def turn_dropped(self, turn: int) -> None:
        if self._turn is not None and self._turn.turn == turn:
            self._ring.extend(self._turn.frames[-RING_FRAMES:])
            self._turn = None

    def turn_ended(self, turn: int, voiced_end_at: float, ended_at: float,
                   fallback_turn_id: str) -> None:
        current = self._turn
        if current is None or current.turn != turn or not current.frames:
            return
        kept = [f for f in current.frames if f[1] <= ended_at + 1e-3]
        self._turn = None
        self._ring.extend(f for f in current.frames if f[1] > ended_at + 1e-3)
        if not kept:
            return
        first_start = kept[0][1] - len(kept[0][0]) / STT_RATE
        samples = np.concatenate([f[0] for f in kept])
        marks = {"speech_start": self._clock.ms(first_start),
                 "voiced_end": self._clock.ms(voiced_end_at),
                 "turn_end": self._clock.ms(kept[-1][1])}
        recording = Recording(self.session_id, "candidate", fallback_turn_id,
                              marks["speech_start"], samples, STT_RATE, marks)
        for old in [t for t in self._pending if t < turn - 4]:
            self._sink.submit(self._pending.pop(old))  # no final came: keep its guess
        self._pending[turn] = recording

    def label(self, turn: int, turn_id: str) -> None:
        """The final transcript of ``turn`` answers ``turn_id``: its audio can be written."""
        recording = self._pending.pop(turn, None)
        if recording is not None:
            recording.turn_id = turn_id
            self._sink.submit(recording)

    # -- interviewer --------------------------------------------------------------------

    def utterance_started(self, turn_id: str, rate: int, at: float) -> None:
        self._release_held(cut_at=at)
        self._utterance = _Utterance(turn_id, rate, at)

    def stopped(self, at: float) -> None:
        """Barge-in: the client stopped playing at ``at``, even audio sent long before."""
        self._release_held(cut_at=at)

    def _release_held(self, cut_at: float | None = None) -> None:
        if self._held is None:
            return
        held, began = self._held
        self._held = None
        if cut_at is not None:
            heard = max(0, int((cut_at - began) * held.sample_rate))
            if heard < len(held.samples):
                held.samples = held.samples[:heard]
                held.pieces = [SpokenPiece(p.text, p.start_sample, min(p.end_sample, heard))
                               for p in held.pieces if p.start_sample < heard]
                held.cut = True
        if len(held.samples):
            self._sink.submit(held)

    def piece(self, text: str) -> None:
        if self._utterance is not None:
            self._utterance.pieces.append((text, self._utterance.sent_bytes))

    def audio(self, chunk: bytes) -> None:
        if self._utterance is not None:
            self._utterance.chunks.append(chunk)
            self._utterance.sent_bytes += len(chunk)

    def utterance_ended(self, at: float, cut: bool) -> None:
        u, self._utterance = self._utterance, None
        if u is None or not u.sent_bytes:
            return
        samples = np.frombuffer(b"".join(u.chunks), dtype="<i2").astype(np.int16)
        if cut:
            # The client played from starts_at until the stop: that much was heard.
            samples = samples[:max(0, int((at - u.starts_at) * u.rate))]
        if not len(samples):
            return
        n = len(samples)
        starts = [b // 2 for _, b in u.pieces]
        ends = [*starts[1:], n] if starts else []
        pieces = [SpokenPiece(text, min(s, n), min(e, n))
                  for (text, _), s, e in zip(u.pieces, starts, ends, strict=True)]
        pieces = [p for p in pieces if p.end_sample > p.start_sample]
        self._held = (Recording(self.session_id, "interviewer", u.turn_id,
                                self._clock.ms(u.starts_at), samples, u.rate,
                                pieces=pieces, cut=cut), u.starts_at)

    def close(self) -> None:
        """The connection ended: what was said and not yet written is written."""
        for turn in sorted(self._pending):
            self._sink.submit(self._pending.pop(turn))
        if self._utterance is not None:
            self.utterance_ended(self._utterance.starts_at + 1e9, cut=False)
        self._release_held()
