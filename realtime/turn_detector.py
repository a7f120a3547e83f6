"""Decides when the candidate starts talking, pauses, and has finished their turn.

Pure and synchronous: one call per 30 ms frame, decisions out. A short pause inside a turn
is reported at once (``SpeechPaused``) so the final transcript can be prepared and the
end-of-turn policy asked how long this pause may last; its verdict (``set_verdict``) sets
the silence that ends the turn. Until a verdict arrives the turn waits for ``silence_ms``
(the think limit), so a slow signal never cuts anyone off. ``tick`` ends a turn on the
wall clock when the client stopped sending frames.
"""

from __future__ import annotations

from audio.vad import FRAME_MS
from realtime.frames import (
    AudioFrame,
    SpeechPaused,
    SpeechResumed,
    SpeechStarted,
    TurnDropped,
    TurnEnded,
    TurnFrame,
)

ONSET_MS = 90  # this much voice in a row opens a turn (a click or a knock does not)
RESUME_MS = 60  # voice in a row that ends a pause; one stray frame does not
PAUSE_MS = 150  # silence that counts as a pause: start preparing the final transcript
MIN_VOICED_MS = 240  # a turn with less voice than this was not an answer
STALLED_S = 0.2  # no frame for this long: the client stopped sending, count wall time


class TurnDetector:
    def __init__(self, silence_ms: int):
        self.silence_ms = silence_ms  # the longest wait at a pause with no verdict
        self.onset_ms = ONSET_MS  # raised while the interviewer talks (see VoiceSession)
        self.turn = 0
        self.pause = 0
        self.in_turn = False
        self._voiced_run = 0
        self._silent_ms = 0
        self._voiced_ms = 0
        self._paused = False
        self._voiced_end_at = 0.0
        self._last_frame_at = 0.0
        self._started_at = 0.0
        self._verdict: tuple[int, bool] | None = None  # (end after ms, finished) this pause

    @property
    def voiced_run_ms(self) -> int:
        return self._voiced_run * FRAME_MS

    @property
    def voiced_ms(self) -> int:
        return self._voiced_ms

    def turn_seconds(self, now: float) -> float:
        return max(0.0, now - self._started_at) if self.in_turn else 0.0

    def push(self, frame: AudioFrame) -> list[TurnFrame]:
        self._last_frame_at = frame.captured_at
        voiced = frame.voiced and not frame.echo
        self._voiced_run = self._voiced_run + 1 if voiced else 0
        run_ms = self._voiced_run * FRAME_MS
        if not self.in_turn:
            if run_ms >= self.onset_ms:
                self.turn += 1
                self.in_turn = True
                self._voiced_ms = run_ms
                self._silent_ms = 0
                self._paused = False
                self._verdict = None
                self._voiced_end_at = frame.captured_at
                self._started_at = frame.captured_at - run_ms / 1000
                return [SpeechStarted(self.turn, frame.captured_at)]
            return []
        if voiced:
            self._voiced_ms += FRAME_MS
        if voiced and (not self._paused or run_ms >= RESUME_MS):
            self._silent_ms = 0
            self._voiced_end_at = frame.captured_at
            if self._paused:
                self._paused = False
                self._verdict = None  # a new pause gets a new verdict
                return [SpeechResumed(self.turn)]
            return []
        self._silent_ms += FRAME_MS
        ended = self._maybe_end(self._silent_ms, frame.captured_at)
        if ended:
            return ended
        if self._silent_ms >= PAUSE_MS and not self._paused:
            self._paused = True
            self.pause += 1
            return [SpeechPaused(self.turn, self._voiced_end_at, self.pause)]
        return []

    def set_verdict(self, turn: int, pause: int, end_after_ms: int, finished: bool,
                    now: float) -> list[TurnFrame]:
        """The end-of-turn policy's answer for one pause; stale answers are ignored."""
        if not self.in_turn or turn != self.turn or pause != self.pause or not self._paused:
            return []
        self._verdict = (end_after_ms, finished)
        return self._maybe_end(self._silence_now(now), now)

    def tick(self, now: float) -> list[TurnFrame]:
        """Called on a timer: ends a turn whose client stopped sending audio."""
        if not self.in_turn or now - self._last_frame_at < STALLED_S:
            return []
        return self._maybe_end(self._silence_now(now), now)

    def end_turn(self, now: float) -> list[TurnFrame]:
        """The candidate said they are done."""
        if not self.in_turn:
            return []
        return [self._close("explicit", now, 0)]

    def _silence_now(self, now: float) -> int:
        return max(self._silent_ms, round((now - self._voiced_end_at) * 1000))

    def _maybe_end(self, silent_ms: int, now: float) -> list[TurnFrame]:
        if self._verdict is not None:
            window, finished = self._verdict
            reason = "complete" if finished else "think_limit"
        else:
            window, reason = self.silence_ms, "silence"
        if silent_ms >= window:
            return [self._close(reason, now, window)]
        return []

    def _close(self, reason: str, now: float, window_ms: int) -> TurnFrame:
        self.in_turn = False
        self._voiced_run = 0
        self._verdict = None
        if self._voiced_ms < MIN_VOICED_MS:
            return TurnDropped(self.turn)
        kind = reason if reason in ("explicit", "complete", "think_limit") else "silence"
        return TurnEnded(self.turn, kind, self._voiced_end_at, now,  # type: ignore[arg-type]
                         window_ms)
