"""Semantic evidence for grading: a small cross-encoder run on CPU with onnxruntime.

The model (``agents/grader_model/``, trained by ``scripts/train_grader.py`` from
all-MiniLM-L6-v2 on public graded short answers) reads a pair (reference text, answer) and
says how well the answer states what the reference states, in 0..1. It reads meaning, so a
paraphrase with no shared keywords still counts, and it was trained with other questions'
answers as negatives, so an answer about something else scores near 0.

Per answer the grader runs one batch: the reference answer and every assessment point against
the whole answer. ``combine`` maps those scores and the rubric's coverage to the final 0..1 with
weights fitted on held-out public questions (``calibration.json``); the relevance gate caps an
answer that neither the model nor the rubric connects to the question.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

MODEL_DIR = Path(__file__).resolve().parent / "grader_model"
MODEL_FILE = "grader.int8.onnx"
MAX_LEN = 256


@dataclass(frozen=True)
class Calibration:
    """final = clip(bias + w_rubric·rubric + w_reference·ref + w_points·points
    + w_either·either, 0, 1), where ``points`` is the weighted mean of the model's per-point
    scores and ``either`` the weighted mean, per point, of max(rubric coverage, model score)."""

    bias: float = 0.0
    w_rubric: float = 0.5
    w_reference: float = 0.25
    w_points: float = 0.25
    w_either: float = 0.0
    gate: float = 0.12  # relevance below this (and weak rubric) → off-topic
    gate_rubric: float = 0.5  # rubric coverage at or above this is never gated
    off_topic_cap: float = 0.1

    @classmethod
    def of(cls, raw: dict[str, object]) -> Calibration:
        names = set(cls.__dataclass_fields__)
        return cls(**{k: float(str(v)) for k, v in raw.items() if k in names})


@dataclass(frozen=True)
class Calibrations:
    """One combination per kind of points. ``derived``: points cut from a reference answer
    (``viva grade``, questions outside the bank), fitted on held-out public questions with
    every feature. ``authored``: the bank's points, whose concepts and phrases the rubric
    matches precisely; the model may only add credit the rubric missed (features rubric and
    either), fitted on the same held-out questions."""

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
    """(text_a, text_b) → P(b states what a states), batched, thread-safe."""

    def __init__(self, session: object, tokenizer: object):
        self._session = session
        self._tokenizer = tokenizer
        self._lock = threading.Lock()

    @classmethod
    def load(cls, model_dir: Path = MODEL_DIR, threads: int = 1) -> CrossEncoder:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        session = ort.InferenceSession(str(model_dir / MODEL_FILE), options,
                                       providers=["CPUExecutionProvider"])
        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        tokenizer.enable_truncation(MAX_LEN)
        tokenizer.no_padding()
        return cls(session, tokenizer)

    def score(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        if not pairs:
            return np.zeros(0, dtype=np.float32)
        with self._lock:
            encs = self._tokenizer.encode_batch(pairs)  # type: ignore[attr-defined]
        logits = np.empty(len(encs), dtype=np.float64)
        # One run per pair: pairs differ a lot in length (a short point, a long reference),
        # and padding them to one length cost 2-3x the time of running them apart.
        for i, e in enumerate(encs):
            feed = {"input_ids": np.array([e.ids], dtype=np.int64),
                    "attention_mask": np.array([e.attention_mask], dtype=np.int64),
                    "token_type_ids": np.array([e.type_ids], dtype=np.int64)}
            out = self._session.run(None, feed)[0]  # type: ignore[attr-defined]
            logits[i] = float(np.asarray(out).reshape(-1)[0])
        return 1.0 / (1.0 + np.exp(-logits))


@dataclass(frozen=True)
class SemanticEvidence:
    reference: float  # the reference answer vs the answer; -1 when there is no reference
    points: list[float]  # each assessment point vs the answer

    @property
    def relevance(self) -> float:
        return max([self.reference, *self.points])

    def points_mean(self, weights: list[float]) -> float:
        total = sum(weights) or 1.0
        return sum(w * s for w, s in zip(weights, self.points, strict=True)) / total


class SemanticGrader:
    """The cross-encoder plus its calibration, loaded once per process."""

    def __init__(self, encoder: CrossEncoder, calibrations: Calibrations):
        self.encoder = encoder
        self.calibrations = calibrations

    def calibration(self, authored: bool) -> Calibration:
        return self.calibrations.authored if authored else self.calibrations.derived

    def evidence(self, answer: str, reference: str | None, point_texts: list[str], *,
                 authored: bool | None = None) -> SemanticEvidence:
        """The model's scores for each point (and the reference) against the answer. With
        ``authored`` given, the reference pair runs only if that calibration weighs it (it
        is the longest pair: skipping it saves a third of the time)."""
        if authored is not None and self.calibration(authored).w_reference <= 0:
            reference = None
        pairs = [(t, answer) for t in point_texts]
        if reference:
            pairs.append((reference, answer))
        s = self.encoder.score(pairs).tolist()
        return SemanticEvidence(reference=s[-1] if reference else -1.0,
                                points=s[: len(point_texts)])

    @staticmethod
    def features(rubric: float, point_coverage: list[float], ev: SemanticEvidence,
                 weights: list[float]) -> list[float]:
        """[rubric, reference, points, either]: what the calibration weighs."""
        total = sum(weights) or 1.0
        either = sum(w * max(c, s) for w, c, s in
                     zip(weights, point_coverage, ev.points, strict=True)) / total
        points = ev.points_mean(weights)
        ref = ev.reference if ev.reference >= 0 else points
        return [rubric, ref, points, either]

    def combine(self, rubric: float, point_coverage: list[float], ev: SemanticEvidence,
                weights: list[float], *, authored: bool) -> float:
        c = self.calibration(authored)
        f = self.features(rubric, point_coverage, ev, weights)
        value = (c.bias + c.w_rubric * f[0] + c.w_reference * f[1] + c.w_points * f[2]
                 + c.w_either * f[3])
        return float(min(1.0, max(0.0, value)))

    def off_topic(self, rubric: float, ev: SemanticEvidence, *, authored: bool) -> bool:
        c = self.calibration(authored)
        return ev.relevance < c.gate and rubric < c.gate_rubric


def model_available(model_dir: Path = MODEL_DIR) -> bool:
    return (model_dir / MODEL_FILE).exists() and (model_dir / "tokenizer.json").exists()


@lru_cache(maxsize=1)
def default_grader() -> SemanticGrader | None:
    """The committed grader, or None when its files are absent (the rubric then grades
    alone) or ``VIVA_SEMANTIC_GRADER=off``."""
    if os.environ.get("VIVA_SEMANTIC_GRADER", "on").lower() in ("off", "0", "false"):
        return None
    if not model_available():
        return None
    threads = int(os.environ.get("VIVA_GRADER_THREADS", "1"))
    return SemanticGrader(CrossEncoder.load(MODEL_DIR, threads),
                          Calibrations.load(MODEL_DIR / "calibration.json"))
