"""Loads the process-wide voice services once, lazily, off the event loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from core.tasks import cancel_and_wait
from server.settings import Settings


class VoiceLoader:
    def __init__(self, settings: Settings, prewarm_texts: list[str] | None = None):
        self.settings = settings
        self.prewarm_texts = prewarm_texts or []
        self._task: asyncio.Task[Any] | None = None
        self.error: str | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(asyncio.to_thread(self._load), name="voice-load")

    def _load(self) -> Any:
        from realtime.voice_session import VoiceServices

        services = VoiceServices.load(stt_model=self.settings.stt_model,
                                      stt_workers=self.settings.stt_workers,
                                      cache_dir=self.settings.data_dir / "tts-cache")
        if self.prewarm_texts and self.settings.voice_prewarm and self.settings.env != "test":
            # Bank questions are spoken from the cache: their first audio byte is immediate.
            threading.Thread(target=services.prewarm, args=(self.prewarm_texts,),
                             name="tts-prewarm", daemon=True).start()
        return services

    async def get(self) -> Any:
        self.start()
        assert self._task is not None
        try:
            return await asyncio.shield(self._task)
        except Exception as exc:
            self.error = str(exc)
            raise

    def status(self) -> dict[str, str]:
        if self._task is None:
            return {"stt": "not loaded", "tts": "not loaded"}
        if not self._task.done():
            return {"stt": "loading", "tts": "loading"}
        if self._task.exception() is not None:
            return {"stt": f"error: {self._task.exception()}",
                    "tts": f"error: {self._task.exception()}"}
        status: dict[str, str] = self._task.result().status()
        return status

    async def aclose(self) -> None:
        if self._task is not None and not self._task.done():
            await cancel_and_wait(self._task, context="voice model loader")
