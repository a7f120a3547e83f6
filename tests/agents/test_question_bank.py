"""The question bank: size, coverage, and validation that names file and field."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agents.question_bank import BankError, load_question_bank
from tests.conftest import ROOT

REQUIRED_TOPICS = {"data_structures", "algorithms", "operating_systems", "networking",
                   "databases", "concurrency", "system_design", "python"}


def test_bank_size_and_coverage() -> None:
    bank = load_question_bank()
    assert len(bank) >= 80
    topics = {t.value for t in bank.topics}
    assert REQUIRED_TOPICS <= topics and ({"projects", "behavioral"} & topics)
    for q in bank.questions.values():
        assert len(q.followups) >= 2 and q.hints and q.reference_answer
        assert q.feedback.correction and q.feedback.guidance and q.feedback.comment
    assert {q.difficulty.value for q in bank.questions.values()} == {"easy", "medium", "hard"}
    # Every topic has an opener.
    for topic in REQUIRED_TOPICS:
        assert any(q.warmup for q in bank.by_topic(bank.get(next(
            qid for qid, q in bank.questions.items() if q.topic.value == topic)).topic))


def test_reference_answers_score_high_on_their_own_points() -> None:
    """A bank whose reference answer cannot pass its own rubric is a broken question."""
    from agents.grading import grade

    bank = load_question_bank()
    weak = [q.id for q in bank.questions.values()
            if grade(q.reference_answer, q.assessment_points, q.misconceptions).score < 0.7]
    assert len(weak) <= len(bank) // 10, weak


def test_invalid_file_is_refused_with_file_and_field(tmp_path: Path) -> None:
    (tmp_path / "questions").mkdir()
    src = ROOT / "bank" / "questions" / "data_structures.yaml"
    broken = src.read_text().replace("weight: 0.35", "weight: 7", 1)
    (tmp_path / "questions" / "ds.yaml").write_text(broken)
    with pytest.raises(BankError) as info:
        load_question_bank(tmp_path)
    assert "ds.yaml" in str(info.value) and "weight" in str(info.value)
    out = subprocess.run([sys.executable, "-m", "server.cli", "bank", "validate",
                          str(tmp_path)], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 1 and "ds.yaml" in out.stderr


def test_validate_command_accepts_the_shipped_bank(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "bank", tmp_path / "bank")
    out = subprocess.run([sys.executable, "-m", "server.cli", "bank", "validate",
                          str(tmp_path / "bank")], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "bank ok" in out.stdout


def test_every_point_of_the_shipped_bank_reads_as_a_clause_in_the_feedback_frame() -> None:
    from agents.feedback import frame_errors

    assert frame_errors(load_question_bank()) == []


def test_a_point_that_is_not_a_clause_fails_validation_naming_question_and_point(
        tmp_path: Path) -> None:
    """``viva bank validate`` refuses a point's text that would not read in the feedback frame
    ("You said “…”, which covers this: …"): a bare list of terms, a trailing fragment."""
    from agents.feedback import point_text_problem

    assert "bare list of terms" in str(point_text_problem("relational, schema, joins, SQL"))
    assert "fragment" in str(point_text_problem("Store seen numbers in a hash set or"))
    assert "fragment" in str(point_text_problem("A concrete example, such as"))
    assert "fragment" in str(point_text_problem("Split into halves and sort each,"))
    assert "brackets" in str(point_text_problem("Self-balancing variants (AVL, red-black"))
    for clause in ("Relational databases have a schema, joins, SQL and ACID transactions",
                   "Clear context, the problem and who it was for", "O(log n) comparisons",
                   "Names the four levels in order (read uncommitted, read committed, "
                   "repeatable read, serializable)."):
        assert point_text_problem(clause) is None, clause
    shutil.copytree(ROOT / "bank", tmp_path / "bank")
    for name, old, new in (
            ("databases.yaml", "text: Relational databases have a schema, joins, SQL and ACID "
             "transactions", "text: relational, schema, joins, SQL"),
            ("data_structures.yaml", "text: Collisions are resolved by chaining or open "
             "addressing", "text: Collisions are resolved by chaining or")):
        path = tmp_path / "bank" / "questions" / name
        assert old in path.read_text()
        path.write_text(path.read_text().replace(old, new, 1))
    out = subprocess.run([sys.executable, "-m", "server.cli", "bank", "validate",
                          str(tmp_path / "bank")], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 1 and "bank ok" not in out.stdout
    errors = [line for line in out.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 2, out.stderr
    assert errors[0].startswith("error: question ds-hash-table, point collisions: “Collisions "
                                "are resolved by chaining or” does not read as a clause")
    assert errors[0].endswith("it ends in “or”, a fragment")
    assert errors[1].startswith("error: question db-sql-vs-nosql, point relational: "
                                "“relational, schema, joins, SQL” does not read as a clause")
    assert "a bare list of terms" in errors[1]


def test_key_terms_are_every_concept_name_in_point_order() -> None:
    # What the voice session prompts the recognizer with (and the voice bench mirrors).
    q = next(q for q in load_question_bank().questions.values()
             if len(q.assessment_points) > 1)
    terms = q.key_terms
    assert terms[:len(q.assessment_points[0].concepts)] == [
        c.name for c in q.assessment_points[0].concepts]
    assert len(terms) == sum(len(p.concepts) for p in q.assessment_points)
