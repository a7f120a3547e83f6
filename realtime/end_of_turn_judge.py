"""Gathers the end-of-turn signals at one pause and asks the policy for a verdict.

The audio model runs on its own thread (~40 ms); the transcript signal comes from the
transcriber's speculative decode of the pause (usually ready within ~300 ms). Audio that
clearly sounds unfinished needs no text; otherwise the text is awaited for a bounded time,
and a verdict is given without it when the recognizer is slow. Any failure of a signal
makes the judge more patient, never less.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np

from audio.turn_model import TurnCompletionModel
from realtime.end_of_turn import (
    EndOfTurnSignals,
    EndOfTurnVerdict,
    TurnPhase,
    TurnTakingSettings,
    decide,
)
from realtime.transcript_cues import transcript_cue

log = logging.getLogger(__name__)

TEXT_WAIT_S = 1.2  # longest wait for the pause's decode before deciding without it


@dataclass(frozen=True)
class JudgedPause:
    turn: int
    pause: int
    p_complete: float | None
    text: str | None
    verdict: EndOfTurnVerdict


class EndOfTurnJudge:
    def __init__(self, model: TurnCompletionModel | None, executor: Executor | None,
                 pause_text: Callable[[int, int], asyncio.Future[str]],
                 settings: TurnTakingSettings, text_wait_s: float = TEXT_WAIT_S):
        self._model = model
        self._executor = executor
        self._pause_text = pause_text
        self.settings = settings
        self._text_wait_s = text_wait_s
        self.last: JudgedPause | None = None

    async def _probability(self, audio: np.ndarray) -> float | None:
        if self._model is None:
            return None
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor, self._model.probability, audio)
        except Exception:
            log.exception("the end-of-turn model failed; deciding without it")
            return None

    async def verdict(self, turn: int, pause: int, audio: np.ndarray, phase: TurnPhase,
                      hard_question: bool, turn_s: float) -> EndOfTurnVerdict:
        p = await self._probability(audio)
        text: str | None = None
        if p is None or p >= self.settings.unsure_p:
            try:
                text = await asyncio.wait_for(asyncio.shield(self._pause_text(turn, pause)),
                                              self._text_wait_s)
            except TimeoutError:
                text = None
        cue = transcript_cue(text) if text is not None else None
        verdict = decide(EndOfTurnSignals(p, cue, phase, hard_question, turn_s), self.settings)
        self.last = JudgedPause(turn, pause, p, text, verdict)
        return verdict
