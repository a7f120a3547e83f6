"""Decides when the candidate starts talking, pauses, and has finished their turn.

Pure and synchronous: one call per 30 ms frame, decisions out; time comes only from the
frames and the ``now`` arguments (tests run on a made-up clock). A short pause inside a
turn is reported at once (``SpeechPaused``) so the final transcript can be prepared and the
end-of-turn policy asked how long this pause may last; its verdict (``set_verdict``) sets
the silence that ends the turn. Until a verdict arrives the turn waits for ``silence_ms``
(the think limit), so a slow signal never cuts anyone off. ``tick`` ends a turn on the
wall clock when the client stopped sending frames. Editor activity (``activity``) counts as
not being silent: nobody is cut off while typing.
"""

from __future__ import annotations

from audio.vad import FRAME_MS
from realtime.frames import (
    AudioFrame,
    EndReason,
    Interruption,
    SpeechPaused,
    SpeechResumed,
    SpeechStarted,
    TurnDropped,
    TurnEnded,
    TurnFrame,
)

ONSET_MS = 90  # this much voice in a row opens a turn (a click or a knock does not)
# Talking over the interviewer must last this long to open a turn and stop it: a cough, or
# the first echo of a new sentence (too little of it to correlate yet), does not interrupt.
BARGE_IN_MS = 240
# Voice in a row that ends a pause. Shorter runs inside a pause are room noise, a breath or a
# click: they neither resume the pause (which would ask for a fresh verdict later in the
# silence, when the signals separate worse) nor count as speech. 150 ms is the shortest run
# that no inserted dev pause's own room noise reaches (60 ms broke 8 of 56, 120 ms 2);
# real speech after a pause is confirmed a median 90 ms later than at 60 ms.
RESUME_MS = 150
PAUSE_MS = 150  # silence that counts as a pause: start preparing the final transcript
MIN_VOICED_MS = 240  # a turn with less voice than this was not an answer
STALLED_S = 0.2  # no frame for this long: the client stopped sending, count wall time


class TurnDetector:
    def __init__(self, silence_ms: int, pause_ms: int = PAUSE_MS):
        self.silence_ms = silence_ms  # the longest wait at a pause with no verdict
        self.pause_ms = pause_ms
        self.turn = 0
        self.pause = 0
        self.in_turn = False
        self._voiced_run = 0
        self._silent_ms = 0
        self._voiced_ms = 0
        self._paused = False
        self._interrupted = False  # this voiced run already interrupted the interviewer
        self._voiced_end_at = 0.0
        self._active_at = 0.0  # the last editor activity inside this turn
        self._last_frame_at = 0.0
        self._started_at = 0.0
        self._verdict: tuple[int, EndReason] | None = None  # (end after ms, why) this pause

    @property
    def voiced_run_ms(self) -> int:
        return self._voiced_run * FRAME_MS

    @property
    def voiced_ms(self) -> int:
        return self._voiced_ms

    @property
    def paused(self) -> bool:
        return self.in_turn and self._paused

    def turn_seconds(self, now: float) -> float:
        return max(0.0, now - self._started_at) if self.in_turn else 0.0

    def silence_ms_at(self, now: float) -> int:
        """Silence so far in this pause (0 while speaking or typing)."""
        if not self.in_turn or not self._paused:
            return 0
        return self._quiet_ms(self._silent_ms, now)

    def push(self, frame: AudioFrame) -> list[TurnFrame]:
        self._last_frame_at = frame.captured_at
        voiced = frame.voiced and not frame.echo
        self._voiced_run = self._voiced_run + 1 if voiced else 0
        if not voiced:
            self._interrupted = False
        run_ms = self._voiced_run * FRAME_MS
        onset_ms = BARGE_IN_MS if frame.interviewer_speaking else ONSET_MS
        if not self.in_turn:
            if run_ms >= onset_ms:
                self.turn += 1
                self.in_turn = True
                self._voiced_ms = run_ms
                self._silent_ms = 0
                self._paused = False
                self._verdict = None
                self._active_at = 0.0
                self._voiced_end_at = frame.captured_at
                self._started_at = frame.captured_at - run_ms / 1000
                return [SpeechStarted(self.turn, frame.captured_at),
                        *self._interruption(frame, run_ms)]
            return []
        if voiced:
            self._voiced_ms += FRAME_MS
        if voiced and (not self._paused or run_ms >= RESUME_MS):
            self._silent_ms = 0
            self._voiced_end_at = frame.captured_at
            out: list[TurnFrame] = self._interruption(frame, run_ms)
            if self._paused:
                self._paused = False
                self._verdict = None  # a new pause gets a new verdict
                out.insert(0, SpeechResumed(self.turn))
            return out
        self._silent_ms += FRAME_MS
        if voiced:  # too short yet to resume: the pause goes on, but never ends mid-sound
            return []
        ended = self._maybe_end(self._quiet_ms(self._silent_ms, frame.captured_at),
                                frame.captured_at)
        if ended:
            return ended
        if self._silent_ms >= self.pause_ms and not self._paused:
            self._paused = True
            self.pause += 1
            return [SpeechPaused(self.turn, self._voiced_end_at, self.pause)]
        return []

    def _interruption(self, frame: AudioFrame, run_ms: int) -> list[TurnFrame]:
        if frame.interviewer_speaking and run_ms >= BARGE_IN_MS and not self._interrupted:
            self._interrupted = True
            return [Interruption(self.turn, frame.captured_at)]
        return []

    def set_verdict(self, turn: int, pause: int, end_after_ms: int,
                    reason: EndReason | bool, now: float) -> list[TurnFrame]:
        """The end-of-turn policy's answer for one pause; stale answers are ignored.
        ``reason`` is what the end will be called (True: "complete", False: "think_limit")."""
        if not self.in_turn or turn != self.turn or pause != self.pause or not self._paused:
            return []
        if isinstance(reason, bool):
            reason = "complete" if reason else "think_limit"
        self._verdict = (end_after_ms, reason)
        if self._voiced_run:  # a sound may be speech resuming: end after it, if at all
            return []
        return self._maybe_end(self._silence_now(now), now)

    def activity(self, now: float) -> None:
        """The candidate is typing: the silence of this pause starts again from now."""
        if self.in_turn:
            self._active_at = max(self._active_at, now)

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

    def _quiet_ms(self, silent_ms: int, now: float) -> int:
        if self._active_at <= 0:
            return silent_ms
        return max(0, min(silent_ms, round((now - self._active_at) * 1000)))

    def _silence_now(self, now: float) -> int:
        return self._quiet_ms(max(self._silent_ms, round((now - self._voiced_end_at) * 1000)),
                              now)

    def _maybe_end(self, silent_ms: int, now: float) -> list[TurnFrame]:
        window, reason = self._verdict if self._verdict is not None else (
            self.silence_ms, "silence")
        if silent_ms >= window:
            return [self._close(reason, now, window)]
        return []

    def _close(self, reason: EndReason, now: float, window_ms: int) -> TurnFrame:
        self.in_turn = False
        self._voiced_run = 0
        self._verdict = None
        if self._voiced_ms < MIN_VOICED_MS:
            return TurnDropped(self.turn)
        return TurnEnded(self.turn, reason, self._voiced_end_at, now, window_ms)
