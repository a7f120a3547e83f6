"""The statistics the benches report: a difference of two graders' r with its interval."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bench.stats import paired_r_difference, pearson


def _answers(n_questions: int, per_question: int, noise_a: float, noise_b: float,
             seed: int) -> tuple[list[float], list[float], list[float], list[str]]:
    rng = np.random.default_rng(seed)
    labels = rng.uniform(0, 1, n_questions * per_question)
    a = labels + rng.normal(0, noise_a, len(labels))
    b = labels + rng.normal(0, noise_b, len(labels))
    groups = [f"q{i // per_question}" for i in range(len(labels))]
    return a.tolist(), b.tolist(), labels.tolist(), groups


def test_a_clearly_better_grader_has_an_interval_above_zero() -> None:
    a, b, labels, groups = _answers(40, 20, 0.1, 0.6, seed=1)
    d = paired_r_difference(a, b, labels, groups, resamples=500)
    assert d["r_difference"] == round(pearson(a, labels) - pearson(b, labels), 3)
    assert 0 < d["ci95_low"] <= d["r_difference"] <= d["ci95_high"]
    assert d["groups"] == 40


def test_two_equal_graders_on_few_questions_have_an_interval_across_zero() -> None:
    a, b, labels, groups = _answers(25, 3, 0.3, 0.3, seed=2)
    d = paired_r_difference(a, b, labels, groups, resamples=500)
    assert d["ci95_low"] < 0 < d["ci95_high"]
    again = paired_r_difference(a, b, labels, groups, resamples=500)
    assert again == d  # seeded: the same figures on every run


def test_voice_set_counts_cut_ins_over_the_goal_pauses_apart() -> None:
    """Cut-ins into 1–2.5 s pauses (the goal) are reported apart from longer pauses."""
    from pathlib import Path

    from audio.speech_set import SpeechClip
    from bench.voice_set import ClipResult, summarize

    def clip(name: str, pause_s: float) -> SpeechClip:
        return SpeechClip(Path(f"{name}.wav"), "It is a heap.", "s", "CC BY 4.0",
                          pauses=[(1.0, pause_s)])

    def result(name: str, cut_in: bool) -> ClipResult:
        return ClipResult(clip=name, said="It is a heap.", heard="It is a heap.", finals=1,
                          amended=0, turn_ids=1, cut_in=cut_in, v2v_ms=900.0, marks=None)

    clips = [clip("a", 1.5), clip("b", 2.4), clip("c", 2.9)]
    results = [result("a.wav", False), result("b.wav", True), result("c.wav", True)]
    summary = summarize(results, clips, 1, "tiny.en", None, Path("set"))
    assert summary["cut_ins"] == 2
    assert summary["goal_pauses"] == 2 and summary["goal_pause_cut_ins"] == 1


def test_voice_set_clip_lines_put_the_live_final_beside_the_offline_decode(
        tmp_path: Path) -> None:
    import json

    from bench.voice_set import ClipResult, write_clip_lines

    results = [ClipResult(clip="a.wav", said="It is a heap.", heard="It is a heap, so",
                          finals=1, amended=0, turn_ids=1, cut_in=False, v2v_ms=700.0,
                          marks={"marks_ms": {"voiced_end": 0, "turn_end": 430,
                                              "first_audio": 470},
                                 "end_of_turn": {"reason": "finished (p=0.91)",
                                                 "wait_ms": 400}}),
               ClipResult(clip="b.wav", said="Use a set.", heard="Use a set.", finals=2,
                          amended=1, turn_ids=1, cut_in=True, v2v_ms=None, marks=None,
                          verdicts=[{"reason": "finished (p=0.95)", "wait_ms": 400},
                                    {"reason": "unsure (p=0.8)", "wait_ms": 2000}])]
    results[0].asked = {"text": "Which structure?", "question_id": "q1"}
    out = tmp_path / "clips.jsonl"
    write_clip_lines(out, results, {"a.wav": "It is a heap."},
                     {("a.wav", "Which structure?"): "It is a hip."})
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["clip"] for x in lines] == ["a.wav", "b.wav"]
    assert lines[0]["live_errors"] == 1 and lines[0]["offline_errors"] == 0
    assert lines[1]["offline"] is None and lines[1]["offline_errors"] is None
    assert lines[0]["asked"] == "Which structure?" and lines[0]["offline_prompted_errors"] == 1
    assert lines[1]["asked"] is None and lines[1]["offline_prompted"] is None
    assert lines[1]["cut_in"] is True and lines[1]["amended"] == 1
    assert lines[0]["turn_end_ms"] == 430 and lines[0]["end_of_turn"]["wait_ms"] == 400
    assert lines[1]["turn_end_ms"] is None and lines[1]["end_of_turn"] is None
    assert [v["wait_ms"] for v in lines[1]["verdicts"]] == [400, 2000]  # the false end first
    assert lines[0]["verdicts"] == []
    # 700 ms voice to voice, 470 of them counted by the server from the end it heard.
    assert lines[0]["heard_end_late_ms"] == 230 and lines[1]["heard_end_late_ms"] is None


def test_the_prompted_offline_decode_uses_the_question_and_only_a_bank_questions_terms(
) -> None:
    from bench.voice_set import live_prompt

    terms = {"q-index": ["index", "B-tree"]}
    bank_question = live_prompt({"text": "What is an index?", "question_id": "q-index"}, terms)
    assert bank_question.context == "What is an index?"
    assert bank_question.hotwords == ("index", "B-tree")
    followup = live_prompt({"text": "And its cost?", "question_id": "q-index-f1"}, terms)
    assert followup.context == "And its cost?" and followup.hotwords == ()
    assert live_prompt({}, terms).context == ""
