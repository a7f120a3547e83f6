"""Semantic evidence for grading: a small cross-encoder run on CPU with onnxruntime.

The model (``agents/grader_model/``, trained by ``scripts/train_grader.py`` from
all-MiniLM-L6-v2 on public graded short answers) reads a pair (reference text, answer) and
says how well the answer states what the reference states, in 0..1. It reads meaning, so a
paraphrase with no shared keywords still counts, and it was trained with other questions'
answers as negatives, so an answer about something else scores near 0.

Per answer the grader runs one batch: every assessment point (and the reference answer, when
its calibration weighs it) against the whole answer, and every point against each of the
answer's sentences (a point's score is its best reading: in a long spoken answer the sentence
that states it is not drowned by the others). A sentence embedder adds how close the
answer sits to the reference answers once the question's own words are removed from both
("question demoting", Sultan et al. 2016: restating the question is not an answer) and to the
question itself. ``combine`` maps those scores and the rubric's coverage to the final 0..1 with
weights fitted on held-out public questions (``calibration.json``); the relevance gate caps an
answer that neither the model nor the rubric connects to the question.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from agents.grading import content_words, sentences, stem
from agents.relevance import Embedder, default_embedder
from core.onnx_cpu import cpu_session, wordpiece

MODEL_DIR = Path(__file__).resolve().parent / "grader_model"
# Each file is a cross-encoder trained by the same recipe from another seed; a kind of points
# reads the mean probability of the first ``Calibration.models`` of them (the model card: the
# seeds disagree, and their mean reads held-out questions better).
MODEL_FILES: tuple[str, ...] = ("grader.int8.onnx", "grader_seed14.int8.onnx")
MAX_LEN = 256
MAX_WINDOWS = 12  # sentence windows per answer read against each point ...
MAX_WINDOW_PAIRS = 20  # ... and (point, window) pairs per answer: together they bound the time
# A reference the model reads as barely stating its own point (below this) does not define the
# scale: dividing by a tiny score would turn noise into full credit.
SELF_READING_FLOOR = 0.5
MAX_EVIDENCE_CLAUSES = 8  # clauses of an answer read to locate a point said in other words
# A clause quoted for a point should state that point more than the question's others: its
# cosine to the point less this share of its best cosine to another point (bank's labelled
# answers, 300 points: right clause 67.7 % -> 71.7 %; chosen on half the questions, the other
# half gained 0.018 on average over three splits; 0.75 and above were worse than none).
LOCATE_CONTRAST = 0.5


@dataclass(frozen=True)
class Calibration:
    """final = clip(bias + w_rubric·rubric + w_reference·ref + w_points·points
    + w_either·either + w_cos·cos + w_cos_demoted·cos_demoted + w_cos_question·cos_question,
    0, 1), where ``points`` is the weighted mean of the model's per-point scores, ``either``
    the weighted mean, per point, of max(rubric coverage, model score), and the ``cos``
    features the embedder's similarities (see ``SemanticEvidence``)."""

    bias: float = 0.0
    w_rubric: float = 0.5
    w_reference: float = 0.25
    w_points: float = 0.25
    w_either: float = 0.0
    w_cos: float = 0.0
    w_cos_demoted: float = 0.0
    w_cos_question: float = 0.0
    gate: float = 0.12  # relevance below this (and weak rubric) → off-topic
    gate_rubric: float = 0.5  # rubric coverage at or above this is never gated
    off_topic_cap: float = 0.1
    # Points also read against sentence stretches of the answer (see ``sentence_windows``).
    # On for ``derived`` (dev r up, reference-only in-house up); off for the bank's points,
    # whose in-house r did not move while a vague one-liner rose past the 0.3 threshold.
    windows: bool = False
    # Each point's score divided by the model's score for the reference answer itself on that
    # point (read the same way; see ``SemanticGrader.self_reading``): the reference defines
    # full credit, so a full answer in other words reaches it even where the model's raw
    # scale for a short point against a long answer stays low.
    normalise: bool = False
    # When above 0, the model's credit beyond the rubric's (in ``either``) is scaled by
    # min(1, answer content words / (depth · reference content words)), the question's own
    # words not counted on either side: a bank question asks for an explanation, and naming a
    # point in five words is not explaining it (the model credits such answers; the bank's
    # labelled answers do not), nor is restating the question. 0: no scaling.
    depth: float = 0.0
    # How many of the cross-encoder's models (``MODEL_FILES``, in order) read these points,
    # their probabilities averaged; 0: all. The bank's points read one: the live turn waits
    # for them, and the second model did not change the bank's labelled r (model card).
    models: int = 0

    @classmethod
    def of(cls, raw: dict[str, object]) -> Calibration:
        # Each field converted by its declared type (the annotations are strings here).
        kinds: dict[str, Callable[[Any], object]] = {
            f.name: {"bool": bool, "str": str, "int": int}.get(str(f.type), float)
            for f in fields(cls)}
        return cls(**{k: kinds[k](v) for k, v in raw.items() if k in kinds})  # type: ignore[arg-type]

    @property
    def cosines_weighed(self) -> tuple[bool, bool, bool]:
        """Whether (cos, cos_demoted, cos_question) count: each costs an embedding or more per
        answer, so only those that count are computed."""
        return self.w_cos > 0, self.w_cos_demoted > 0, self.w_cos_question > 0

    @property
    def uses_embedder(self) -> bool:
        return any(self.cosines_weighed)


@dataclass(frozen=True)
class Calibrations:
    """One combination per kind of points. ``derived``: points cut from a reference answer
    (``viva grade``, questions outside the bank), fitted on held-out public questions with
    every feature. ``authored``: the bank's points, whose concepts and phrases the rubric
    matches precisely; the model may only add credit the rubric missed (features rubric and
    either, with ``normalise`` and ``depth``), fitted on the bank's labelled answers and scored
    leave-one-question-out (``scripts/train_grader.py calibrate``)."""

    derived: Calibration = Calibration()
    authored: Calibration = Calibration(w_rubric=0.5, w_reference=0.0, w_points=0.0,
                                        w_either=0.5)

    @classmethod
    def load(cls, path: Path) -> Calibrations:
        if not path.exists():
            return cls()
        raw = json.loads(path.read_text())
        return cls(derived=Calibration.of(raw["derived"]),
                   authored=Calibration.of(raw["authored"]))


class CrossEncoder:
    """(text_a, text_b) → P(b states what a states), batched, thread-safe. With several
    sessions (the same recipe trained from other seeds) it returns their mean probability;
    ``first(n)`` is the encoder of the first ``n`` of them."""

    def __init__(self, sessions: Sequence[object], tokenizer: object,
                 lock: threading.Lock | None = None):
        if not sessions:
            raise ValueError("a cross-encoder needs at least one model session")
        self._sessions = tuple(sessions)
        self._tokenizer = tokenizer
        self._lock = lock or threading.Lock()  # shared with its views: one tokenizer
        self._views: dict[int, CrossEncoder] = {}

    @classmethod
    def load(cls, model_dir: Path = MODEL_DIR, threads: int = 1,
             files: Sequence[str] = MODEL_FILES) -> CrossEncoder:
        return cls([cpu_session(model_dir / f, threads) for f in files],
                   wordpiece(model_dir / "tokenizer.json", MAX_LEN))

    @property
    def models(self) -> int:
        return len(self._sessions)

    def first(self, models: int) -> CrossEncoder:
        """The encoder that reads the mean of the first ``models`` models (0: all). One
        object per count, so the readings cached per encoder (``_self_point``) stay cached."""
        if models <= 0 or models >= len(self._sessions):
            return self
        with self._lock:
            view = self._views.get(models)
            if view is None:
                view = CrossEncoder(self._sessions[:models], self._tokenizer, self._lock)
                self._views[models] = view
        return view

    def score(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        if not pairs:
            return np.zeros(0, dtype=np.float32)
        sessions = self._sessions
        with self._lock:
            encs = self._tokenizer.encode_batch(pairs)  # type: ignore[attr-defined]
        logits = np.empty((len(sessions), len(encs)), dtype=np.float64)
        # One run per pair: pairs differ a lot in length (a short point, a long reference),
        # and padding them to one length cost 2-3x the time of running them apart.
        for i, e in enumerate(encs):
            feed = {"input_ids": np.array([e.ids], dtype=np.int64),
                    "attention_mask": np.array([e.attention_mask], dtype=np.int64),
                    "token_type_ids": np.array([e.type_ids], dtype=np.int64)}
            for m, session in enumerate(sessions):
                out = session.run(None, feed)[0]  # type: ignore[attr-defined]
                logits[m, i] = float(np.asarray(out).reshape(-1)[0])
        return (1.0 / (1.0 + np.exp(-logits))).mean(axis=0)


@dataclass(frozen=True)
class SemanticEvidence:
    reference: float  # the reference answer vs the answer; -1 when there is no reference
    points: list[float]  # each assessment point vs the answer (its best sentence window)
    # The embedder's cosine of the answer with the nearest reference answer; the same with
    # the question's words taken out of both; and with the question. 0 without an embedder.
    cos: float = 0.0
    cos_demoted: float = 0.0
    cos_question: float = 0.0
    # The answer's content words over the reference answer's, the question's own words left
    # out of both (``explained_words``; 1 without a reference).
    length_ratio: float = 1.0

    @property
    def relevance(self) -> float:
        return max([self.reference, *self.points])

    def points_mean(self, weights: list[float]) -> float:
        total = sum(weights) or 1.0
        return sum(w * s for w, s in zip(weights, self.points, strict=True)) / total


def sentence_windows(answer: str, limit: int = MAX_WINDOWS) -> list[str]:
    """The answer's sentences, when it has two or more: a point said in one sentence of a long
    spoken answer is read there, not diluted by the rest (the model gave a point 0.71 on the
    sentence that states it, 0.27 on the whole answer around it, 0.18 on that sentence paired
    with a neighbour). A very long answer is cut into at most ``limit`` stretches."""
    said = sentences(answer)
    if len(said) <= 1:
        return []
    size = -(-len(said) // limit)
    return [" ".join(said[i:i + size]) for i in range(0, len(said), size)]


def depth_factor(ev: SemanticEvidence, depth: float) -> float:
    """How much of the model's extra credit counts: min(1, length ratio / depth); all of it
    when ``depth`` is 0."""
    return min(1.0, ev.length_ratio / depth) if depth > 0 else 1.0


def credit(coverage: float, score: float, factor: float) -> float:
    """A point's credit: the rubric's coverage, or the model's score where higher, its excess
    counted at ``factor`` (max(coverage, score) at 1)."""
    return max(coverage, score) if factor >= 1.0 else coverage + max(0.0, score - coverage) * factor


def question_stems(question: str | None) -> set[str]:
    return {stem(w) for w in content_words(question or "")}


def _demoted_words(text: str, question_stems: set[str]) -> list[str]:
    return [w for w in content_words(text) if stem(w) not in question_stems]


def demoted(text: str, question_stems: set[str]) -> str:
    """``text``'s content words without the question's (stemmed) words."""
    return " ".join(_demoted_words(text, question_stems))


def explained_words(text: str, question_stems: set[str]) -> int:
    """How much ``text`` says beyond restating the question: its content words that are not
    the question's (what ``depth`` compares; repeating the question explains nothing)."""
    return len(_demoted_words(text, question_stems))


class SemanticGrader:
    """The cross-encoder, the sentence embedder and their calibration, loaded once per
    process."""

    def __init__(self, encoder: CrossEncoder, calibrations: Calibrations,
                 embedder: Embedder | None = None):
        self.encoder = encoder  # each kind of points reads ``first(its models)`` of it
        self.calibrations = calibrations
        self.embedder = embedder

    def calibration(self, authored: bool) -> Calibration:
        return self.calibrations.authored if authored else self.calibrations.derived

    def evidence(self, answer: str, reference: str | None, point_texts: list[str], *,
                 authored: bool | None = None, question: str | None = None,
                 alternatives: tuple[str, ...] = (),
                 windows: bool | None = None,
                 normalise: bool | None = None,
                 models: int | None = None,
                 reference_share: float = 1.0) -> SemanticEvidence:
        """The model's scores for each point (and the reference answers) against the answer,
        and the embedder's similarities. With ``authored`` given, the reference pairs and the
        embedder run only if that calibration weighs them (the reference is the longest pair:
        skipping it saves a third of the time), and sentence windows as it says (``windows``
        overrides). ``alternatives`` are further acceptable reference answers: the nearest
        one counts. ``normalise`` overrides the calibration's choice of dividing each point's
        score by the reference answer's own (``reference`` only), and ``models`` its count of
        the encoder's models (0: all). ``reference_share`` is the
        part of the reference the points stand for (its length is scaled by it)."""
        references = [r for r in (reference, *alternatives) if r]
        calibration = self.calibration(authored) if authored is not None else None
        scored = references if calibration is None or calibration.w_reference > 0 else []
        if windows is None:
            windows = calibration.windows if calibration is not None else True
        if normalise is None:
            normalise = calibration.normalise if calibration is not None else False
        if models is None:
            models = calibration.models if calibration is not None else 0
        encoder = self.encoder.first(models)
        points, refs = _readings(encoder, point_texts, answer, scored, windows)
        if normalise and reference and point_texts:
            full = self.self_reading(encoder, tuple(point_texts), reference, windows)
            points = [min(1.0, p / max(f, SELF_READING_FLOOR))
                      for p, f in zip(points, full, strict=True)]
        cos = cos_demoted = cos_question = 0.0
        q_stems = question_stems(question)
        if self.embedder is not None and (calibration is None or calibration.uses_embedder):
            cos, cos_demoted, cos_question = self._similarities(
                answer, references, question, q_stems,
                # All of them when fitting a calibration (none given).
                weighed=None if calibration is None else calibration.cosines_weighed)
        return SemanticEvidence(
            reference=max(refs) if refs else -1.0,
            points=points, cos=cos, cos_demoted=cos_demoted,
            cos_question=cos_question,
            length_ratio=explained_words(answer, q_stems) / max(
                1.0, reference_share * explained_words(reference, q_stems)) if reference else 1.0)

    @staticmethod
    def self_reading(encoder: CrossEncoder, point_texts: tuple[str, ...], reference: str,
                     windows: bool) -> tuple[float, ...]:
        """The model's score for each point against the reference answer itself, read as an
        answer is: the same for every answer to a question, so computed once per point (a
        follow-up's points share their parent's)."""
        return tuple(_self_point(encoder, t, reference, windows) for t in point_texts)

    def prepare(self, reference: str, point_texts: list[str]) -> None:
        """Compute the bank's self readings now (at start-up), not on a question's first
        answer."""
        c = self.calibrations.authored
        if c.normalise and reference and point_texts:
            self.self_reading(self.encoder.first(c.models), tuple(point_texts), reference,
                              c.windows)

    def _similarities(self, answer: str, references: list[str], question: str | None,
                      q_stems: set[str], weighed: tuple[bool, bool, bool] | None = None,
                      ) -> tuple[float, float, float]:
        """(cos, cos_demoted, cos_question); with ``weighed``, those it marks False are 0."""
        assert self.embedder is not None
        plain, by_demoted, by_question = weighed or (True, True, True)
        embed = self.embedder.embed
        a = embed(answer) if plain or (by_question and question) else None
        cos = cos_demoted = cos_question = 0.0
        if plain and a is not None:
            cos = max((float(embed(r) @ a) for r in references), default=0.0)
        a_demoted = demoted(answer, q_stems) if by_demoted else ""
        if a_demoted:
            ad = embed(a_demoted)
            cos_demoted = max((float(embed(d) @ ad) for d in
                               (demoted(r, q_stems) for r in references) if d), default=0.0)
        if by_question and question and a is not None:
            cos_question = float(embed(question) @ a)
        return cos, cos_demoted, cos_question

    FEATURES = ("w_rubric", "w_reference", "w_points", "w_either", "w_cos", "w_cos_demoted",
                "w_cos_question")

    @staticmethod
    def features(rubric: float, point_coverage: list[float], ev: SemanticEvidence,
                 weights: list[float], depth: float = 0.0) -> list[float]:
        """[rubric, reference, points, either, cos, cos_demoted, cos_question]: what the
        calibration weighs (in the order of ``FEATURES``); ``depth`` as in ``Calibration``."""
        total = sum(weights) or 1.0
        factor = depth_factor(ev, depth)
        either = sum(w * credit(c, s, factor) for w, c, s in
                     zip(weights, point_coverage, ev.points, strict=True)) / total
        points = ev.points_mean(weights)
        ref = ev.reference if ev.reference >= 0 else points
        return [rubric, ref, points, either, ev.cos, ev.cos_demoted, ev.cos_question]

    def combine(self, rubric: float, point_coverage: list[float], ev: SemanticEvidence,
                weights: list[float], *, authored: bool) -> float:
        c = self.calibration(authored)
        f = self.features(rubric, point_coverage, ev, weights, c.depth)
        value = c.bias + sum(getattr(c, name) * x
                             for name, x in zip(self.FEATURES, f, strict=True))
        return float(min(1.0, max(0.0, value)))

    def point_credit(self, coverage: float, score: float, ev: SemanticEvidence, *,
                     authored: bool) -> float:
        """One point's credit as ``either`` counts it: the rubric's coverage, or the model's
        score when higher, its excess scaled by ``depth`` as in ``features``."""
        return credit(coverage, score, depth_factor(ev, self.calibration(authored).depth))

    def locate(self, point: str, candidates: list[str], *, authored: bool,
               others: Sequence[str] = ()) -> str:
        """The candidate's clause that states ``point``, for a point the model credited in
        words the rubric's phrases do not match: what its credit is shown to rest on.

        Read by the embedder (cosine of point and clause; trained on paraphrase pairs, it reads
        short clauses better than the cross-encoder, which was trained on whole answers), else
        by the cross-encoder. On the bank's labelled answers, with the clause the rubric cites
        as the answer key (``viva bench grading``: ``evidence_location``), the embedder picked
        the right clause 68 % of the time (72 % with the contrast below), the cross-encoder
        64 %; asking both and quoting the clause they rank higher together reached 69 % at a
        quarter more grading time.

        With the embedder, ``others`` (the question's other points) are contrasted: a clause
        that states another point better is less likely this one's (``LOCATE_CONTRAST``)."""
        candidates = candidates[:MAX_EVIDENCE_CLAUSES]
        if len(candidates) <= 1:
            return candidates[0] if candidates else ""
        if self.embedder is None:
            scores = self.encoder.first(self.calibration(authored).models).score(
                [(point, c) for c in candidates])
        else:
            vectors = self.embedder.embed_many([point, *others, *candidates])
            points, said = np.array(vectors[:1 + len(others)]), np.array(vectors[1 + len(others):])
            cosines = points @ said.T
            scores = cosines[0]
            if len(others):
                scores = scores - LOCATE_CONTRAST * cosines[1:].max(axis=0)
        return candidates[int(scores.argmax())]

    def off_topic(self, rubric: float, ev: SemanticEvidence, *, authored: bool) -> bool:
        c = self.calibration(authored)
        return ev.relevance < c.gate and rubric < c.gate_rubric


@lru_cache(maxsize=4096)
def _self_point(encoder: CrossEncoder, point: str, reference: str, windows: bool) -> float:
    return _readings(encoder, [point], reference, [], windows)[0][0]


def _readings(encoder: CrossEncoder, point_texts: list[str], answer: str, references: list[str],
              windows: bool) -> tuple[list[float], list[float]]:
    """One batch: each point's best reading (the whole answer or, with ``windows``, one
    stretch of it) and each reference against the whole answer."""
    stretches = sentence_windows(answer, min(MAX_WINDOWS, max(
        2, MAX_WINDOW_PAIRS // max(1, len(point_texts))))) if point_texts and windows else []
    s = encoder.score([(t, answer) for t in point_texts] + [(r, answer) for r in references]
                      + [(t, w) for t in point_texts for w in stretches]).tolist()
    n = len(point_texts)
    points = s[:n]
    if stretches:
        by_window = np.array(s[n + len(references):]).reshape(n, len(stretches)).max(axis=1)
        points = [max(a, float(b)) for a, b in zip(points, by_window, strict=True)]
    return points, s[n:n + len(references)]


def model_available(model_dir: Path = MODEL_DIR) -> bool:
    return (all((model_dir / f).exists() for f in MODEL_FILES)
            and (model_dir / "tokenizer.json").exists())


@lru_cache(maxsize=1)
def default_grader() -> SemanticGrader | None:
    """The committed grader, or None when its files are absent (the rubric then grades
    alone) or ``VIVA_SEMANTIC_GRADER=off``."""
    if os.environ.get("VIVA_SEMANTIC_GRADER", "on").lower() in ("off", "0", "false"):
        return None
    if not model_available():
        return None
    threads = int(os.environ.get("VIVA_GRADER_THREADS", "1"))
    calibrations = Calibrations.load(MODEL_DIR / "calibration.json")
    return SemanticGrader(CrossEncoder.load(MODEL_DIR, threads), calibrations,
                          default_embedder())
