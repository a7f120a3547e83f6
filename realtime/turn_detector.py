"""Decides when the candidate starts talking, pauses, and has finished their turn.

Pure and synchronous: one call per 30 ms frame, decisions out. The end-of-turn silence
window depends on the phase (short in conversation, long while coding, where people think
quietly); a short pause inside a turn is reported early so the final transcript can be
prepared before the window closes.
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


class TurnDetector:
    def __init__(self, silence_ms: int):
        self.silence_ms = silence_ms
        self.onset_ms = ONSET_MS  # raised while the interviewer talks (see VoiceSession)
        self.turn = 0
        self.in_turn = False
        self._voiced_run = 0
        self._silent_ms = 0
        self._voiced_ms = 0
        self._paused = False
        self._voiced_end_at = 0.0

    @property
    def voiced_run_ms(self) -> int:
        return self._voiced_run * FRAME_MS

    def push(self, frame: AudioFrame) -> list[TurnFrame]:
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
                self._voiced_end_at = frame.captured_at
                return [SpeechStarted(self.turn, frame.captured_at)]
            return []
        if voiced:
            self._voiced_ms += FRAME_MS
        if voiced and (not self._paused or run_ms >= RESUME_MS):
            self._silent_ms = 0
            self._voiced_end_at = frame.captured_at
            if self._paused:
                self._paused = False
                return [SpeechResumed(self.turn)]
            return []
        self._silent_ms += FRAME_MS
        if self._silent_ms >= self.silence_ms:
            return [self._close("silence", frame.captured_at)]
        if self._silent_ms >= PAUSE_MS and not self._paused:
            self._paused = True
            return [SpeechPaused(self.turn, self._voiced_end_at)]
        return []

    def end_turn(self, now: float) -> list[TurnFrame]:
        """The candidate said they are done."""
        if not self.in_turn:
            return []
        return [self._close("explicit", now)]

    def _close(self, reason: str, now: float) -> TurnFrame:
        self.in_turn = False
        self._voiced_run = 0
        if self._voiced_ms < MIN_VOICED_MS:
            return TurnDropped(self.turn)
        return TurnEnded(self.turn, "explicit" if reason == "explicit" else "silence",
                         self._voiced_end_at, now, self.silence_ms)
