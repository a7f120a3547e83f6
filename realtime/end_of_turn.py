"""End-of-turn policy: how much silence to wait at this pause, from several signals.

Silence alone cuts real speakers off: people pause 1–2.5 s mid-sentence to think. At every
pause the session asks this policy, with
- the learned audio signal (Smart Turn: does it *sound* finished?),
- the transcript signal (does the text end in an open clause: "and", "because", "the"?),
- the phase (conversation, or coding, where people think in silence; a hard question earns
  more patience),
- the turn's length (a hard cap: a monologue ends at its next pause).
"Finished" ends the turn after a short silence so the reply comes fast; "still thinking"
waits up to the think limit, then ends. An explicit "done" never asks (it ends at once).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from realtime.transcript_cues import TranscriptCue

TurnPhase = Literal["conversation", "coding"]


@dataclass(frozen=True)
class TurnTakingSettings:
    complete_ms: int = 400  # silence after a turn that sounds finished (conversation)
    coding_complete_ms: int = 2500  # while coding, even a finished sentence may go on
    unsure_ms: int = 1500  # no audio model, but the sentence is closed
    think_ms: int = 3000  # the most silence waited while the candidate seems to think
    coding_think_ms: int = 6000
    hard_question_extra_ms: int = 1000  # more patience after a hard question
    max_turn_s: float = 120.0  # a turn this long ends at its next pause
    # Smart Turn probability (the last 150 ms of silence included) at or above which the
    # audio sounds finished; tuned on tests/data/real_speech (see README, turn-taking).
    complete_p: float = 0.9
    unsure_p: float = 0.2  # below this the audio clearly sounds unfinished: no text needed
    # A turn this young is rarely a whole interview answer, and the first thinking pause
    # comes early ("That was a bonus, … but"): it must sound very finished to end.
    short_turn_s: float = 2.0
    short_turn_p: float = 0.98

    def think_limit_ms(self, phase: TurnPhase, hard_question: bool) -> int:
        base = self.coding_think_ms if phase == "coding" else self.think_ms
        return base + (self.hard_question_extra_ms if hard_question else 0)


@dataclass(frozen=True)
class EndOfTurnSignals:
    p_complete: float | None  # None when the audio model is not available
    cue: TranscriptCue | None  # None when no decode was ready in time
    phase: TurnPhase
    hard_question: bool
    turn_s: float


@dataclass(frozen=True)
class EndOfTurnVerdict:
    end_after_ms: int  # end the turn once the silence reaches this
    finished: bool  # the signals say the candidate is done
    reason: str


def decide(signals: EndOfTurnSignals, settings: TurnTakingSettings) -> EndOfTurnVerdict:
    think = settings.think_limit_ms(signals.phase, signals.hard_question)
    complete = (settings.coding_complete_ms if signals.phase == "coding"
                else settings.complete_ms)
    if signals.turn_s >= settings.max_turn_s:
        return EndOfTurnVerdict(complete, True, f"hard cap: {signals.turn_s:.0f} s of turn")
    cue = signals.cue
    if cue is not None and cue.open_clause:
        return EndOfTurnVerdict(think, False, f"transcript {cue.reason}")
    p = signals.p_complete
    if p is None:
        # No audio model: the text alone decides, with a middle window.
        if cue is not None and cue.ends_sentence:
            return EndOfTurnVerdict(max(complete, settings.unsure_ms), True,
                                    "closed sentence (no audio model)")
        return EndOfTurnVerdict(think, False, "no audio model, sentence not closed")
    needed = settings.short_turn_p if signals.turn_s < settings.short_turn_s \
        else settings.complete_p
    if p >= needed:
        return EndOfTurnVerdict(complete, True, f"sounds finished (p={p:.2f})")
    if p >= settings.complete_p:
        return EndOfTurnVerdict(think, False, f"a short turn, not sure enough (p={p:.2f})")
    # Measured on real speech with thinking pauses: mid-sentence pauses at a phrase border
    # often score 0.5–0.9 and 1–2.5 s pauses are common, so an unsure middle window would
    # still cut people off. Unsure means: let them think.
    return EndOfTurnVerdict(think, False, f"sounds unfinished (p={p:.2f})")
