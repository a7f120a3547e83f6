"""Turn-taking on real recorded human speech with a thinking pause inserted mid-sentence
(tests/data/real_speech, see its SOURCES.md): the interviewer waits through the pause and
replies once; a false end is recovered by joining the rest of the answer to it."""

from __future__ import annotations

import asyncio
import time
import wave
from collections.abc import AsyncIterator

import numpy as np
import pytest

from agents.text_normalization import normalize_words, word_errors
from audio.speech_set import REPO_SET, SpeechClip, load_speech_set
from realtime.end_of_turn import TurnTakingSettings
from realtime.ports import AnswerHandler
from realtime.voice_services import VoiceServices
from realtime.voice_session import VoiceSession
from tests.audio.voice_support import RecordingOutbox, stream

pytestmark = pytest.mark.slow

# The first sentence is long, as feedback is: speech that goes on while it plays still
# continues the answer (once it has been heard, speech is a new answer).
REPLY = ["Thank you, that covers the first part of the idea quite well. "
         "Next question: what is a B-tree?"]
PAUSED = {c.name: c for c in load_speech_set(REPO_SET / "paused")}
PLAIN = {c.name: c for c in load_speech_set(REPO_SET / "plain")}


def pcm_of(clip: SpeechClip) -> np.ndarray:
    with wave.open(str(clip.path), "rb") as wav:
        return np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2").copy()


def room(seconds: float, seed: int = 1) -> np.ndarray:
    """A live microphone's near-silence (not digital zeros)."""
    return np.random.default_rng(seed).normal(0, 30, int(16000 * seconds)).astype(np.int16)


def doubled_ngrams(text: str, n: int = 3) -> set[tuple[str, ...]]:
    words = normalize_words(text)
    return {tuple(words[i:i + n]) for i in range(len(words) - 2 * n + 1)
            if words[i:i + n] == words[i + n:i + 2 * n]}


class Interview:
    """Stands in for the interview engine behind the two AnswerHandler ports."""

    def __init__(self) -> None:
        self.answers: list[tuple[str, str]] = []
        self.amended: list[tuple[str, str]] = []

    async def on_final(self, text: str, turn_id: str) -> list[str]:
        self.answers.append((text, turn_id))
        return REPLY

    async def on_amend(self, text: str, turn_id: str) -> list[str]:
        self.amended.append((text, turn_id))
        return REPLY


async def session_with(services: VoiceServices, settings: TurnTakingSettings | None = None,
                       on_prepare: AnswerHandler | None = None,
                       on_final: AnswerHandler | None = None,
                       ) -> tuple[VoiceSession, RecordingOutbox, Interview]:
    outbox, interview = RecordingOutbox(), Interview()
    session = VoiceSession(services=services, outbox=outbox,
                           on_final=on_final or interview.on_final,
                           on_amend=interview.on_amend, on_prepare=on_prepare,
                           turn_taking=settings)
    await session.configure(16000, "pcm_s16le")
    session.set_context(phase="initial", question_text="Tell me about it.", key_terms=[],
                        turn_id="q-1")
    return session, outbox, interview


@pytest.fixture
async def closing() -> AsyncIterator[list[VoiceSession]]:
    sessions: list[VoiceSession] = []
    yield sessions
    for s in sessions:
        await s.aclose()


async def test_a_thinking_pause_is_waited_through(services, closing) -> None:
    clip = PAUSED["ljspeech_LJ001-0004.wav"]  # "produced the block books, [1.2 s] which..."
    session, outbox, interview = await session_with(services)
    closing.append(session)
    await stream(session, room(0.3))
    await stream(session, pcm_of(clip))
    clip_end = time.monotonic()
    await stream(session, room(4.0))
    final = await outbox.wait_for("transcript_final", timeout_s=15)
    await outbox.wait_for("tts_start", timeout_s=15)
    assert len(outbox.events("transcript_final")) == 1 and len(interview.answers) == 1
    started_at = next(t for t, e in outbox.items
                      if isinstance(e, dict) and e["type"] == "tts_start")
    assert started_at > clip_end  # nobody was cut off
    errors, words = word_errors(clip.text, final["text"])
    assert errors / words <= 0.2, final["text"]
    assert 0.9 < final["confidence"] <= 1  # real speech, heard clearly: not flagged
    assert not doubled_ngrams(final["text"]) - doubled_ngrams(clip.text)
    assert interview.amended == []


async def test_speech_after_a_false_end_joins_the_same_answer(services, closing) -> None:
    clip = PAUSED["vctk_p314_272.wav"]  # "That was a bonus, [2.15 s] but it was not..."
    # Impatient on purpose: the 2.15 s pause ends the turn, so the rest comes after a false
    # end of turn, as when the signals get it wrong.
    impatient = TurnTakingSettings(complete_ms=300, think_ms=600)
    session, outbox, interview = await session_with(services, impatient)
    closing.append(session)
    await stream(session, room(0.3))
    await stream(session, pcm_of(clip))
    await stream(session, room(2.5))
    for _ in range(100):
        if interview.amended:
            break
        await asyncio.sleep(0.1)
    finals = outbox.events("transcript_final")
    assert len(interview.answers) == 1 and len(interview.amended) == 1, finals
    (first, turn_id), (whole, amended_turn) = interview.answers[0], interview.amended[0]
    assert turn_id == amended_turn == "q-1"  # the same question, not the next one
    assert len(normalize_words(whole)) > len(normalize_words(first))
    errors, words = word_errors(clip.text, whole)
    assert errors / words <= 0.25, whole
    assert [f.get("amended", False) for f in finals] == [False, True]
    assert finals[-1]["text"] == whole and finals[-1]["turn_id"] == "q-1"
    assert not doubled_ngrams(whole) - doubled_ngrams(clip.text)
    # The reply made for half the answer was never heard in full: held, or cut at once.
    await outbox.wait_for("tts_end", timeout_s=15)
    starts = outbox.events("tts_start")
    assert len(starts) - len(outbox.events("tts_stop")) == 1


def test_a_false_end_over_the_websocket_is_graded_once(redis_url: str, tmp_path) -> None:
    """The real app and engine: the half answer's feedback and next question are taken back,
    the whole answer is graded once against the question it answers."""
    import json

    from tests.realtime.test_voice_ws import receive, types
    from tests.realtime.test_voice_ws import stream as ws_stream
    from tests.server.support import client, create_session, send

    clip = PAUSED["vctk_p314_272.wav"]
    with client(redis_url, tmp_path, turn_think_ms=600,
                turn_complete_ms=300) as c:
        s = create_session(c, mode="voice", max_questions=3)
        auth = {"Authorization": f"Bearer {s['token']}"}
        with c.websocket_connect(f"/ws/sessions/{s['session_id']}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            send(ws, {"type": "audio_config", "sample_rate": 16000, "encoding": "pcm_s16le"})
            got: list = []
            while "tts_end" not in types(got):  # the first question, spoken in full
                got.append(receive(ws))
            ws_stream(ws, np.concatenate([room(0.3), pcm_of(clip), room(3.0)]))
            after: list = []
            while "answer_amended" not in types(after) or "tts_start" not in types(
                    after[types(after).index("answer_amended"):]):
                after.append(receive(ws))
        events = [json.loads(line) for line in c.get(
            f"/api/sessions/{s['session_id']}/events", headers=auth).text.splitlines()]
    question = next(e for e in events if e["type"] == "question")
    [amended] = [e for e in events if e["type"] == "answer_amended"]
    assert amended["turn_id"] == question["turn_id"]
    finals = [e for e in events if e["type"] == "transcript_final"]
    assert {f["turn_id"] for f in finals} == {question["turn_id"]}
    assert [bool(f.get("amended")) for f in finals] == [False, True]
    assert 0.9 < finals[0]["confidence"] <= 1
    assert finals[-1]["text"] == amended["text"]
    errors, words = word_errors(clip.text, amended["text"])
    assert errors / words <= 0.25, amended["text"]
    superseded = set(amended["supersedes"])
    kept = [e for e in events if e["type"] == "feedback" and e["seq"] not in superseded]
    taken_back = [e for e in events if e["type"] == "feedback" and e["seq"] in superseded]
    assert len(kept) == 1 and len(taken_back) == 1  # graded once, the half answer undone
    assert kept[0]["turn_id"] == question["turn_id"] and kept[0]["seq"] > amended["seq"]
    next_questions = [e for e in events if e["type"] == "question"
                      and e["seq"] not in superseded][1:]
    assert len(next_questions) == 1  # one question follows the answer, not two


async def test_a_reply_prepared_in_a_pause_is_dropped_when_speech_resumes(services,
                                                                         closing) -> None:
    clip = PAUSED["ljspeech_LJ001-0004.wav"]  # "produced the block books, [1.2 s] which..."
    prepared: list[str] = []
    dropped: list[str] = []

    async def on_prepare(text: str, turn_id: str) -> list[str]:
        prepared.append(text)
        try:
            await asyncio.sleep(30)  # still grading when the candidate goes on
        except asyncio.CancelledError:
            dropped.append(text)
            raise
        return ["never said"]

    session, outbox, interview = await session_with(services, on_prepare=on_prepare)
    closing.append(session)
    await stream(session, room(0.3))
    await stream(session, pcm_of(clip))
    await stream(session, room(3.5))
    await outbox.wait_for("transcript_final", timeout_s=15)
    assert prepared, "nothing was prepared in the pause"
    # The words before the pause were prepared for, then dropped when speech resumed.
    assert dropped and dropped[0] == prepared[0]
    assert len(normalize_words(prepared[0])) < len(normalize_words(interview.answers[0][0]))
    assert len(interview.answers) == 1 and interview.amended == []


async def test_a_sure_end_is_prepared_from_the_words_of_the_final_transcript(
        services, closing) -> None:
    """A sure verdict's reply is prepared while its short window runs, from the accurate
    decode (the words the answer will have), so it is ready when the turn ends."""
    clip = PLAIN["arctic_a0009.wav"]  # "He turned sharply, and faced Gregson across the table."
    sure = TurnTakingSettings(finished_p=0.0, unsure_p=0.0)  # every fused verdict is sure
    prepared: list[str] = []

    async def on_prepare(text: str, turn_id: str) -> list[str]:
        prepared.append(text)
        return REPLY

    session, outbox, interview = await session_with(services, sure, on_prepare=on_prepare)
    closing.append(session)
    await stream(session, room(0.3))
    await stream(session, pcm_of(clip))
    await stream(session, room(2.0))
    await outbox.wait_for("tts_start", timeout_s=15)
    assert len(interview.answers) == 1
    assert prepared and prepared[-1] == interview.answers[0][0]
    assert session.prepared >= 1


async def test_a_session_closes_at_once_while_an_answer_is_being_graded(services) -> None:
    """Closing (the candidate left) while the engine still grades the answer and a reply is
    being prepared: every stage ends promptly, none is left pending."""
    clip = PLAIN["arctic_a0009.wav"]
    grading = asyncio.Event()

    async def on_final(text: str, turn_id: str) -> list[str]:
        grading.set()
        await asyncio.sleep(60)  # a grading that takes far too long
        return REPLY

    async def on_prepare(text: str, turn_id: str) -> list[str]:
        await asyncio.sleep(60)
        return REPLY

    session, _, _ = await session_with(
        services, TurnTakingSettings(finished_p=0.0, unsure_p=0.0), on_prepare=on_prepare,
        on_final=on_final)
    await stream(session, room(0.3))
    await stream(session, pcm_of(clip))
    await stream(session, room(1.5))
    await asyncio.wait_for(grading.wait(), timeout=15)
    started = time.monotonic()
    await asyncio.wait_for(session.aclose(), timeout=5)
    assert time.monotonic() - started < 2
    pending = [t for t in asyncio.all_tasks()
               if t is not asyncio.current_task() and not t.done()
               and (t.get_name().startswith("voice") or "VoiceSession" in repr(t.get_coro()))]
    assert pending == []
