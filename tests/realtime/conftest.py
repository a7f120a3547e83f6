from __future__ import annotations

import pytest

from realtime.voice_services import VoiceServices
from tests.audio.voice_support import shared_services


@pytest.fixture(scope="session")
def services(tmp_path_factory: pytest.TempPathFactory) -> VoiceServices:
    return shared_services(tmp_path_factory.mktemp("tts-cache"))
