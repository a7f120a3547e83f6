"""Gathers the end-of-turn signals at one pause and asks the policy for a verdict.

The audio model runs on its own thread (~40 ms); the transcript comes from the
transcriber's speculative decode of the pause (usually ready within ~300 ms) and is read by
the text model (well under a millisecond) and the transcript cues. Audio that clearly sounds
unfinished still waits for the text (a finished-sounding answer may read unfinished, and the
other way round), but only for a bounded time: a verdict is given without it when the
recognizer is slow. Any failure of a signal makes the judge more patient, never less.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from audio.turn_model import TurnCompletionModel
from realtime.end_of_turn import (
    EndOfTurnSignals,
    EndOfTurnVerdict,
    TurnFusion,
    TurnPhase,
    TurnTakingSettings,
    decide,
)
from realtime.frames import PauseText
from realtime.transcript_cues import transcript_cue

log = logging.getLogger(__name__)


class TextSignal(Protocol):
    """P(the answer is complete) from the question and the words so far (see
    ``realtime/text_turn_model.py``)."""

    def probability(self, question: str, text: str) -> float: ...


@dataclass(frozen=True)
class PauseContext:
    """What the judge knows of the conversation at this pause."""

    phase: TurnPhase
    hard_question: bool
    question: str
    turn_s: float


@dataclass(frozen=True)
class JudgedPause:
    """One pause's signals and the verdict they gave: a typed frame for the controller."""

    turn: int
    pause: int
    p_complete: float | None  # Smart Turn
    p_text: float | None  # the text model
    text: str | None
    verdict: EndOfTurnVerdict
    p_sentence_end: float | None = None  # the recognizer's full stop after the last word
    turn_s: float | None = None  # the turn's length the policy was told

    def summary(self) -> dict[str, object]:
        """For the latency event (``end_of_turn``). The words read at the pause and the
        turn's length are there so a live verdict can be set beside the same stop replayed
        offline (``viva bench turns``): the candidate's own words, as in the transcript."""
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 3)

        return {"reason": self.verdict.reason, "finished": self.verdict.finished,
                "p_complete": r(self.p_complete), "p_text": r(self.p_text),
                "p_sentence_end": r(self.p_sentence_end),
                "p_finished": r(self.verdict.p_finished),
                "wait_ms": self.verdict.end_after_ms, "heard": self.text,
                "turn_s": None if self.turn_s is None else round(self.turn_s, 2)}


class EndOfTurnJudge:
    def __init__(self, model: TurnCompletionModel | None, executor: Executor | None,
                 pause_text: Callable[[int, int], asyncio.Future[PauseText]],
                 settings: TurnTakingSettings, text_model: TextSignal | None = None,
                 fusion: TurnFusion | None = None):
        self._model = model
        self._executor = executor
        self._pause_text = pause_text
        self.settings = settings
        self._text_model = text_model
        self.fusion = fusion or TurnFusion.load()

    async def _probability(self, audio: np.ndarray) -> float | None:
        if self._model is None:
            return None
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor, self._model.probability, audio)
        except Exception:
            log.exception("the end-of-turn model failed; deciding without it")
            return None

    def _text_probability(self, question: str, text: str) -> float | None:
        if self._text_model is None or not text.strip():
            return None
        try:
            return self._text_model.probability(question, text)
        except Exception:
            log.exception("the text end-of-turn model failed; deciding without it")
            return None

    async def verdict(self, turn: int, pause: int, audio: np.ndarray,
                      context: PauseContext) -> JudgedPause:
        p = await self._probability(audio)
        heard: PauseText | None = None
        try:
            heard = await asyncio.wait_for(asyncio.shield(self._pause_text(turn, pause)),
                                           self.settings.text_wait_ms / 1000)
        except TimeoutError:
            heard = None
        text = heard.text if heard is not None else None
        p_end = heard.p_sentence_end if heard is not None and text else None
        cue = transcript_cue(text) if text is not None else None
        p_text = self._text_probability(context.question, text) if text else None
        verdict = decide(EndOfTurnSignals(p, cue, context.phase, context.hard_question,
                                          context.turn_s, p_text, p_end),
                         self.settings, self.fusion)
        return JudgedPause(turn, pause, p, p_text, text, verdict, p_end, context.turn_s)
