"""Speech-to-text port: one blocking call that turns a clip of 16 kHz audio into text."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class RecognitionBias:
    """What the interview is about, to steer recognition toward its vocabulary."""

    context: str = ""  # e.g. the current question: passed as the previous-text prompt
    hotwords: tuple[str, ...] = ()  # key terms the candidate is likely to say
    prefix_text: str = ""  # what was already recognized earlier in this same turn


@dataclass(frozen=True)
class RecognitionRequest:
    audio: np.ndarray  # float32 mono at 16 kHz
    bias: RecognitionBias = field(default_factory=RecognitionBias)
    # A quick decode (Whisper: a window just past the clip) for a signal, not for the words:
    # it loses words, but the end-of-turn fusion was fitted on its closing-mark probability.
    quick: bool = False


@dataclass(frozen=True)
class Recognition:
    text: str  # empty when the clip held no speech
    audio_s: float
    decode_s: float
    no_speech_prob: float
    avg_logprob: float
    rejected: str | None = None  # why text was thrown away (no speech, repetition loop)
    # P(the last word closes a sentence), read from the recognizer's own next-token
    # distribution after it (Whisper learned punctuation with prosody from human transcripts:
    # an end-of-turn signal); None when the recognizer cannot say.
    p_sentence_end: float | None = None


class SpeechRecognizer(ABC):
    """A loaded speech recognizer. ``recognize`` blocks; callers run it off the event loop."""

    name: str
    max_concurrency: int = 1

    @abstractmethod
    def recognize(self, request: RecognitionRequest) -> Recognition: ...

    def quick_is_full(self, audio_s: float) -> bool:
        """Whether a quick request for this much audio decodes exactly as a full one (then
        one decode serves both; see ``RecognitionRequest.quick``)."""
        return False
