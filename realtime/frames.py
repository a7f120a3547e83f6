"""Typed frames that flow between the stages of one live voice session.

Audio frames carry 30 ms of 16 kHz PCM16 with the wall-clock moment their last sample was
captured. Turn frames are decisions of the turn detector. Stages never pass dicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from core.events import LatencyEvent


@dataclass(frozen=True)
class AudioFrame:
    samples: np.ndarray  # int16, 16 kHz, mono
    captured_at: float  # time.monotonic() of the frame's last sample
    voiced: bool = False
    echo: bool = False  # the interviewer's own voice came back through the microphone
    # The interviewer is talking (or the client still plays it): a turn needs more voice to
    # begin, and one that does begin interrupts the interviewer.
    interviewer_speaking: bool = False


@dataclass(frozen=True)
class SpeechStarted:
    turn: int
    at: float
    # Set when this speech goes on with the turn that ended just before (a false end): the
    # transcriber then decodes both as one answer.
    continues: int | None = None


@dataclass(frozen=True)
class SpeechPaused:
    """A short silence inside a turn: a good moment to prepare the final transcript and to
    ask the end-of-turn policy how long to wait."""

    turn: int
    voiced_end_at: float
    pause: int = 0  # numbers the pauses of one turn; a verdict names the pause it is for


@dataclass(frozen=True)
class SpeechResumed:
    turn: int


@dataclass(frozen=True)
class Interruption:
    """The candidate talks over the interviewer: stop speaking and listen."""

    turn: int
    at: float


@dataclass(frozen=True)
class BackChannel:
    """A held floor has been quiet a long while: say one short "take your time"."""

    turn: int
    at: float


@dataclass(frozen=True)
class ReplyReleased:
    """A reply held back because the answer seemed to go on: it did not (the going-on was
    a cough), so it is said now."""

    turn: int
    utterance: Utterance


EndReason = Literal["silence", "explicit", "complete", "unsure", "think_limit", "hold"]


@dataclass(frozen=True)
class TurnEnded:
    turn: int
    # silence: the window passed with no verdict; complete: the signals said finished;
    # unsure: the signals were unsure and the unsure window passed; think_limit: the
    # candidate seemed to think but stayed silent too long; hold: they asked for time and
    # that ran out too; explicit: "done"
    reason: EndReason
    voiced_end_at: float
    ended_at: float
    silence_window_ms: int


@dataclass(frozen=True)
class TurnDropped:
    """Too little voice to be an answer (a cough, a click): forget it."""

    turn: int


TurnFrame = (SpeechStarted | SpeechPaused | SpeechResumed | TurnEnded | TurnDropped
             | Interruption | BackChannel | ReplyReleased)


@dataclass
class TurnMarks:
    """Moments of one candidate turn (time.monotonic()), for the latency event."""

    voiced_end: float
    turn_end: float
    silence_window_ms: int
    stt_final: float | None = None
    stt_decode_ms: int | None = None
    reply_ready: float | None = None
    first_audio: float | None = None
    speculative_hit: bool = False
    end_of_turn: dict[str, object] | None = None  # the verdict that ended the turn

    def as_event(self, turn_id: str) -> LatencyEvent:
        def rel(t: float | None) -> int | None:
            return None if t is None else round((t - self.voiced_end) * 1000)

        return LatencyEvent(
            turn_id=turn_id,
            silence_window_ms=self.silence_window_ms,
            marks_ms={"voiced_end": 0, "turn_end": rel(self.turn_end),
                      "stt_final": rel(self.stt_final), "reply_ready": rel(self.reply_ready),
                      "first_audio": rel(self.first_audio)},
            stt_decode_ms=self.stt_decode_ms,
            speculative_hit=self.speculative_hit,
            end_of_turn=self.end_of_turn,
        )


@dataclass(frozen=True)
class PauseText:
    """What the transcriber heard of a turn up to one pause, for the end-of-turn judge."""

    text: str
    # P(the last word closed a sentence), from the recognizer's decode of the pause (see
    # ``audio.stt.Recognition``); None when no decode of the pending audio gave one.
    p_sentence_end: float | None = None


@dataclass(frozen=True)
class FinalTranscript:
    turn: int
    text: str
    marks: TurnMarks
    # Whisper's mean token log-probability over the turn's words (None: not known).
    avg_logprob: float | None = None


@dataclass(frozen=True)
class Utterance:
    """Something for the interviewer to say."""

    texts: list[str]
    turn_id: str
    marks: TurnMarks | None = field(default=None)  # set when it replies to a spoken turn
    backchannel: bool = False  # "Take your time.": not a reply, the floor stays theirs
