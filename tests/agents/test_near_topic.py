"""Near-topic answers (issue 24, item 1): an answer that fits another bank question better
than the asked one is capped, whatever vocabulary the two share; a right answer is not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.evaluate import OFF_TOPIC_CAP, EvaluateAgent, Judgement
from agents.knowledge import KnowledgeAgent
from agents.providers.rubric import RubricProvider
from agents.question_bank import load_question_bank
from agents.relevance import OPEN_CONTRAST_BY, OPEN_TOPICS, RelevanceGate, default_embedder
from agents.semantic import default_grader
from bench.grading import near_topic_pairs

ROOT = Path(__file__).resolve().parent.parent.parent
BANK = load_question_bank()
KNOW = KnowledgeAgent(BANK)
GRADER = default_grader()
EMBEDDER = default_embedder()
pytestmark = pytest.mark.skipif(GRADER is None or EMBEDDER is None,
                                reason="grader model files are absent")
AGENT = EvaluateAgent(RubricProvider(), GRADER, bank=BANK)
HASH_TABLE = ("A hash table keeps key value pairs in an array of buckets. A hash function turns "
              "each key into a bucket number, so a lookup is constant time on average. When two "
              "keys collide you chain them in a list or probe for the next free slot, and the "
              "table is resized once the load factor gets too high.")
INDEX = ("It's a separate structure, normally a B-tree, kept sorted on the column, so the "
         "database can jump to the matching rows instead of scanning the whole table. The price "
         "is extra disk space and slower inserts and updates, because every index has to be "
         "maintained on each write.")


def judged(qid: str, answer: str) -> Judgement:
    q = BANK.get(qid)
    return AGENT.judge(q.text, answer, KNOW.for_question(q))


def test_a_hash_table_answer_to_the_index_question_is_near_topic_and_capped() -> None:
    j = judged("db-index", HASH_TABLE)
    assert j.near_topic and j.off_topic
    assert j.score <= OFF_TOPIC_CAP
    assert all(not p.evidence for p in j.points)  # nothing of it quoted as evidence
    # The hash-table question's own reference, given here, is capped the same way.
    assert judged("db-index", BANK.get("ds-hash-table").reference_answer).score <= OFF_TOPIC_CAP


def test_the_right_answer_is_not_capped() -> None:
    j = judged("db-index", INDEX)
    assert not j.near_topic and not j.off_topic
    assert j.score >= 0.6
    # And the hash-table answer, to its own question, is a good answer.
    j = judged("ds-hash-table", HASH_TABLE)
    assert not j.near_topic and j.score >= 0.6


def test_another_questions_text_is_not_an_answer() -> None:
    q = BANK.get("conc-race-condition")
    for other in BANK.by_topic(q.topic):
        if other.id != q.id:
            assert judged(q.id, other.text).score < 0.5, other.id


def test_no_reference_or_right_labelled_answer_is_near_topic() -> None:
    """The rule never fires on a reference answer to its own question, nor on a labelled
    answer the graders gave half marks or more (the in-house set)."""
    gate = RelevanceGate(EMBEDDER, BANK) if EMBEDDER is not None else None
    assert gate is not None
    for q in BANK.questions.values():
        assert not gate.check(q.reference_answer, q.id, q.text, q.reference_answer).near_topic
    rows = [json.loads(line) for line in
            (ROOT / "tests/data/grading_labelled.jsonl").read_text().splitlines() if line]
    right = [r for r in rows if r["label"] >= 0.5]
    assert len(right) > 150
    for r in right:
        q = BANK.get(r["question_id"])
        assert not gate.check(r["answer"], q.id, q.text, q.reference_answer).near_topic, r["id"]


def test_near_topic_references_are_rarely_credited() -> None:
    """Goal: another technical question's reference of the same or a neighbouring topic,
    given as the answer, credited >= 0.5 in at most 5 % of cases (one pair in three here,
    evenly spread, to keep the test short; ``viva bench grading`` grades all)."""
    pairs = [(q, o) for q, o in near_topic_pairs(BANK) if q.topic.value not in OPEN_TOPICS]
    sample = pairs[::3]
    credited = [f"{q.id}<-{o.id}" for q, o in sample
                if judged(q.id, o.reference_answer).score >= 0.5]
    assert len(credited) <= 0.05 * len(sample), credited


def test_a_story_that_answers_another_open_question_is_capped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Stories sit near each other for the embedder; the grader's contrast (the answer graded
    as the answer to the nearest other open question) tells them apart."""
    deadline_story = BANK.get("beh-deadline").reference_answer
    j = judged("beh-conflict", deadline_story)
    assert j.near_topic and j.off_topic and j.score <= OFF_TOPIC_CAP
    assert all(not p.evidence for p in j.points)
    assert j.about is None  # "does not seem to be about what I asked", not "a past experience"
    # Without the contrast the same story is credited as an answer about a conflict.
    monkeypatch.setattr("agents.evaluate.OPEN_CONTRAST_BY", float("inf"))
    plain = judged("beh-conflict", deadline_story)
    assert plain.score >= 0.5
    # The contrast the calibration script reads is the one that capped it.
    assert plain.gate is not None and plain.gate.nearest_of_kind == "beh-deadline"
    contrast = AGENT.story_contrast(deadline_story, "beh-conflict", plain.score, plain.gate)
    assert contrast is not None and contrast > OPEN_CONTRAST_BY
    # A technical question has no story to contrast.
    tech = judged("db-index", HASH_TABLE)
    assert tech.gate is not None
    assert AGENT.story_contrast(HASH_TABLE, "db-index", tech.score, tech.gate) is None


def test_right_labelled_answers_to_open_questions_are_not_capped() -> None:
    rows = [json.loads(line) for line in
            (ROOT / "tests/data/grading_labelled.jsonl").read_text().splitlines() if line]
    right = [r for r in rows if r["label"] >= 0.5
             and BANK.get(r["question_id"]).topic.value in OPEN_TOPICS]
    assert len(right) >= 30
    for r in right:
        assert not judged(r["question_id"], r["answer"]).near_topic, r["id"]


def test_near_topic_stories_are_credited_less_often() -> None:
    """Open questions: another open question's reference given as the answer was credited
    >= 0.5 in 57 % of pairs with the embedder's rule alone; with the grader's contrast, 31 %
    of all 306 (one pair in six here)."""
    pairs = [(q, o) for q, o in near_topic_pairs(BANK) if q.topic.value in OPEN_TOPICS]
    sample = pairs[::6]
    credited = [f"{q.id}<-{o.id}" for q, o in sample
                if judged(q.id, o.reference_answer).score >= 0.5]
    assert len(credited) <= 0.4 * len(sample), credited
