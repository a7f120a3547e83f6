"""Transcript signal for end of turn: does the text so far end in an open clause?

People stop to think after "and", "because", "the", "um": a sentence that ends there is not
finished, whatever the silence says. Pure text rules, cheap, applied to the latest decode of
the turn (the speculative decode made at the pause).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agents.coding_hints import asks_for_hint

CONJUNCTIONS = frozenset(
    "and but or nor because since although while whereas if unless whenever until "
    "than which whom whose whether plus".split())
PREPOSITIONS = frozenset(
    "of to in on at for with by from into onto about like as via over under between through "
    "across after before during against without within per toward towards upon".split())
DETERMINERS = frozenset(
    "the a an these those my your its their our his her each every another such".split())
# Words that need something after them: subjects, auxiliaries, copulas, "let me", etc.
NEEDS_MORE = frozenset(
    "i we they he she is are was were be been being am will would can could should must "
    "shall has had does very really just let gonna wanna "
    # ... and words that want a "to" after them ("she is believed to be", "able to")
    "believed supposed expected meant likely unlikely able unable tends seems seem wants "
    "needs tried trying".split())
# Words that may end a sentence ("that's it", "I'd use this"): open only when the recognizer
# did not close the sentence.
MAYBE_MORE = frozenset(
    "so that then when where who also this some any it there here what how why not more "
    "most you have do did going well basically actually like "
    # "I was lucky, though." ends a sentence as an adverb; "though" opens a clause otherwise
    "though".split())
FILLERS = frozenset("um umm uh uhh er erm ah eh hmm mm mhm".split())
FILLER_PHRASES = ("you know", "i mean", "kind of", "sort of", "so yeah")
# The candidate asks for time: the floor stays theirs well past the think limit, and a long
# silence earns one back-channel ("Take your time."), never a reply.
FLOOR_HOLDING = re.compile(
    r"\b(let me (think|see|just think|check|recall|remember)|let's see|give me (a|one) "
    r"(sec|second|moment|minute)|hold on|bear with me|i need to think|thinking about it|"
    r"how do i put (it|this))\b|\b(one|a|just a) (sec|second|moment|minute)$")
FLOOR_TAIL_WORDS = 8  # asked for within the last words; not "let me see why" long ago
TRAILING_OPEN = (",", "-", "—", "…", "...", ":", ";")
# A sentence opened by one of these needs a main clause ("Unless the table is indexed, …").
# Not "because"/"since"/"when": "Because lookups are O(1)." answers a "why" on its own.
SUBORDINATORS = frozenset("unless although though whereas if".split())


@dataclass(frozen=True)
class TranscriptCue:
    open_clause: bool
    reason: str  # e.g. 'ends with "because"', "ends with a comma", "" when not open
    ends_sentence: bool  # the recognizer put a full stop, question or exclamation mark
    holds_floor: bool = False  # the last sentence asks for time ("let me think")
    # The last sentence asks the interviewer for help ("can I get a hint?"): a question put
    # to them, to be answered at once, even while coding.
    asks_for_help: bool = False


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def _last_sentence(text: str) -> str:
    parts = [p for p in re.split(r"(?<=[.?!])\s+", text.strip()) if p]
    return parts[-1] if parts else ""


def transcript_cue(text: str) -> TranscriptCue:
    stripped = text.strip()
    if not stripped:
        return TranscriptCue(True, "nothing heard yet", False)
    ends_sentence = stripped.endswith((".", "?", "!")) and not stripped.endswith("...")
    if stripped.endswith(TRAILING_OPEN):
        return TranscriptCue(True, f"ends with {stripped[-1]!r}", False)
    words = _words(stripped)
    if not words:
        return TranscriptCue(False, "", ends_sentence)
    lowered = " ".join(words)
    asked = FLOOR_HOLDING.search(" ".join(words[-FLOOR_TAIL_WORDS:]))
    if asked:
        return TranscriptCue(True, f"asks for time ({asked.group(0)!r})", ends_sentence,
                             holds_floor=True)
    for phrase in FILLER_PHRASES:
        if lowered.endswith(phrase):
            return TranscriptCue(True, f"ends with the filler {phrase!r}", ends_sentence)
    clause = _last_sentence(stripped)
    first = _words(clause)[:1]
    # Short: a long clause with no comma is more likely unpunctuated than subordinate only.
    if first and first[0] in SUBORDINATORS and "," not in clause and len(_words(clause)) <= 12:
        return TranscriptCue(True, f"a clause opened by {first[0]!r} and no main clause",
                             ends_sentence)
    last = words[-1]
    if stripped.endswith("?") and last in PREPOSITIONS:
        # A question may end in its preposition: "What is it for?", "How do we get them in?"
        return TranscriptCue(False, "", ends_sentence)
    for kind, vocabulary in (("a conjunction", CONJUNCTIONS), ("a preposition", PREPOSITIONS),
                             ("an article", DETERMINERS), ("a filler", FILLERS),
                             ("an unfinished phrase", NEEDS_MORE)):
        if last in vocabulary:
            return TranscriptCue(True, f"ends with {kind} {last!r}", ends_sentence)
    if last in MAYBE_MORE and not ends_sentence:
        return TranscriptCue(True, f"ends with {last!r} and no full stop", ends_sentence)
    return TranscriptCue(False, "", ends_sentence, asks_for_help=asks_for_hint(clause))
