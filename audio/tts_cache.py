"""Synthesized speech kept for reuse: bank-authored questions and feedback repeat across
sessions, so their audio is made once (in memory, and on disk when a folder is given)."""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from pathlib import Path


class SpeechCache:
    def __init__(self, voice: str, directory: Path | None = None,
                 max_memory_bytes: int = 64 * 1024 * 1024):
        self.voice = voice
        self.directory = directory / voice if directory is not None else None
        if self.directory is not None:
            self.directory.mkdir(parents=True, exist_ok=True)
        self.max_memory_bytes = max_memory_bytes
        self._memory: OrderedDict[str, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.voice}\n{text}".encode()).hexdigest()[:32]

    def get(self, text: str) -> bytes | None:
        key = self._key(text)
        with self._lock:
            pcm = self._memory.get(key)
            if pcm is not None:
                self._memory.move_to_end(key)
                self.hits += 1
                return pcm
        if self.directory is not None:
            path = self.directory / f"{key}.pcm"
            if path.is_file():
                pcm = path.read_bytes()
                self._remember(key, pcm)
                self.hits += 1
                return pcm
        self.misses += 1
        return None

    def put(self, text: str, pcm: bytes) -> None:
        key = self._key(text)
        self._remember(key, pcm)
        if self.directory is not None:
            path = self.directory / f"{key}.pcm"
            tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_bytes(pcm)
            tmp.replace(path)  # atomic: a reader never sees half a file

    def _remember(self, key: str, pcm: bytes) -> None:
        with self._lock:
            if key in self._memory:
                return
            self._memory[key] = pcm
            self._size += len(pcm)
            while self._size > self.max_memory_bytes and self._memory:
                _, dropped = self._memory.popitem(last=False)
                self._size -= len(dropped)
