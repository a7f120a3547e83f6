"""End-of-turn text model: P(the answer is complete here), from words and the question.

Reads the interviewer's question and the live transcript of the answer so far, and returns the
probability that the candidate has finished (rather than stopped mid-sentence and about to go
on). A logistic regression over hashed features of the last few words, the answer's length and
a few features of the question (its first word, whether it is a yes/no question), trained by
``scripts/train_text_turn_model.py`` on transcript prefixes of public spoken and written
answers (``realtime/text_turn_model/MODEL_CARD.md``).

The model reads words only: the text is lower-cased and its punctuation removed, because the
live recognizer writes full stops at thinking pauses. Punctuation is a separate signal, to be
combined with this one by the caller.

``features`` is the one feature function of training and inference: changing it (or its word
lists) changes what the shipped weights mean, so it is versioned (``FEATURE_VERSION``) and the
loader refuses weights fitted for another version.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from realtime.transcript_cues import PREPOSITIONS  # one list for the cues and the model

FEATURE_VERSION = 1
DEFAULT_PATH = Path(__file__).resolve().parent / "text_turn_model" / "weights.npz"

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)*")
# "I 'm", "do n't" (tokenised transcripts) -> "i'm", "don't"
_SPLIT_CLITIC = re.compile(r"\s+('(?:s|m|re|ve|ll|d)\b|n't\b)")

FILLERS = frozenset("um umm uh uhh er erm ah eh hmm hm".split())
CONJUNCTIONS = frozenset(
    "and but or nor because cause since although though while whereas if unless whenever "
    "until than whether so then plus".split())
ARTICLES = frozenset("the a an".split())
DETERMINERS = frozenset(
    "this that these those my your its their our his her each every another such some any "
    "no which what".split())
PRONOUNS = frozenset("i we they he she you it there".split())
AUXILIARIES = frozenset(
    "is are was were be been being am will would can could should must shall may might has "
    "have had do does did gonna wanna isn't aren't wasn't weren't don't doesn't didn't "
    "haven't hasn't hadn't won't wouldn't can't couldn't shouldn't".split())
AFFIRM = frozenset("yes yeah yep yup no nope nah sure okay ok right correct exactly".split())
# Phrases with which a speaker keeps the floor while thinking. Spoken at the end of the text
# so far they mean more is coming.
FLOOR_HOLDING = (
    "let me think", "let me think about it", "let me think about that", "let me see",
    "let's see", "let me just think", "let me recall", "let me remember", "let me check",
    "give me a second", "give me a sec", "give me a moment", "give me a minute",
    "give me one second", "one second", "one sec", "just a second", "just a moment",
    "hold on", "bear with me", "i need to think", "how do i put this", "how do i put it",
    "how should i put it", "how do i say this", "what's the word", "that's a good question",
    "good question", "i'm thinking", "let me think for a second", "let me get my thoughts",
)
_FLOOR_TAILS = frozenset(tuple(p.split()) for p in FLOOR_HOLDING)
_FLOOR_MAX = max(len(t) for t in _FLOOR_TAILS)

# Question openings: the first word that says what kind of answer is wanted.
_QUESTION_WORDS = frozenset(
    "what why how explain describe have has do does did is are was were can could would will "
    "should shall may which who whom whose when where name list tell walk give compare define "
    "suppose imagine if say".split())
_YES_NO_OPENINGS = frozenset(
    "have has do does did is are was were can could would will should shall may might am "
    "isn't aren't don't doesn't didn't haven't hasn't wasn't weren't won't wouldn't can't "
    "couldn't shouldn't".split())
# Words a speaker puts before the question proper ("So, what is ...", "Okay. Can you ...").
_QUESTION_PREFACE = frozenset(
    "so okay ok and now well alright right then great good thanks thank you next".split())


def words(text: str) -> list[str]:
    """Lower-cased words without punctuation: what the model reads."""
    text = _SPLIT_CLITIC.sub(r"\1", text.lower().replace("\u2019", "'"))
    return _WORD.findall(text)


@dataclass(frozen=True)
class QuestionInfo:
    """What the model reads of a question."""

    kind: str            # its first question word ("what", "explain", "have", ...) or "other"
    kind2: str           # with the next word ("how many", "what is", "have you")
    yes_no: bool         # opens with an auxiliary and offers no alternative ("or")
    words: frozenset[str]


@lru_cache(maxsize=4096)
def question_info(question: str) -> QuestionInfo:
    ws = words(question)
    start = 0
    while start < len(ws) - 1 and start < 3 and ws[start] in _QUESTION_PREFACE \
            and ws[start] not in _QUESTION_WORDS:
        start += 1
    head = ws[start:]
    if not head:
        return QuestionInfo("none", "none", False, frozenset())
    first = head[0]
    kind = first if first in _QUESTION_WORDS or first in _YES_NO_OPENINGS else "other"
    kind2 = f"{kind} {head[1]}" if kind != "other" and len(head) > 1 else kind
    yes_no = first in _YES_NO_OPENINGS and "or" not in head
    return QuestionInfo(kind, kind2, yes_no, frozenset(ws))


def _length_bucket(n: int) -> str:
    for limit, name in ((1, "1"), (2, "2"), (3, "3"), (4, "4"), (6, "5-6"), (9, "7-9"),
                        (14, "10-14"), (24, "15-24"), (49, "25-49")):
        if n <= limit:
            return name
    return "50+"


def word_class(word: str) -> str:
    if word in FILLERS:
        return "filler"
    if word in CONJUNCTIONS:
        return "conj"
    if word in PREPOSITIONS:
        return "prep"
    if word in ARTICLES:
        return "art"
    if word in DETERMINERS:
        return "det"
    if word in PRONOUNS:
        return "pron"
    if word in AUXILIARIES:
        return "aux"
    if word in AFFIRM:
        return "affirm"
    return "word"


def floor_holding(ws: Sequence[str]) -> bool:
    """Does the text end with a floor-holding phrase (maybe followed by fillers)?"""
    end = len(ws)
    while end > 0 and ws[end - 1] in FILLERS:
        end -= 1
    for n in range(2, _FLOOR_MAX + 1):
        if end >= n and tuple(ws[end - n:end]) in _FLOOR_TAILS:
            return True
    return False


def feature_names(question: QuestionInfo, ws: Sequence[str]) -> list[str]:
    """The model's features of an answer prefix ``ws`` (from ``words``) to ``question``."""
    n = len(ws)
    q = question.kind
    yn = "yn" if question.yes_no else "open"
    if n == 0:
        return ["bias", "empty", f"q={q}|empty"]
    w1 = ws[-1]
    w2 = ws[-2] if n > 1 else "<s>"
    w3 = ws[-3] if n > 2 else "<s>"
    w4 = ws[-4] if n > 3 else "<s>"
    c1, c2, c3 = word_class(w1), word_class(w2), word_class(w3)
    lb = _length_bucket(n)
    a1 = ws[0]
    out = [
        "bias",
        f"w1={w1}", f"w2={w2} {w1}", f"w3={w3} {w2} {w1}", f"p2={w2}",
        f"c1={c1}", f"c2={c2} {c1}", f"c3={c3} {c2} {c1}", f"u3={w3}", f"u4={w4}",
        f"len={lb}", f"a1={a1}", f"a1={a1}|len={lb}",
        f"q={q}", f"q2={question.kind2}", f"q={q}|len={lb}", f"q2={question.kind2}|len={lb}",
        f"q={q}|w1={w1}", f"q={q}|c1={c1}", f"q={q}|a1={a1}",
        f"{yn}|len={lb}", f"{yn}|w1={w1}", f"{yn}|w2={w2} {w1}", f"{yn}|a1={a1}|len={lb}",
    ]
    if question.yes_no and c1 == "aux" and n <= 6:  # "Have you used it?" "Yes, I have."
        out += ["yn_ends_aux", f"yn_ends_aux|len={lb}"]
    if floor_holding(ws):
        out += ["hold", f"hold|len={min(n, 8)}"]
    if question.words:
        in_q = sum(1 for w in ws if w in question.words)
        if n >= 2 and in_q == n:
            out.append(f"all_in_q|len={lb}")
        out.append(f"last_in_q={w1 in question.words}|{c1}")
        out.append(f"share_in_q={min(4, (4 * in_q) // n)}|len={lb}")
    return out


def _hash(name: str, dim: int) -> int:
    return zlib.crc32(name.encode()) % dim


def features(question: str, text: str, dim: int) -> list[int]:
    """Hashed feature indices (with repeats) of ``text`` answering ``question``."""
    info = question_info(question)
    return [_hash(f, dim) for f in feature_names(info, words(text))]


class TextTurnModel(ABC):
    """P(the answer is complete) from the question and the transcript so far."""

    name: str

    @abstractmethod
    def probability(self, question: str, text: str) -> float:
        """P(complete): pure, thread-safe and fast (well under 10 ms on one core)."""


class HashedTextTurnModel(TextTurnModel):
    """Logistic regression over hashed word and question features (``weights.npz``)."""

    def __init__(self, weights: np.ndarray, *, name: str = "hashed-text-turn") -> None:
        if weights.ndim != 1 or weights.size < 2:
            raise ValueError("text turn model: weights must be a 1-d array")
        self._w = np.asarray(weights, dtype=np.float64)
        self._w.setflags(write=False)
        self.dim = int(self._w.size)
        self.name = name

    @classmethod
    def load(cls, path: Path) -> HashedTextTurnModel:
        if not path.is_file():
            raise FileNotFoundError(
                f"text turn model weights not found: {path} (train them with "
                "scripts/train_text_turn_model.py, see realtime/text_turn_model/MODEL_CARD.md)")
        if path.suffix == ".json":
            doc = json.loads(path.read_text())
            meta, weights = doc["meta"], np.asarray(doc["weights"], dtype=np.float64)
        else:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                weights = data["weights"].astype(np.float64) * float(meta.get("scale", 1.0))
        version = int(meta.get("feature_version", -1))
        if version != FEATURE_VERSION:
            raise ValueError(f"text turn model {path}: feature version {version}, this code "
                             f"reads {FEATURE_VERSION}; retrain the model")
        return cls(weights, name=str(meta.get("name", "hashed-text-turn")))

    def logit(self, question: str, text: str) -> float:
        return float(sum(self._w[i] for i in features(question, text, self.dim)))

    def probability(self, question: str, text: str) -> float:
        z = self.logit(question, text)
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def load_text_turn_model(path: Path | None = None) -> TextTurnModel:
    """The trained model (``realtime/text_turn_model/weights.npz`` unless ``path``)."""
    return HashedTextTurnModel.load(path or DEFAULT_PATH)
