"""The recorder's bookkeeping on a fake clock: what is kept of a turn, when it is handed
over, and how much of an interviewer utterance was heard (barge-in, the next utterance)."""

from __future__ import annotations

import numpy as np

from realtime.recorder import PREROLL_MS, Recording, VoiceRecorder
from realtime.session_clock import SessionClock

FRAME = 480  # 30 ms at 16 kHz


class ListSink:
    def __init__(self) -> None:
        self.got: list[Recording] = []

    def submit(self, recording: Recording) -> None:
        self.got.append(recording)


def recorder() -> tuple[VoiceRecorder, ListSink]:
    sink = ListSink()
    # Session started at wall 1000 s while the monotonic clock read 0: ms == moment * 1000.
    clock = SessionClock(started_ms=1_000_000, clock=lambda: 0.0, wall=lambda: 1000.0)
    return VoiceRecorder("s1", sink, clock), sink


def feed(rec: VoiceRecorder, start_s: float, frames: int, value: int = 100) -> float:
    t = start_s
    for _ in range(frames):
        t += FRAME / 16000
        rec.frame(np.full(FRAME, value, dtype=np.int16), t)
    return t


def test_a_turn_from_onset_to_its_end_is_handed_over_under_its_question() -> None:
    rec, sink = recorder()
    t = feed(rec, 0.0, 30, value=1)  # 0.9 s of room noise before the speech
    rec.speech_started(1, t, onset_ms=90)
    t = feed(rec, t, 50, value=500)
    rec.turn_ended(1, voiced_end_at=t - 0.5, ended_at=t, fallback_turn_id="q-2")
    feed(rec, t, 5)
    assert sink.got == []  # waits for the final transcript to name its question
    rec.label(1, "q-1")
    [got] = sink.got
    assert got.turn_id == "q-1" and got.speaker == "candidate"
    kept_before = (len(got.samples) - 50 * FRAME) / 16
    assert 90 + PREROLL_MS - 30 <= kept_before <= 90 + PREROLL_MS + 30  # onset + pre-roll
    assert got.t_ms == got.marks["speech_start"]
    assert abs(got.marks["turn_end"] - got.t_ms - len(got.samples) / 16) <= 1


def test_a_dropped_turn_is_not_kept_and_an_unlabelled_one_is_not_lost() -> None:
    rec, sink = recorder()
    t = feed(rec, 0.0, 10)
    rec.speech_started(1, t, 90)
    t = feed(rec, t, 3)
    rec.turn_dropped(1)
    rec.speech_started(2, t, 90)
    t = feed(rec, t, 10)
    rec.turn_ended(2, t, t, "q-7")
    rec.close()
    assert [r.turn_id for r in sink.got] == ["q-7"]


def test_interviewer_audio_is_cut_where_the_client_stopped_hearing_it() -> None:
    rec, sink = recorder()
    second = np.full(22050, 7, dtype="<i2").tobytes()  # 1 s at 22.05 kHz
    rec.utterance_started("q-1", 22050, at=10.0)
    rec.piece("Hello there.")
    rec.audio(second)
    rec.piece("What is a heap?")
    rec.audio(second * 2)
    rec.utterance_ended(at=10.2, cut=False)  # all sent at once; it plays for 3 s
    rec.utterance_started("q-2", 22050, at=11.5)  # the next one stops it on the client
    [first] = sink.got
    assert first.cut and abs(len(first.samples) / 22050 - 1.5) < 0.01
    assert [p.text for p in first.pieces] == ["Hello there.", "What is a heap?"]
    assert first.pieces[1].end_sample == len(first.samples)
    rec.audio(second * 3)
    rec.utterance_ended(at=12.0, cut=True)  # barge-in after half a second
    rec.close()
    barged = sink.got[1]
    assert barged.cut and abs(len(barged.samples) / 22050 - 0.5) < 0.01
    assert barged.t_ms == 11_500


def test_an_utterance_played_out_is_kept_whole() -> None:
    rec, sink = recorder()
    rec.utterance_started("q-1", 16000, at=1.0)
    rec.audio(np.zeros(16000, dtype="<i2").tobytes())
    rec.utterance_ended(at=1.1, cut=False)
    feed(rec, 2.5, 1)  # a microphone frame after it finished playing releases it
    [got] = sink.got
    assert not got.cut and len(got.samples) == 16000 and got.t_ms == 1000


def test_a_barge_in_after_everything_was_sent_cuts_what_was_still_playing() -> None:
    rec, sink = recorder()
    rec.utterance_started("q-1", 16000, at=1.0)
    rec.audio(np.zeros(3 * 16000, dtype="<i2").tobytes())  # 3 s, all sent at once
    rec.utterance_ended(at=1.1, cut=False)
    rec.stopped(at=2.0)  # the candidate talks over it a second in
    [got] = sink.got
    assert got.cut and len(got.samples) == 16000
