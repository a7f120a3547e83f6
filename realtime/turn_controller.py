"""One owner for turn-taking: the detector, the policy's verdicts, and what follows an end.

Synchronous and clock-free: time comes from the frames and the ``now`` arguments, so tests
drive it with made-up times and never sleep. The voice session feeds it audio frames,
verdicts, editor activity and ticks, and acts on the typed frames it returns.

After an end it decides whether new speech continues the same answer (an amendment) or is
a new one. Speech continues the last answer only
- within ``amend_window_ms`` of the end, and
- until the reply has been heard past its first sentence (``reply_closed(since, now)``,
  told by the speaker): once the candidate has heard the feedback, or the next question has begun
  playing, what they say is a new answer. So amendments cannot chain across questions.
A turn's reply is *held* while its answer may still go on; a held reply is said after all
if the continuation turns out to be a cough.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from realtime.end_of_turn import TurnPhase, TurnTakingSettings
from realtime.end_of_turn_judge import JudgedPause
from realtime.frames import (
    AudioFrame,
    BackChannel,
    EndReason,
    ReplyReleased,
    SpeechStarted,
    TurnDropped,
    TurnEnded,
    TurnFrame,
    Utterance,
)
from realtime.turn_detector import TurnDetector

KEEP_TURNS = 8  # turn records older than this many turns are forgotten
SURE_ENDS = ("complete", "explicit")  # ends the signals (or the candidate) were sure of


@dataclass
class SpokenAnswer:
    """A spoken answer handed to the engine (under the question's ``turn_id``)."""

    turn_id: str
    text: str
    phase: TurnPhase = "conversation"


@dataclass
class _TurnRecord:
    continues: int | None = None  # the earlier turn whose answer this one goes on with
    continues_was: int = 0  # ... before it turned out to be a cough
    held: bool = False  # its reply must not be heard: the answer went on
    withheld: Utterance | None = None  # the held reply, said if the going-on was a cough
    answer: SpokenAnswer | None = None
    judged: JudgedPause | None = None  # the last verdict of its pauses
    ended: TurnEnded | None = None
    backchannel: bool = False  # one "take your time" per turn at most


@dataclass
class TurnContext:
    phase: TurnPhase = "conversation"
    hard_question: bool = False
    question: str = ""


class TurnController:
    def __init__(self, settings: TurnTakingSettings,
                 reply_closed: Callable[[float, float], bool] = lambda since, now: False):
        self.settings = settings
        self.context = TurnContext()
        self.detector = TurnDetector(settings.think_limit_ms("conversation", False),
                                     settings.pause_ms)
        self._reply_closed = reply_closed
        self._turns: dict[int, _TurnRecord] = {}
        self._last_end: TurnEnded | None = None
        self.amendments_refused = 0  # speech after the reply was heard: a new answer

    # -- context and inputs ------------------------------------------------------------

    def set_context(self, phase: TurnPhase, hard_question: bool, question: str) -> None:
        self.context = TurnContext(phase, hard_question, question)
        self.detector.silence_ms = self.settings.think_limit_ms(phase, hard_question)

    def audio(self, frame: AudioFrame) -> list[TurnFrame]:
        return self._note(self.detector.push(frame))

    def verdict(self, judged: JudgedPause, now: float) -> list[TurnFrame]:
        """A pause's verdict; one for a pause that is over (speech resumed) is ignored."""
        if judged.turn != self.detector.turn or judged.pause != self.detector.pause:
            return []
        self._record(judged.turn).judged = judged
        v = judged.verdict
        reason: EndReason = ("hold" if v.holds_floor else "complete" if v.finished
                  else "unsure" if v.p_finished is not None and v.end_after_ms
                  < self.settings.think_limit_ms(self.context.phase,
                                                 self.context.hard_question)
                  else "think_limit")
        return self._note(self.detector.set_verdict(judged.turn, judged.pause,
                                                    v.end_after_ms, reason, now))

    def activity(self, now: float) -> None:
        """Editor activity: while coding, typing holds the floor like speaking does."""
        if self.context.phase == "coding":
            self.detector.activity(now)

    def end_turn(self, now: float) -> list[TurnFrame]:
        return self._note(self.detector.end_turn(now))

    def tick(self, now: float) -> list[TurnFrame]:
        frames = self._note(self.detector.tick(now))
        d = self.detector
        if not frames and d.paused:
            record = self._turns.get(d.turn)
            judged = record.judged if record else None
            if (record is not None and judged is not None and judged.pause == d.pause
                    and judged.verdict.holds_floor and not record.backchannel
                    and d.silence_ms_at(now) >= self.settings.backchannel_ms):
                record.backchannel = True
                frames.append(BackChannel(d.turn, now))
        return frames

    # -- after an end ------------------------------------------------------------------

    def ended(self, turn: int) -> TurnEnded | None:
        record = self._turns.get(turn)
        return record.ended if record else None

    def sure_end(self, turn: int) -> bool:
        """The turn ended because the signals (or the candidate) said it was finished."""
        ended = self.ended(turn)
        return ended is not None and ended.reason in SURE_ENDS

    def end_summary(self, turn: int) -> dict[str, object] | None:
        record = self._turns.get(turn)
        if record is None or record.judged is None:
            return None
        return record.judged.summary()

    def amends(self, turn: int) -> SpokenAnswer | None:
        """The earlier answer this turn's words go on with, if any."""
        record = self._turns.get(turn)
        if record is None or record.continues is None:
            return None
        earlier = self._turns.get(record.continues)
        return earlier.answer if earlier else None

    def went_on(self, turn: int) -> bool:
        """Later speech was taken as this answer going on."""
        record = self._turns.get(turn)
        return record is not None and record.held

    def going_on_undecided(self, turn: int) -> bool:
        """Speech was taken as this answer going on, and is neither dropped as a noise yet
        nor heard as words that amend it: whatever was held back for it must still wait."""
        record = self._turns.get(turn)
        if record is None or not record.held:
            return False
        return not any(r.continues == turn and r.answer is not None
                       for r in self._turns.values())

    def answered(self, turn: int, answer: SpokenAnswer | None) -> None:
        """``turn``'s words are (part of) ``answer``; None: the engine refused them."""
        self._record(turn).answer = answer

    def reply(self, turn: int, utterance: Utterance) -> Utterance | None:
        """The reply to ``turn``'s answer, or None when it must wait (the answer went on)."""
        record = self._record(turn)
        if record.held:
            record.withheld = utterance
            return None
        return utterance

    def _record(self, turn: int) -> _TurnRecord:
        record = self._turns.get(turn)
        if record is None:
            record = self._turns[turn] = _TurnRecord()
            for old in [t for t in self._turns if t < turn - KEEP_TURNS]:
                del self._turns[old]
        return record

    def _note(self, frames: list[TurnFrame]) -> list[TurnFrame]:
        out: list[TurnFrame] = []
        for frame in frames:
            if isinstance(frame, SpeechStarted):
                frame = self._maybe_continue(frame)
            elif isinstance(frame, TurnEnded):
                self._record(frame.turn).ended = frame
                self._last_end = frame
            elif isinstance(frame, TurnDropped):
                released = self._release(frame.turn)
                if released is not None:
                    out += [frame, released]
                    continue
            out.append(frame)
        return out

    def _maybe_continue(self, started: SpeechStarted) -> SpeechStarted:
        last = self._last_end
        if last is None or started.at - last.ended_at > self.settings.amend_window_ms / 1000:
            return started
        previous = self._turns.get(last.turn)
        if previous is not None and previous.answer is not None \
                and previous.answer.phase == "coding":
            return started  # talk while coding is recorded, not graded: nothing to amend
        if self._reply_closed(last.ended_at, started.at):
            # The candidate has heard the reply (or the next question began): a new answer.
            self.amendments_refused += 1
            return started
        self._record(started.turn).continues = last.turn
        self._record(last.turn).held = True
        self._last_end = None  # the continuation is the answer's end now, once it ends
        return SpeechStarted(started.turn, started.at, continues=last.turn)

    def _release(self, dropped: int) -> ReplyReleased | None:
        """A turn taken for a continuation was only a noise: the answer before it stands,
        and its reply, if it was held back, is said after all."""
        record = self._turns.get(dropped)
        if record is None or record.continues is None:
            return None
        previous = self._record(record.continues)
        record.continues_was, record.continues = record.continues, None
        previous.held = False
        said, previous.withheld = previous.withheld, None
        if previous.ended is not None:
            self._last_end = previous.ended
        return None if said is None else ReplyReleased(record.continues_was, said)
