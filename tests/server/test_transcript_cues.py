"""The WebVTT a session exports tells what happened when: one cue per interviewer utterance,
a typed answer at the moment it was sent (also in a spoken interview), a reply taken back by
an answer that went on after a pause marked as such, a cut utterance marked cut, and the
report's answer moments on the start of each answer. Timelines shaped as the server records
them (events with seq/t_ms, recordings with their segments)."""

from __future__ import annotations

from typing import Any

from server.recording import webvtt
from server.report_view import answer_starts
from store.recordings import RecordingEntry, Segment
from tests.server.test_recorded_session import cues


def clip(turn: str, speaker: str, t_ms: int, duration_ms: int, *, cut: bool = False,
         segments: list[tuple[str, int, int]] = ()) -> RecordingEntry:  # type: ignore[assignment]
    return RecordingEntry(turn_id=turn, speaker=speaker, t_ms=t_ms,  # type: ignore[arg-type]
                          duration_ms=duration_ms, file=f"{turn}-{t_ms}.ogg",
                          content_type="audio/ogg", sample_rate=22050, cut=cut,
                          segments=[Segment(text=t, start_ms=a, end_ms=b)
                                    for t, a, b in segments])


def timeline() -> tuple[list[dict[str, Any]], list[RecordingEntry]]:
    """Q1 spoken; a spoken answer that ends too early (its reply taken back when the candidate
    goes on); the whole answer; feedback and Q2 as one utterance the candidate cuts into;
    then a typed answer to Q2 long after."""
    events = [
        {"seq": 1, "t_ms": 0, "type": "question", "text": "What is a stack?", "turn_id": "t1",
         "question_id": "q1", "phase": "initial"},
        {"seq": 2, "t_ms": 0, "type": "tts_start", "turn_id": "t1", "sample_rate": 22050},
        {"seq": 3, "t_ms": 9000, "type": "transcript_final", "text": "A stack is",
         "turn_id": "t1", "confidence": 0.97},
        {"seq": 4, "t_ms": 9300, "type": "feedback", "kind": "correction", "text": "Noted.",
         "turn_id": "t1", "score": 0.1},
        {"seq": 5, "t_ms": 9300, "type": "question", "text": "Next: what is a heap?",
         "turn_id": "t2", "question_id": "q2", "phase": "initial"},
        {"seq": 6, "t_ms": 9400, "type": "tts_start", "turn_id": "t2", "sample_rate": 22050},
        {"seq": 7, "t_ms": 12500, "type": "transcript_final",
         "text": "A stack is last in, first out.", "turn_id": "t1", "amended": True},
        {"seq": 8, "t_ms": 12600, "type": "answer_amended", "turn_id": "t1",
         "text": "A stack is last in, first out.", "supersedes": [4, 5]},
        {"seq": 9, "t_ms": 13000, "type": "feedback", "kind": "comment",
         "text": "Good, that covers it.", "turn_id": "t1", "score": 0.9},
        {"seq": 10, "t_ms": 13000, "type": "question", "text": "What is a heap?",
         "turn_id": "t3", "question_id": "q2", "phase": "initial"},
        {"seq": 11, "t_ms": 13100, "type": "tts_start", "turn_id": "t3", "sample_rate": 22050},
        {"seq": 12, "t_ms": 45000, "type": "transcript_final",
         "text": "A heap is a tree kept in an array.", "turn_id": "t3"},
    ]
    recordings = [
        clip("t1", "interviewer", 0, 1500, segments=[("What is a stack?", 0, 1400)]),
        clip("t1", "candidate", 5000, 3800),
        clip("t2", "interviewer", 9400, 700, cut=True,
             segments=[("Noted.", 0, 500), ("Next: what is a heap?", 800, 2400)]),
        clip("t1", "candidate", 10000, 2300),
        clip("t3", "interviewer", 13100, 3000,
             segments=[("Good,", 0, 400), ("that covers it.", 400, 1300),
                       ("What is a heap?", 1500, 2900)]),
    ]
    return events, recordings


def test_one_cue_per_utterance_with_taken_back_cut_and_typed_marked() -> None:
    events, recordings = timeline()
    vtt = webvtt(events, recordings)
    parsed = cues(vtt)
    said = [(voice, text) for _, _, voice, text in parsed]
    assert said == [
        ("Interviewer", "What is a stack?"),
        ("Candidate", "A stack is last in, first out."),  # the half answer, made whole
        ("Interviewer", "<c.superseded><c.cut>Noted.</c> [cut off]</c> [answer continued]"),
        ("Interviewer", "Good, that covers it. What is a heap?"),  # one utterance, one line
        ("Candidate", "<c.typed>A heap is a tree kept in an array.</c>"),
    ]
    begin = {text: (a, b) for a, b, _, text in parsed}
    # The whole answer begins where its first part began; the typed one when it was sent.
    assert begin["A stack is last in, first out."] == (5000, 12300)
    assert begin["<c.typed>A heap is a tree kept in an array.</c>"][0] == 45000
    # What was cut keeps only the words heard before the cut.
    assert "Next: what is a heap?" not in vtt.split("Noted.")[1].split("\n\n")[0]


def test_a_typed_answer_is_not_put_on_an_earlier_recording_of_its_turn() -> None:
    """A typed answer long after a spoken remark of the same turn stays at its own moment,
    and the spoken remark keeps its own cue."""
    events = [
        {"seq": 1, "t_ms": 0, "type": "question", "text": "Solve it.", "turn_id": "c1",
         "question_id": "p", "phase": "coding"},
        {"seq": 2, "t_ms": 46000, "type": "transcript_final", "text": "Let me think aloud.",
         "turn_id": "c1", "confidence": 0.95},
        {"seq": 3, "t_ms": 170000, "type": "transcript_final", "text": "I used a hash map.",
         "turn_id": "c1"},
    ]
    recordings = [clip("c1", "interviewer", 0, 900, segments=[("Solve it.", 0, 800)]),
                  clip("c1", "candidate", 43000, 2500)]
    parsed = cues(webvtt(events, recordings))
    assert [(a, text) for a, _, voice, text in parsed if voice == "Candidate"] == [
        (43000, "Let me think aloud."), (170000, "<c.typed>I used a hash map.</c>")]


def test_answer_moments_are_where_each_answer_begins() -> None:
    events, recordings = timeline()
    assert answer_starts(events, recordings) == {"t1": 5000, "t3": 45000}


def test_a_text_interview_joins_what_is_said_at_once() -> None:
    events = [
        {"seq": 1, "t_ms": 100, "type": "question", "text": "Q one?", "turn_id": "a"},
        {"seq": 2, "t_ms": 4000, "type": "transcript_final", "text": "Answer.", "turn_id": "a"},
        {"seq": 3, "t_ms": 4100, "type": "feedback", "kind": "comment", "text": "Fine."},
        {"seq": 4, "t_ms": 4110, "type": "question", "text": "Q two?", "turn_id": "b"},
    ]
    assert [(a, v, t) for a, _, v, t in cues(webvtt(events))] == [
        (100, "Interviewer", "Q one?"), (4000, "Candidate", "Answer."),
        (4100, "Interviewer", "Fine. Q two?")]
