"""Piper with the packaged voice; sentence splitting; the speech cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from audio.sentences import split_for_speech
from audio.tts_cache import SpeechCache
from realtime.voice_services import VoiceServices


@pytest.mark.slow
def test_piper_speaks_a_sentence(services: VoiceServices) -> None:
    pcm = services.synthesizer.synthesize("What is a Python generator?")
    seconds = len(pcm) / 2 / services.synthesizer.sample_rate
    assert services.synthesizer.sample_rate == 22050
    assert 1.0 < seconds < 4.0


def test_first_piece_is_short_and_nothing_is_lost() -> None:
    texts = ["You covered the definition of an index and the cost of writes. Good.",
             "Next question: what is DNS?"]
    pieces = split_for_speech(texts)
    assert pieces[0] == "You covered"
    assert " ".join(pieces).split() == " ".join(texts).split()
    assert split_for_speech(["Right, that is it."]) == ["Right, that is it."]
    assert split_for_speech(["Well, indexes speed up reads but slow down writes a bit."])[0] \
        == "Well,"
    assert split_for_speech([" ", ""]) == []


def test_cache_survives_a_restart(tmp_path: Path) -> None:
    cache = SpeechCache("joe-medium", tmp_path)
    assert cache.get("Hello.") is None
    cache.put("Hello.", b"\x01\x02" * 10)
    again = SpeechCache("joe-medium", tmp_path)
    assert again.get("Hello.") == b"\x01\x02" * 10
    assert SpeechCache("other-voice", tmp_path).get("Hello.") is None


def test_memory_cache_is_bounded() -> None:
    cache = SpeechCache("v", None, max_memory_bytes=100)
    for i in range(10):
        cache.put(f"s{i}", bytes(40))
    assert cache.get("s0") is None and cache.get("s9") == bytes(40)
