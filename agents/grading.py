"""Rubric grading: score an answer by which assessment points it shows, in code.

No model is involved. An answer is normalised (spoken complexity forms, light stemming), then
each concept of each point is searched for by its phrases; a phrase under a nearby negation
("not", "doesn't"...) does not count. A point's coverage is the share of its needed concepts
found; a misconception found for a point cuts that point's credit. The result keeps, for every
point, the answer words that showed it — the evidence a report cites.

``derive_points`` builds assessment points from a reference answer alone (for ``viva grade``
and for follow-up questions without authored points).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache

from agents.question_bank import AssessmentPoint, Concept, Misconception
from agents.text_normalization import normalize_text

_SPOKEN_COMPLEXITY = [
    (r"\bbig[\s-]*o\s+(?:of\s+)?", "o("),
    (r"\bo\s+of\s+", "o("),
]
_COMPLEXITY_WORDS = {
    "one": "1", "1": "1", "constant": "1", "n": "n", "log n": "log n", "logn": "log n",
    "n log n": "n log n", "nlogn": "n log n", "n squared": "n^2", "n^2": "n^2",
    "n 2": "n^2", "n cubed": "n^3", "2 to the n": "2^n", "two to the n": "2^n",
    "log of n": "log n", "n log of n": "n log n",
}
_WORD = re.compile(r"o\([^)]*\)|[a-z0-9]+(?:[+#]+)?")
_NEGATORS = {
    "not", "no", "never", "dont", "doesnt", "isnt", "arent", "cant", "cannot", "wont",
    "without", "neither", "nor", "didnt", "wasnt", "werent", "shouldnt", "lack", "lacks",
    "instead",
}
_STOP = {
    "a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "is", "are", "be", "it",
    "its", "that", "this", "with", "as", "by", "at", "from", "which", "when", "so", "you",
    "your", "can", "will", "then", "than", "into", "each", "their", "they", "them", "there",
    "has", "have", "was", "were", "but", "if", "what", "how", "also", "more", "one", "two",
    "only", "about", "some", "any", "all", "other", "such", "like", "just", "we", "our",
    "i", "my", "me", "do", "does", "did", "been", "being", "because", "would", "should",
    "could", "may", "might", "must", "these", "those", "very", "much", "many", "most",
    "use", "used", "uses", "using", "usually", "often", "both", "same", "way", "thing",
}
STOP_WORDS = frozenset(_STOP)
_DONT_KNOW = re.compile(
    r"\b(i\s+(?:do\s*n[o'’]?t|dont)\s+know|no\s+idea|no\s+clue|not\s+sure|never\s+heard"
    r"|(?:can[o'’]?t|cannot|(?:do\s*n[o'’]?t|dont))\s+(?:remember|recall))\b")
# "Pass" declines only as the whole answer ("Pass.", "I'll pass on this one", "Can I skip
# it?"): inside a sentence it is a word of the subject ("Java is pass by value").
_PASS = re.compile(
    r"^\W*(?:(?:um+|uh+|ok(?:ay)?|so|well|sorry|hmm+)\W+)*"
    r"(?:(?:i(?:'?ll| will|'?d like to| would like to| want to| have to| think i(?:'?ll)?"
    r"(?: have to)?)|let me|can i|may i|could i)\s+)?(?:pass|skip)(?:\s+on)?"
    r"(?:\s+(?:this|that|it)(?:\s+(?:one|question))?)?(?:\W+(?:sorry|please|thanks))?\W*$")


def says_dont_know(text: str) -> bool:
    """The candidate declines: "I don't know", "no idea", or a bare "pass"."""
    lowered = text.lower().strip()
    return bool(_DONT_KNOW.search(lowered) or _PASS.match(lowered))


def _normalise_complexity(text: str) -> str:
    def spoken(m: re.Match[str]) -> str:
        return "o(" + _COMPLEXITY_WORDS[m.group(1)] + ")"

    for pattern, _ in _SPOKEN_COMPLEXITY:
        text = re.sub(pattern + r"((?:n log of n|n log n|nlogn|log of n|log n|logn|n squared|"
                      r"n cubed|two to the n|2 to the n|one|constant|n\^2|n 2|1|n))\b",
                      spoken, text)
    # "o(n)" written with spaces: "o( n )" → "o(n)"
    return re.sub(r"o\(\s*([^)]*?)\s*\)", lambda m: "o(" + m.group(1) + ")", text)


def stem(word: str) -> str:
    """A deliberately small stemmer: enough to match 'collides'/'collision'/'colliding'."""
    if word.startswith("o(") or len(word) <= 3:
        return word
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ied", "sion", "tion", "ness",
                   "ment", "ers", "er", "ed", "es", "ly", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if suffix in ("ies", "ied"):
                base += "y"
            return base
    return word


@lru_cache(maxsize=8192)
def _tokens(text: str) -> tuple[str, ...]:
    # The same normalisation as the speech bench (numbers, "Mr.", fillers, complexity), so a
    # spoken "fifteenth" meets an authored "15th" and "um" is never a word of the answer.
    text = normalize_text(text).replace("'", "").replace("’", "")
    text = _normalise_complexity(text)
    return tuple(_WORD.findall(text))


def tokens(text: str) -> list[str]:
    return list(_tokens(text))


@dataclass(frozen=True)
class PreparedAnswer:
    words: list[str]
    stems: list[str]

    @classmethod
    def of(cls, text: str) -> PreparedAnswer:
        words = tokens(text)
        return cls(words, [stem(w) for w in words])


def _phrase_stems(phrase: str) -> list[str]:
    return [stem(w) for w in tokens(phrase)]


def _negated(stems: list[str], start: int) -> bool:
    window = stems[max(0, start - 3): start]
    return any(w in _NEGATORS for w in window)


def find_phrase(answer: PreparedAnswer, phrase: str, *,
                strict: bool = False) -> tuple[int, int] | None:
    """Span (start, end) of the first un-negated occurrence of ``phrase``, else None.

    Contiguous match on stems first; unless ``strict``, for multi-word phrases all content
    words within a window of twice the phrase length also count (people say "the key gets
    hashed"). Misconceptions are matched strictly: "a stack is last in first out" must not
    read as "a stack is first in first out"."""
    target = _phrase_stems(phrase)
    if not target:
        return None
    n = len(target)
    s = answer.stems
    for i in range(len(s) - n + 1):
        if s[i: i + n] == target and not _negated(s, i):
            return (i, i + n)
    content = [t for t in target if t not in _STOP]
    if not strict and len(target) >= 2 and len(content) >= 2:
        width = 2 * n + 1
        for i, w in enumerate(s):
            if w == content[0] and not _negated(s, i):
                window = s[i: i + width]
                if all(c in window for c in content[1:]):
                    return (i, min(len(s), i + width))
    return None


@dataclass
class PointResult:
    """One assessment point's grade: the one record that flows from the rubric (``grade``)
    through the evaluator's credit and caps (``agents.evaluate.judge``) to the feedback and
    the report (stored as ``agents.state.PointScore``, the same fields by name)."""

    point_id: str
    text: str
    weight: float
    coverage: float  # the credit, 0..1
    concepts_found: list[str] = field(default_factory=list)
    concepts_missing: list[str] = field(default_factory=list)
    # The rubric's answer excerpts that showed it; after ``judge``, the candidate's own words.
    evidence: list[str] = field(default_factory=list)
    misconceptions: list[str] = field(default_factory=list)
    semantic: float | None = None  # the semantic grader's reading of the point, when it ran


class Reason(StrEnum):
    """Why an answer's grade is what it is beyond its points: one set of reasons, from the
    rubric through the caps to the feedback (a ``str``, so records and reports keep the
    text)."""

    none = ""
    empty = "empty answer"
    dont_know = "candidate said they do not know"
    short = "very short answer"
    word_salad = "words with no sentence around them"
    keyword_list = "a list of terms, not explained"
    off_topic = "off-topic"


@dataclass
class Grade:
    score: float
    points: list[PointResult]
    misconceptions: list[str]
    reason: Reason = Reason.none

    @property
    def missing_points(self) -> list[PointResult]:
        return [p for p in self.points if p.coverage < 0.5]


def _excerpt(answer: PreparedAnswer, span: tuple[int, int], pad: int = 4) -> str:
    a, b = span
    return " ".join(answer.words[max(0, a - pad): b + pad])


def _concept_span(answer: PreparedAnswer, concept: Concept) -> tuple[int, int] | None:
    for phrase in concept.phrases:
        span = find_phrase(answer, phrase)
        if span is not None:
            return span
    return None


MISCONCEPTION_POINT_FACTOR = 0.25
MISCONCEPTION_ANSWER_FACTOR = 0.6


def grade(answer_text: str, points: list[AssessmentPoint],
          misconceptions: list[Misconception] | None = None) -> Grade:
    """Weighted coverage of ``points`` by ``answer_text``, in 0..1."""
    answer = PreparedAnswer.of(answer_text)
    content_words = [w for w in answer.words if w not in _STOP]
    if not content_words:
        return Grade(0.0, [PointResult(p.id, p.text, p.weight, 0.0, [],
                                       [c.name for c in p.concepts]) for p in points],
                     [], Reason.empty)
    found_misc: dict[str | None, list[str]] = {}
    for m in misconceptions or []:
        for phrase in m.phrases:
            if find_phrase(answer, phrase, strict=True) is not None:
                found_misc.setdefault(m.point, []).append(m.text)
                break
    results: list[PointResult] = []
    total_weight = sum(p.weight for p in points) or 1.0
    score = 0.0
    for p in points:
        found, missing, evidence = [], [], []
        for c in p.concepts:
            span = _concept_span(answer, c)
            if span is None:
                missing.append(c.name)
            else:
                found.append(c.name)
                evidence.append(_excerpt(answer, span))
        coverage = min(1.0, len(found) / p.needed)
        misc = found_misc.get(p.id, [])
        if misc:
            coverage *= MISCONCEPTION_POINT_FACTOR
        results.append(PointResult(p.id, p.text, p.weight, round(coverage, 3), found, missing,
                                   evidence, misc))
        score += p.weight / total_weight * coverage
    whole = found_misc.get(None, [])
    if whole:
        score *= MISCONCEPTION_ANSWER_FACTOR
    reason = Reason.none
    if says_dont_know(answer_text) and len(content_words) < 12:
        score, reason = min(score, 0.1), Reason.dont_know
    elif len(content_words) < 4:
        score, reason = min(score, 0.3), Reason.short
    all_misc = [m for ms in found_misc.values() for m in ms]
    return Grade(round(max(0.0, min(1.0, score)), 3), results, all_misc, reason)


_SENTENCE = re.compile(r"(?<=[.;!?])\s+|\n+")


def _content_keywords(text: str) -> list[str]:
    seen: dict[str, str] = {}
    for w in tokens(text):
        if w in _STOP or len(w) < 3 and not w.startswith("o("):
            continue
        seen.setdefault(stem(w), w)
    return list(seen.values())


def derive_points(reference_answer: str, max_points: int = 6) -> list[AssessmentPoint]:
    """Assessment points from a reference answer alone: one per sentence (the longest
    ``max_points``), each needing about half of its content keywords."""
    sentences = [s.strip() for s in _SENTENCE.split(reference_answer) if s.strip()]
    scored = [(s, _content_keywords(s)) for s in sentences]
    scored = [(s, kw) for s, kw in scored if kw]
    if not scored:
        kw = _content_keywords(reference_answer) or tokens(reference_answer)[:3] or ["answer"]
        scored = [(reference_answer, kw)]
    scored = sorted(scored, key=lambda x: -len(x[1]))[:max_points]
    total = sum(math.sqrt(len(kw)) for _, kw in scored)
    points: list[AssessmentPoint] = []
    for i, (sentence, kws) in enumerate(scored):
        concepts = [Concept(name=k, phrases=[k]) for k in kws[:12]]
        needed = max(1, min(len(concepts), math.ceil(len(concepts) * 0.4)))
        points.append(AssessmentPoint(
            id=f"p{i + 1}", text=sentence[:300], weight=math.sqrt(len(kws)) / total,
            concepts=concepts, required=needed))
    return points


_CLAUSE = re.compile(r"[^.;!?\n]+[.;!?]?")
MAX_QUOTE_WORDS = 24


def sentences(text: str) -> list[str]:
    """``text`` cut at sentence ends (. ; ! ? and line breaks), each a substring of it."""
    return [s for m in _CLAUSE.finditer(text) if (s := m.group(0).strip())]


def clauses(text: str) -> list[str]:
    """The answer cut into sentences (long ones at commas): each is a substring of ``text``,
    so a quote built from them can be found in the transcript as it was said."""
    out: list[str] = []
    for sentence in sentences(text):
        if len(sentence.split()) <= MAX_QUOTE_WORDS:
            out.append(sentence)
            continue
        out.extend(p.strip() for p in sentence.split(",") if p.strip())
    return out


def quote_for(answer_text: str, excerpt: str) -> str:
    """The clause of ``answer_text`` (verbatim) that best contains a normalised excerpt."""
    want = {stem(w) for w in tokens(excerpt) if w not in _STOP} or {
        stem(w) for w in tokens(excerpt)}
    best, best_hits = "", 0
    for c in clauses(answer_text):
        hits = len(want & {stem(w) for w in tokens(c)})
        if hits > best_hits:
            best, best_hits = c, hits
    return best.rstrip(",;")


def content_words(text: str) -> list[str]:
    return [w for w in tokens(text) if w not in _STOP]


def stopword_share(text: str) -> float:
    words = tokens(text)
    return sum(w in _STOP for w in words) / len(words) if words else 0.0
