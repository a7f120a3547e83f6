"""One way to run the project's small ONNX models on CPU: an onnxruntime session with a bounded
thread count, and the WordPiece tokenizer they share, truncating and never padding (each text
or pair runs alone: padding them to one length cost 2-3x the time)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def cpu_session(model: Path, threads: int = 1) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1  # one model run at a time per session; the pool scales
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])


def wordpiece(path: Path, max_len: int) -> Any:
    from tokenizers import Tokenizer

    t = Tokenizer.from_file(str(path))
    t.enable_truncation(max_len)
    t.no_padding()
    return t
