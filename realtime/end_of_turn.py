"""End-of-turn policy: how much silence to wait at this pause, from several signals.

Silence alone cuts real speakers off: people pause 1–2.5 s mid-sentence to think, and no
audio model alone separates a thinking pause from a finished answer (measured on real
speech: at Smart Turn ≥ 0.5, 49 % of ends pass and 43 % of mid-sentence pauses). At every
pause the session asks this policy, with
- the learned audio signal (Smart Turn: does it *sound* finished?),
- the learned text signal (does the answer *read* finished, given the question?),
- the recognizer's own full stop: the probability Whisper gives to closing the sentence after
  the last word (it learned punctuation with the prosody, from human transcripts; on real
  turns the strongest single signal),
- the transcript cues (an open clause: "and", "because", "the"; a floor-holding phrase:
  "let me think"; the recognizer's full stop),
- the phase (conversation, or coding, where people think in silence; a hard question earns
  more patience), and the turn's length (a hard cap: a monologue ends at its next pause).
The signals are fused into one calibrated probability (``TurnFusion``, fitted on the dev
split of real turns by ``viva bench turns --fit``); the probability picks the wait, as
LiveKit's turn detector does: sure → a short window, unsure → a longer one, unlikely → the
think limit. A floor-holding phrase waits longest and earns one back-channel. An explicit
"done" never asks (it ends at once).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Literal

from realtime.transcript_cues import TranscriptCue

TurnPhase = Literal["conversation", "coding"]
FUSION_FILE = Path(__file__).resolve().parent / "turn_fusion.json"


@dataclass(frozen=True)
class TurnTakingSettings:
    """Every wait of turn-taking, by one name from the environment (``VIVA_TURN_<NAME>``)
    to the policy. Times are milliseconds of silence after the last voiced frame."""

    pause_ms: int = 150  # silence that counts as a pause: prepare the transcript, ask
    text_wait_ms: int = 1200  # longest wait for the pause's decode before deciding without
    complete_ms: int = 400  # the wait when the answer reads and sounds finished
    unsure_ms: int = 1500  # the shortest wait when the signals are unsure
    think_ms: int = 3000  # the most silence waited while the candidate seems to think
    # An open clause ("because", "and the", a trailing comma) is a sentence still being
    # built: the speaker is searching for a word, so it keeps the floor past the think limit
    # (live, on the test split's paused answers, four of five cut-ins were open clauses
    # whose 3 s pause outlasted the 3 s think limit). Half a second past it, not more: the
    # clause is read from the quick decode at the pause, which misreads some finished
    # answers ("They had not been handcuffed," for a full stop; "about our" for "about
    # her."), and those waited all of it (live on dev, 2 of the last 62 finished answers
    # waited 5 s, the old value). The dev set's longest mid-sentence pause is 2.98 s.
    open_clause_ms: int = 3500
    hold_ms: int = 9000  # "let me think", "give me a second": the floor is theirs this long
    backchannel_ms: int = 3000  # a held floor this quiet earns one "Take your time."
    coding_complete_ms: int = 2500  # while coding, even a finished sentence may go on
    coding_think_ms: int = 6000
    hard_question_extra_ms: int = 1000  # more patience after a hard question
    max_turn_s: float = 120.0  # a turn this long ends at its next pause
    amend_window_ms: int = 3000  # speech this soon after an end may continue the answer
    # Fused P(finished) at or above which the short window applies, and below which the
    # think limit does; in between the wait falls from unsure_ms.. think_ms with P.
    # Chosen on the dev split, scored on held-out speakers (see realtime/turn_fusion.json
    # and its report; ``bench.turns.choose``).
    finished_p: float = 0.75
    unsure_p: float = 0.70

    def think_limit_ms(self, phase: TurnPhase, hard_question: bool) -> int:
        base = self.coding_think_ms if phase == "coding" else self.think_ms
        return base + (self.hard_question_extra_ms if hard_question else 0)

    def complete_wait_ms(self, phase: TurnPhase) -> int:
        return self.coding_complete_ms if phase == "coding" else self.complete_ms

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]


def logit(p: float) -> float:
    """log(p / (1 - p)), clipped so a model's 0 or 1 stays finite (the fusion's features)."""
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


@dataclass(frozen=True)
class TurnFusion:
    """P(finished) = sigmoid(bias + Σ weight·feature); a missing model's feature is 0 and
    its own bias term (``*_missing``) stands in, so every subset of signals is calibrated."""

    bias: float = 0.0
    audio: float = 1.0  # logit of Smart Turn's probability
    text: float = 1.0  # logit of the text model's probability
    full_stop: float = 0.3  # the recognizer closed the sentence
    sentence_end: float = 0.0  # logit of the recognizer's P(a closing mark after the last word)
    audio_missing: float = 0.0
    text_missing: float = 0.0
    sentence_end_missing: float = 0.0
    short_turn: float = -0.5  # under 2 s of turn: rarely a whole interview answer
    source: str = "default weights (not fitted)"

    def probability(self, p_audio: float | None, p_text: float | None, full_stop: bool,
                    turn_s: float, p_sentence_end: float | None = None) -> float:
        z = self.bias + (self.full_stop if full_stop else 0.0)
        z += self.audio * logit(p_audio) if p_audio is not None else self.audio_missing
        z += self.text * logit(p_text) if p_text is not None else self.text_missing
        z += (self.sentence_end * logit(p_sentence_end) if p_sentence_end is not None
              else self.sentence_end_missing)
        z += self.short_turn if turn_s < 2.0 else 0.0
        return 1 / (1 + math.exp(-z))

    @classmethod
    def load(cls, path: Path = FUSION_FILE) -> TurnFusion:
        if not path.is_file():
            return cls()
        data = json.loads(path.read_text(encoding="utf-8"))
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.get("weights", {}).items() if k in known})

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class EndOfTurnSignals:
    p_complete: float | None  # Smart Turn; None when the audio model is not available
    cue: TranscriptCue | None  # None when no decode was ready in time
    phase: TurnPhase
    hard_question: bool
    turn_s: float
    p_text: float | None = None  # the text model; None when not available or no text
    p_sentence_end: float | None = None  # the recognizer's closing mark; None: no decode


@dataclass(frozen=True)
class EndOfTurnVerdict:
    end_after_ms: int  # end the turn once the silence reaches this
    finished: bool  # the signals say the candidate is done
    reason: str
    p_finished: float | None = None  # the fused probability (None: a rule decided)
    holds_floor: bool = False  # "let me think": wait long, one back-channel

    @property
    def sure(self) -> bool:
        """Finished by the short window: an end that may be spoken to at once."""
        return self.finished


def decide(signals: EndOfTurnSignals, settings: TurnTakingSettings,
           fusion: TurnFusion | None = None) -> EndOfTurnVerdict:
    think = settings.think_limit_ms(signals.phase, signals.hard_question)
    complete = settings.complete_wait_ms(signals.phase)
    if signals.turn_s >= settings.max_turn_s:
        return EndOfTurnVerdict(complete, True, f"hard cap: {signals.turn_s:.0f} s of turn")
    cue = signals.cue
    if cue is not None and cue.holds_floor:
        return EndOfTurnVerdict(max(settings.hold_ms, think), False,
                                f"holds the floor: {cue.reason}", holds_floor=True)
    if cue is not None and cue.open_clause:
        return EndOfTurnVerdict(max(think, settings.open_clause_ms), False,
                                f"transcript {cue.reason}")
    if cue is not None and cue.asks_for_help:
        # A request put to the interviewer wants its answer now, in any phase (while coding
        # a finished sentence otherwise waits the long coding window).
        return EndOfTurnVerdict(settings.complete_ms, True, "asks for a hint")
    p_audio, p_text = signals.p_complete, signals.p_text
    if p_audio is None and p_text is None and signals.p_sentence_end is None:
        # No model at all: the text's punctuation alone decides, with a middle window.
        if cue is not None and cue.ends_sentence:
            return EndOfTurnVerdict(max(complete, settings.unsure_ms), True,
                                    "closed sentence (no model)")
        return EndOfTurnVerdict(think, False, "no model, sentence not closed")
    model = fusion or TurnFusion()
    p = model.probability(p_audio, p_text, bool(cue and cue.ends_sentence), signals.turn_s,
                          signals.p_sentence_end)
    what = " ".join(f"{k}={v:.2f}" for k, v in (("audio", p_audio), ("text", p_text),
                                                 ("closing mark", signals.p_sentence_end))
                    if v is not None)
    if p >= settings.finished_p:
        return EndOfTurnVerdict(complete, True, f"finished (p={p:.2f}; {what})", p)
    if p >= settings.unsure_p:
        # LiveKit-style: the surer, the shorter the wait, from think down to unsure_ms.
        span = (p - settings.unsure_p) / max(1e-9, settings.finished_p - settings.unsure_p)
        wait = round(think - span * (think - min(settings.unsure_ms, think)))
        return EndOfTurnVerdict(wait, False, f"unsure (p={p:.2f}; {what})", p)
    return EndOfTurnVerdict(think, False, f"sounds unfinished (p={p:.2f}; {what})", p)
