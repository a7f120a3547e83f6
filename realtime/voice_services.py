"""Process-wide voice parts, loaded once and shared by every live session."""

from __future__ import annotations

import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from audio.sentences import split_for_speech
from audio.stt_pool import RecognitionPool
from audio.tts import PiperSynthesizer, SpeechSynthesizer
from audio.tts_cache import SpeechCache
from audio.turn_model import SmartTurnModel, TurnCompletionModel
from audio.vad import VoiceActivityDetector, WebRtcVoiceDetector
from audio.whisper_stt import WhisperRecognizer
from realtime.end_of_turn_judge import TextSignal

log = logging.getLogger(__name__)


@dataclass
class VoiceServices:
    pool: RecognitionPool
    synthesizer: SpeechSynthesizer
    cache: SpeechCache
    tts_executor: ThreadPoolExecutor
    stt_name: str
    turn_model: TurnCompletionModel | None = None  # None: the transcript alone decides
    turn_executor: ThreadPoolExecutor | None = None
    text_turn_model: TextSignal | None = None  # None: the audio and the cues decide
    load_s: float = 0.0

    @classmethod
    def load(cls, *, stt_model: str = "tiny.en", stt_workers: int = 2,
             cache_dir: Path | None = None) -> VoiceServices:
        """Load the speech model and the voice (blocking, ≈ 2 s). Never downloads."""
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        started = time.perf_counter()
        workers = max(1, stt_workers)
        # The cores are split between the workers: a tiny model's greedy decode gains little
        # from a second thread, while two decodes side by side (a pause's quick and full
        # decode) finish together in about two thirds of the time of one after the other.
        recognizer = WhisperRecognizer.load(stt_model, cache_dir=cache_dir, workers=workers,
                                            cpu_threads=max(1, (os.cpu_count() or 2) // workers))
        synthesizer = PiperSynthesizer()
        turn_model: TurnCompletionModel | None
        try:
            turn_model = SmartTurnModel(threads=1)
        except Exception as exc:  # the session still works, with less patience in pauses
            log.error("end-of-turn model unavailable (%s); deciding from text and silence",
                      exc)
            turn_model = None
        text_model: TextSignal | None
        try:
            from realtime.text_turn_model import load_text_turn_model
            text_model = load_text_turn_model()
        except Exception as exc:  # the audio model and the transcript cues still decide
            log.error("text end-of-turn model unavailable (%s)", exc)
            text_model = None
        services = cls(
            pool=RecognitionPool(recognizer),
            synthesizer=synthesizer,
            cache=SpeechCache(synthesizer.name, cache_dir),
            # One synthesis at a time: it uses both cores on its own.
            tts_executor=ThreadPoolExecutor(max_workers=1, thread_name_prefix="tts"),
            stt_name=stt_model,
            turn_model=turn_model,
            # Its own thread: ~40 ms a call must not queue behind a Whisper decode.
            turn_executor=ThreadPoolExecutor(max_workers=1, thread_name_prefix="turn"),
            text_turn_model=text_model,
        )
        services.load_s = time.perf_counter() - started
        log.info("voice loaded in %.1f s: stt %s, tts %s", services.load_s, stt_model,
                 synthesizer.name)
        return services

    def new_vad(self) -> VoiceActivityDetector:
        return WebRtcVoiceDetector()

    def status(self) -> dict[str, str]:
        return {"stt": f"ok {self.stt_name}", "tts": f"ok {self.synthesizer.name}",
                "turn": f"ok {self.turn_model.name}" if self.turn_model else "text only",
                "turn_text": "ok" if self.text_turn_model else "cues only"}

    def prewarm(self, texts: list[str]) -> int:
        """Synthesize into the cache every sentence of ``texts`` not there yet (blocking).

        For bank-authored questions and feedback: call it in a thread at startup; with a cache
        folder the work is done once per machine. Returns the number of sentences made.
        """
        made = 0
        for piece in split_for_speech(texts):
            if self.cache.get(piece) is None:
                self.cache.put(piece, self.synthesizer.synthesize(piece))
                made += 1
        return made

    def close(self) -> None:
        self.pool.close()
        self.tts_executor.shutdown(wait=False, cancel_futures=True)
        if self.turn_executor is not None:
            self.turn_executor.shutdown(wait=False, cancel_futures=True)
