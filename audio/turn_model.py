"""Learned end-of-turn signal: does the audio so far sound like a finished turn?

Smart Turn v3.2 (pipecat-ai, BSD-2-Clause) is a Whisper-tiny encoder with a classifier head,
int8 ONNX, 8.7 MB, shipped inside the ``pipecat-ai`` wheel. It hears intonation and rhythm:
a sentence cut at a thinking pause mostly sounds unfinished, a finished one finished. It is
one signal among several (see ``realtime/end_of_turn.py``), never the sole judge.

The wheel is installed with ``--no-deps``: only the model file and its numpy mel front-end
are used, loaded by path so that importing ``pipecat`` (and its dependency tree) never
happens.
"""

from __future__ import annotations

import importlib.util
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import cast

import numpy as np

from audio.model_files import ModelNotInstalled, _package_dir
from audio.pcm import STT_RATE
from core.onnx_cpu import cpu_session

WINDOW_S = 8  # the model hears the last 8 s, left-padded with zeros


class TurnCompletionModel(ABC):
    """P(the speaker has finished their turn) from the audio up to now. Blocking."""

    name: str

    @abstractmethod
    def probability(self, audio: np.ndarray) -> float:
        """``audio``: float32 mono 16 kHz, ending at the moment of the decision."""


def _smart_turn_dir() -> Path:
    root = _package_dir("pipecat", "pipecat-ai==1.14.0 --no-deps")
    folder = root / "audio" / "turn" / "smart_turn"
    if not (folder / "data" / "smart-turn-v3.2-cpu.onnx").is_file():
        raise ModelNotInstalled(f"no smart-turn-v3.2-cpu.onnx under {folder}; "
                                "pip install --no-deps pipecat-ai==1.14.0")
    return folder


def _load_features(folder: Path) -> Callable[..., np.ndarray]:
    spec = importlib.util.spec_from_file_location("viva_smart_turn_features",
                                                  folder / "_whisper_features.py")
    if spec is None or spec.loader is None:
        raise ModelNotInstalled(f"cannot load the mel front-end in {folder}")
    module: ModuleType = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return cast(Callable[..., np.ndarray], module.compute_whisper_log_mel_features)


class SmartTurnModel(TurnCompletionModel):
    name = "smart-turn-v3.2"

    def __init__(self, threads: int = 1):
        folder = _smart_turn_dir()
        self._features = _load_features(folder)
        self._session = cpu_session(folder / "data" / "smart-turn-v3.2-cpu.onnx", threads)
        self._lock = threading.Lock()  # one run at a time: it is ~40 ms on one core
        self.last_ms = 0.0

    def probability(self, audio: np.ndarray) -> float:
        started = time.perf_counter()
        window = WINDOW_S * STT_RATE
        x = np.asarray(audio, dtype=np.float32)[-window:]
        if len(x) < window:
            x = np.pad(x, (window - len(x), 0))
        features = self._features(x, do_normalize=True)[None].astype(np.float32)
        with self._lock:
            out = self._session.run(None, {"input_features": features})
        self.last_ms = (time.perf_counter() - started) * 1000
        return float(np.asarray(out[0]).reshape(-1)[0])
