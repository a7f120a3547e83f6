"""Rubric grading, the CLI that exposes it, and the grading bench."""

from __future__ import annotations

import ast
import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from agents.grading import Reason, derive_points, grade, says_dont_know, tokens
from agents.question_bank import load_question_bank
from tests.conftest import ROOT
from tests.split_guard import MARK, SplitGuard

BANK = load_question_bank()
HASH = BANK.get("ds-hash-table")


def score(text: str) -> float:
    return grade(text, HASH.assessment_points, HASH.misconceptions).score


def test_spoken_complexity_is_normalised() -> None:
    assert tokens("big o of n log n, o of one, O( n^2 )") == [
        "o(n log n)", "o(1)", "o(n^2)"]


def test_paraphrase_scores_high_and_silence_scores_zero() -> None:
    assert score("You hash the key to pick a slot in an array. When two keys collide you "
                 "chain them in a linked list. Lookups are constant time on average, "
                 "linear in the worst case, and it resizes when the load factor grows.") >= 0.9
    assert score("") == 0.0
    assert score("I don't know.") <= 0.1


def test_negated_concepts_do_not_count() -> None:
    plain = score("Lookups are constant time, and collisions are handled with chaining.")
    negated = score("Lookups are not constant time, and collisions are never handled with "
                    "chaining.")
    assert negated < plain


def test_misconceptions_cut_the_point() -> None:
    right = score("A hash function maps keys to buckets in an array.")
    wrong = score("A hash function maps keys to buckets in an array and keeps keys sorted.")
    assert wrong < right


def test_more_points_more_score() -> None:
    one = score("It uses a hash function to map keys into an array of buckets.")
    two = score("It uses a hash function to map keys into an array of buckets; "
                          "collisions go into a linked list, that's chaining.")
    assert 0 < one < two


def test_derived_points_from_a_reference_alone() -> None:
    ref = ("A mutex lets one thread at a time enter a critical section. A semaphore keeps a "
           "counter and lets up to N threads proceed. Deadlock happens when threads wait on "
           "each other in a cycle.")
    points = derive_points(ref)
    assert len(points) == 3 and abs(sum(p.weight for p in points) - 1) < 1e-6
    good = grade("A mutex allows only one thread into the critical section; a semaphore has "
                 "a counter so N threads can proceed; deadlock is a cycle of threads waiting.",
                 points).score
    bad = grade("A mutex is a kind of database index.", points).score
    assert good >= 0.8 > 0.3 > bad


def test_grade_batch_cli(tmp_path: Path) -> None:
    ref = "TCP is connection oriented and reliable; UDP is connectionless and unreliable."
    rows = [
        {"id": "a", "question": "TCP vs UDP?", "reference_answer": ref,
         "answer": "TCP sets up a connection and is reliable, UDP is connectionless with no "
                   "delivery guarantee, so unreliable."},
        {"id": "b", "question": "TCP vs UDP?", "reference_answer": ref,
         "answer": "No idea, sorry."},
        {"id": 3, "question": "q", "reference_answer": ref},  # no answer: an error line
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = subprocess.run([sys.executable, "-m", "server.cli", "grade", "--batch", str(path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert out.returncode == 1  # one bad line
    scores = {line["id"]: line["score"] for line in lines if "score" in line}
    assert set(scores) == {"a", "b"} and scores["a"] > 0.6 > 0.2 > scores["b"]
    errors = [line for line in lines if "error" in line]
    assert errors and errors[0]["line"] == 3 and errors[0]["error"]["code"] == "invalid_input"


def test_grading_bench_reports_correlation() -> None:
    # Run under the split guard: the default bench reads the dev questions, never the test
    # split (that is `--test`, logged in the model card).
    out = subprocess.run([sys.executable, "-m", "tests.split_guard", "bench", "grading",
                          "--json", "--public-limit", "40", "--quick"],
                         cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    reads = [line for line in out.stderr.splitlines() if line.startswith(MARK)]
    assert reads == [MARK + "[]"], reads
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["split"] == "dev" and "public_unseen" not in result
    bank = result["bank_points"]
    assert bank["n"] >= 150
    assert -1 <= bank["pearson_r"] <= 1
    # Right answers must score above wrong ones on average, or the grader is useless.
    assert bank["mean_score_label_ge_0_7"] > bank["mean_score_label_le_0_3"]
    # The bank's combination is fitted on this set: the bench says so, with the honest figure.
    held_out = bank["fitted_on_this_set"]["leave_one_question_out_pearson_r"]
    assert 0 < held_out <= 1
    public = result["public_dev"]
    assert {"semeval_scientsbank", "semeval_beetle", "saf_networking"} <= set(public)
    for name in ("semeval_scientsbank", "semeval_beetle", "saf_networking"):
        assert public[name]["n"] == 40 and -1 <= public[name]["qwk"] <= 1
    # Each set says how far the combined grader's r is from the rubric's, with an interval
    # from resampling whole questions.
    # The derived combination is fitted on the dev answers: the bench carries its held-out r.
    assert 0 < public["all"]["fitted_on_this_set"]["leave_one_question_out_pearson_r"] <= 1
    for versus in (bank["combined_vs_rubric"], public["all"]["combined_vs_rubric"]):
        assert versus["ci95_low"] <= versus["r_difference"] <= versus["ci95_high"]
    labelled = [json.loads(line) for line in
                (ROOT / "tests" / "data" / "grading_labelled.jsonl").read_text().splitlines()]
    assert bank["combined_vs_rubric"]["groups"] == len({r["question_id"] for r in labelled})
    off = result["off_topic"]["other_topic"]
    assert off["n"] == result["bank_questions"] and 0 <= off["rate_ge_0_3"] <= 1
    assert result["ms_per_answer"]["n"] > 0 and result["ms_per_answer"]["p95"] > 0
    by_set = result["ms_per_answer"]["by_set"]
    assert {"bank_points", "reference_only", "saf_networking", "off_topic",
            "word_salad"} <= set(by_set)
    salad = result["word_salad"]
    for kind in ("content_words", "all_words"):
        assert salad[kind]["n"] == result["bank_questions"]
        assert 0 <= salad[kind]["mean"] <= salad[kind]["max"] <= 1
    assert sum(v["n"] for v in by_set.values()) == result["ms_per_answer"]["n"]
    # Where a point said in other words was said, against the rubric's clause: the embedder's
    # reading places it at least as well as the cross-encoder's, and far above chance.
    where = result["evidence_location"]
    assert where["n"] >= 100
    assert where["quote_right"] >= where["cross_encoder_reading_right"] > 0.4


def test_pass_inside_a_sentence_is_an_answer_not_a_decline() -> None:
    """"Pass" declines only as the whole answer; "Java is pass by value" is graded."""
    ref = ("Java is always pass by value: a method receives a copy of each argument, and for "
           "an object that copy is the reference, so the method can change the object but "
           "not which object the caller's variable points to.")
    points = derive_points(ref)
    answer = ("Java is pass by value. The method gets a copy of the reference, so it can "
              "change the object but not the caller's variable.")
    g = grade(answer, points)
    assert g.reason is Reason.none and g.score > 0.5
    for decline in ("Pass.", "pass", "I'll pass on this one.", "Um, can I skip this question?",
                    "I don't know."):
        assert grade(decline, points).reason is Reason.dont_know, decline
    assert says_dont_know("Pass, sorry.") and not says_dont_know("It will pass the test.")


def test_the_split_guard_sees_a_read(tmp_path: Path) -> None:
    """The guard the suite and the bench test rely on is not vacuous: a file opened under its
    folder is recorded (a folder of its own here, so the suite's own guard stays quiet)."""
    folder = tmp_path / "split"
    folder.mkdir()
    (folder / "answers.jsonl").write_text("{}\n")
    (tmp_path / "other.jsonl").write_text("{}\n")
    guard = SplitGuard(folder).install()
    (tmp_path / "other.jsonl").read_text()
    assert guard.reads == []
    (folder / "answers.jsonl").read_text()
    assert guard.reads == [str(folder / "answers.jsonl")]


def test_the_test_split_is_read_only_by_the_test_flag() -> None:
    """The bench reads tests/data/public only with --test; the dev split is a folder apart
    with the same three sources (the repository's copy of `train_grader.py prepare`)."""
    from bench import grading as bench

    assert bench.DEV_SPLIT != bench.TEST_SPLIT == ROOT / "tests" / "data" / "public"
    for name in bench.PUBLIC_DEV:
        assert (bench.DEV_SPLIT / bench.PUBLIC_DEV[name]).exists(), name
    dev_q = {json.loads(line)["question_id"] for f in bench.PUBLIC_DEV.values()
             for line in (bench.DEV_SPLIT / f).read_text().splitlines() if line.strip()}
    assert len(dev_q) == 24


def test_one_reason_type_flows_from_the_rubric_to_the_evaluation() -> None:
    """The rubric's grade, the evaluator's judgement and the evaluation the feedback reads
    carry the same ``Reason`` member, never a look-alike string."""
    from agents.evaluate import EvaluateAgent
    from agents.knowledge import KnowledgeAgent
    from agents.providers.rubric import RubricProvider

    bank = load_question_bank()
    q = bank.get("db-acid")
    know = KnowledgeAgent(bank).for_question(q)
    assert grade("I don't know.", know.points).reason is Reason.dont_know
    agent = EvaluateAgent(RubricProvider(), bank=bank)
    assert agent.judge(q.text, "I don't know.", know).reason is Reason.dont_know
    evaluation = asyncio.run(agent.evaluate(q.text, "I don't know.", know))
    assert evaluation.reason is Reason.dont_know
    assert agent.judge(q.text, q.reference_answer, know).reason is Reason.none


def test_one_point_record_flows_from_the_rubric_to_the_report() -> None:
    """Each point's grade is one typed record (``PointResult``) from the rubric through the
    evaluator to the feedback, never an untyped dict; the report stores it with the same
    fields as before (``PointScore``: old records still load)."""
    from agents.evaluate import EvaluateAgent
    from agents.feedback import bank_feedback
    from agents.grading import PointResult
    from agents.knowledge import KnowledgeAgent
    from agents.providers.rubric import RubricProvider
    from agents.state import PointScore

    bank = load_question_bank()
    q = bank.get("db-acid")
    know = KnowledgeAgent(bank).for_question(q)
    rubric = grade(q.reference_answer, know.points)
    assert rubric.points and all(type(p) is PointResult for p in rubric.points)
    agent = EvaluateAgent(RubricProvider(), bank=bank)
    evaluation = asyncio.run(agent.evaluate(q.text, q.reference_answer, know))
    assert all(type(p) is PointResult for p in evaluation.points)
    assert [p.point_id for p in evaluation.points] == [p.point_id for p in rubric.points]
    assert all(p.semantic is not None and p.evidence for p in evaluation.points)
    quote = evaluation.points[0].evidence[0]
    assert quote in q.reference_answer and quote in bank_feedback(q, evaluation).evidence
    stored = json.loads(PointScore.model_validate(evaluation.points[0],
                                                  from_attributes=True).model_dump_json())
    assert set(stored) == {"point_id", "text", "weight", "coverage", "evidence",
                           "misconceptions"}
    assert PointScore.model_validate(stored).coverage == evaluation.points[0].coverage


def _reason_aliases_and_string_compares(path: Path) -> list[str]:
    found = []
    tree = ast.parse(path.read_text())
    for node in tree.body:  # a module's name for a member ("DONT_KNOW = Reason.dont_know")
        if not isinstance(node, ast.Assign):
            continue
        values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        found += [f"{path.name}:{node.lineno}: alias of Reason.{v.attr}" for v in values
                  if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name)
                  and v.value.id == "Reason"]
    for compare in ast.walk(tree):
        if isinstance(compare, ast.Compare):
            sides = [compare.left, *compare.comparators]
            strings = [s for side in sides for s in (
                side.elts if isinstance(side, ast.Tuple | ast.Set | ast.List) else [side])
                if isinstance(s, ast.Constant) and isinstance(s.value, str)]
            if strings and any(isinstance(side, ast.Attribute) and side.attr == "reason"
                               for side in sides):
                found.append(f"{path.name}:{compare.lineno}: a reason compared with a string")
    return found


def test_reasons_are_members_never_bare_strings() -> None:
    """The evaluation's reason is a ``Reason`` (its stored text reads back as the member, any
    other text is refused), and no grading module names a reason by another name or compares
    one with a string."""
    from agents.messages import Evaluation

    read = Evaluation.model_validate({"score": 0.0, "has_standard_answer": True,
                                      "reason": "off-topic"})
    assert read.reason is Reason.off_topic
    assert Evaluation(score=0.0, has_standard_answer=True).reason is Reason.none
    with pytest.raises(ValidationError):
        Evaluation.model_validate({"score": 0.0, "has_standard_answer": True,
                                   "reason": "not sure"})
    files = [*sorted((ROOT / "agents").glob("*.py")), ROOT / "bench" / "grading.py"]
    assert [f for p in files for f in _reason_aliases_and_string_compares(p)] == []
