"""Is this a sentence that says something, or a bag of words? A word-order signal.

Word salad (an answer's content words with no sentence around them, or its words shuffled)
shares every keyword with a right answer, so the rubric and the cross-encoder credit it. What
it lacks is order: in English the word after "the" is a noun or an adjective, a verb follows
its subject, "of" joins two nouns. This module reads that order from a small model of word
classes:

- each word becomes a class: a function word ("the", "is", "of", "can"...) or one of the most
  frequent words of the training answers is its own class, any other word a coarse class by
  its ending ("-ing", "-ed", "-s", "-ly", "-tion", adjectival, verbal, other), a number
  ``NUM``;
- a class bigram model counted on real student answers (the public *training* questions of
  SemEval-2013 Task 7 and SAF, ``scripts/train_grader.py fluency``) gives each adjacent pair
  its pointwise mutual information, log p(b | a) / p(b); an answer's order score is their
  mean;
- the answer is compared with **its own words in random orders** (``SHUFFLES`` of them, seeded
  by the text, so a grade is reproducible): ``z`` is how many standard deviations its order
  scores above theirs. Word salad is one of those random orders, so its ``z`` is about
  standard normal whatever its words; a sentence's grows with its length. Comparing with its
  own shuffles takes out what the words are (an answer naming "is" and "equals" as operators
  is not penalised for them);
- two bars per length band: a sentence's ``z`` grows with its length, a salad's does not,
  so both rise with length. Answers are put in bands by word count (``BANDS``); each band's
  **soft bar** is the 1 % quantile of ``z`` over real answers of that length on the public
  **dev** questions, its **hard bar** the 0.2 % quantile (never below a shorter band's).
  Under the hard bar the answer is word salad (``is_salad``); between the bars its credit is
  scaled down in proportion (``order_factor``), so the rare real answer that reads oddly
  loses a little, not everything. Set by ``scripts/train_grader.py fluency``
  (``fluency.json``; its report, with how many dev salads each band catches, in
  ``calibration_report.json``). Never fitted on the test split or the bank's answers.

A second, independent sign: a judged answer whose share of function words is under
``function_floor`` (the 0.2 % quantile of real dev answers) is a list of content words, in
whatever order: no sentence of 25 words or more is made of nouns and verbs alone.

Answers under ``MIN_WORDS`` words are not judged (a few words carry too little order to
read), nor formulas (a quarter or more of the words numbers or single letters: "P(X=3) = 20 ×
0.6^3"), which are not prose.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

MODEL_FILE = Path(__file__).resolve().parent / "grader_model" / "fluency.json"
MIN_WORDS = 25  # below this an answer is not judged for word order (see the docstring)
BANDS = (MIN_WORDS, 40, 60)  # word-count bands, each with bars of its own
SHUFFLES = 32  # random orders of the answer's own words it is compared with
INTERPOLATION = 0.9  # p(b | a) = 0.9 · counted + 0.1 · p(b): an unseen pair is not -inf

# Closed-class words, each its own class: the words whose order makes a sentence.
FUNCTION_WORDS = frozenset("""
a an the this that these those each every some any no all both another other such either
neither i you he she it we they me him her us them my your his its our their mine yours
which who whom whose what there here is are was were be been being am has have had having do
does did doing can could will would shall should may might must of to in on at by for with
from into onto about over under between through during before after above below up down out
off than as like per via without within across against along among around behind beyond
toward towards upon and or but nor so yet because if when while although though since unless
until whether where then how why not never also only just very more most less least much many
few same too even still already again once dont doesnt isnt arent cant wont didnt wasnt
werent shouldnt couldnt wouldnt im youre theyre thats lets whats theres
""".split())
_SUFFIX_CLASSES = (
    ("ing", "-ing"), ("ed", "-ed"), ("ly", "-ly"),
    ("tion", "-nom"), ("sion", "-nom"), ("ment", "-nom"), ("ness", "-nom"), ("ity", "-nom"),
    ("ance", "-nom"), ("ence", "-nom"), ("ism", "-nom"),
    ("able", "-adj"), ("ible", "-adj"), ("ous", "-adj"), ("ive", "-adj"), ("ful", "-adj"),
    ("less", "-adj"), ("al", "-adj"), ("ic", "-adj"), ("ary", "-adj"),
    ("ize", "-verb"), ("ise", "-verb"), ("ify", "-verb"), ("ate", "-verb"),
    ("er", "-er"), ("or", "-er"),
)
_WORD = re.compile(r"[a-z][a-z']*|\d+(?:\.\d+)?")
START, END = "<s>", "</s>"


def function_share(text: str) -> float:
    """The share of ``text``'s words that are function words ("the", "is", "of"...)."""
    w = words(text)
    return sum(x.replace("'", "") in FUNCTION_WORDS for x in w) / len(w) if w else 0.0


def word_class(word: str) -> str:
    w = word.replace("'", "")
    if w in FUNCTION_WORDS:
        return w
    if w[0].isdigit():
        return "NUM"
    for suffix, cls in _SUFFIX_CLASSES:
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            return cls
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return "-s"
    return "W"


_CONTRACTIONS = ((re.compile(r"\b(can)'t\b"), r"\1 not"), (re.compile(r"\bwon't\b"), "will not"),
                 (re.compile(r"n't\b"), " not"), (re.compile(r"'re\b"), " are"),
                 (re.compile(r"'ll\b"), " will"), (re.compile(r"'ve\b"), " have"),
                 (re.compile(r"'m\b"), " am"), (re.compile(r"'d\b"), " would"),
                 (re.compile(r"\b(it|that|there|what|here|he|she|who|where|how)'s\b"),
                  r"\1 is"))


def words(text: str) -> list[str]:
    """Lower-case words, contractions spelt out ("it's" → "it is": the possessive "its" is
    another class), a complexity such as "O(n log n)" one word."""
    text = _COMPLEXITY.sub(" complexity ", text.lower().replace("’", "'"))
    for pattern, full in _CONTRACTIONS:
        text = pattern.sub(full, text)
    return _WORD.findall(text)


FORMULA_SHARE = 0.25  # numbers and operators per word: a formula, not read for word order
_OPERATORS = re.compile(r"[=^*+/<>×]")
_COMPLEXITY = re.compile(r"\bo\([^)]*\)", re.IGNORECASE)


def judged(text: str) -> bool:
    """Whether ``text`` is read for word order: ``MIN_WORDS`` words or more, not a formula."""
    w = words(text)
    if len(w) < MIN_WORDS:
        return False
    symbols = sum(x[0].isdigit() for x in w) + len(_OPERATORS.findall(text))
    return symbols / len(w) < FORMULA_SHARE


@dataclass(frozen=True)
class FluencyModel:
    vocabulary: frozenset[str]  # words that are their own class (besides FUNCTION_WORDS)
    unigram: dict[str, float]  # p(class)
    bigram: dict[str, dict[str, float]]  # p(b | a), counted pairs only
    # (fewest words, hard bar, soft bar) per length band, in order (see the docstring).
    bars: tuple[tuple[int, float, float], ...] = ()
    function_floor: float = 0.0  # a judged text with fewer function words is a word list

    def word_class(self, word: str) -> str:
        w = word.replace("'", "")
        return w if w in self.vocabulary else word_class(w)

    def classes(self, text: str) -> list[str]:
        return [self.word_class(w) for w in words(text)]

    @classmethod
    def count(cls, texts: list[str], vocabulary_size: int = 150) -> FluencyModel:
        frequent: Counter[str] = Counter(w.replace("'", "") for t in texts for w in words(t))
        vocabulary = frozenset(w for w, _ in frequent.most_common(vocabulary_size)
                               if not w[0].isdigit())
        base = cls(vocabulary, {}, {})
        uni: Counter[str] = Counter()
        pairs: Counter[tuple[str, str]] = Counter()
        for t in texts:
            seq = [START, *base.classes(t), END]
            uni.update(seq[1:])
            pairs.update(zip(seq, seq[1:], strict=False))
        total = sum(uni.values()) or 1
        by_first: Counter[str] = Counter()
        for (a, _), n in pairs.items():
            by_first[a] += n
        bigram: dict[str, dict[str, float]] = {}
        for (a, b), n in pairs.items():
            bigram.setdefault(a, {})[b] = round(n / by_first[a], 6)
        return cls(vocabulary, {c: round(n / total, 6) for c, n in uni.items()}, bigram)

    def pmi(self, a: str, b: str) -> float:
        pb = self.unigram.get(b, 0.0)
        if pb <= 0.0:
            return 0.0  # a class never counted says nothing about order
        seen = self.bigram.get(a, {}).get(b, 0.0)
        return math.log(INTERPOLATION * seen / pb + (1 - INTERPOLATION))

    def _mean_pmi(self, seq: list[str]) -> float:
        full = [START, *seq, END]
        return sum(self.pmi(a, b) for a, b in zip(full, full[1:], strict=False)) / (len(full) - 1)

    def order_z(self, text: str) -> float:
        """How far the answer's word order scores above random orders of its own words, in
        their standard deviations."""
        seq = self.classes(text)
        own = self._mean_pmi(seq)
        rng = random.Random(int(hashlib.sha256(text.encode()).hexdigest()[:8], 16))
        shuffled = []
        for _ in range(SHUFFLES):
            order = seq[:]
            rng.shuffle(order)
            shuffled.append(self._mean_pmi(order))
        mean = sum(shuffled) / len(shuffled)
        spread = math.sqrt(sum((x - mean) ** 2 for x in shuffled) / len(shuffled))
        return (own - mean) / max(spread, 1e-6)

    def band_bars(self, n_words: int) -> tuple[float, float]:
        """(hard, soft) bars for an answer of ``n_words`` words."""
        below = [(hard, soft) for fewest, hard, soft in self.bars if n_words >= fewest]
        return below[-1] if below else (-math.inf, -math.inf)

    def order_factor(self, text: str) -> float:
        """1 for a sentence (or a text not judged), 0 for word salad, in between for a text
        between the bars: the share of its credit that stands."""
        if not judged(text):
            return 1.0
        if function_share(text) < self.function_floor:
            return 0.0
        hard, soft = self.band_bars(len(words(text)))
        z = self.order_z(text)
        if z >= soft:
            return 1.0
        if z < hard or soft <= hard:
            return 0.0
        return (z - hard) / (soft - hard)

    def is_salad(self, text: str) -> bool:
        """Words in no sentence order: a judged text whose ``z`` is under the hard bar."""
        return self.order_factor(text) == 0.0

    def to_json(self) -> dict[str, object]:
        return {"vocabulary": sorted(self.vocabulary), "unigram": self.unigram,
                "bigram": self.bigram, "bars": [list(b) for b in self.bars],
                "function_floor": self.function_floor,
                "min_words": MIN_WORDS, "shuffles": SHUFFLES}

    @classmethod
    def load(cls, path: Path = MODEL_FILE) -> FluencyModel:
        raw = json.loads(path.read_text())
        return cls(frozenset(raw["vocabulary"]), raw["unigram"], raw["bigram"],
                   tuple((int(n), float(h), float(b)) for n, h, b in raw["bars"]),
                   float(raw["function_floor"]))


@lru_cache(maxsize=1)
def default_model() -> FluencyModel | None:
    """The committed model, or None when its file is absent (no answer is then judged)."""
    return FluencyModel.load() if MODEL_FILE.exists() else None


@lru_cache(maxsize=2048)
def order_factor(text: str) -> float:
    """The share of ``text``'s credit its word order lets stand: 0 for word salad, 1 for a
    sentence (see the module's docstring); 1 without the model file."""
    model = default_model()
    return 1.0 if model is None else model.order_factor(text)
