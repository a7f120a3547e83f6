"""Feedback that is true of the answer (issue 24): a bare list of the right terms is told it
named them and must explain them, never the authored "You have some of the letters"; the
points a quote earned read as sentences whatever shape the point's text has (a fragment such
as "avoids a full table scan" too). The bank, the real grader."""

from __future__ import annotations

from agents.evaluate import EvaluateAgent
from agents.feedback import NAMED_NOT_EXPLAINED, bank_feedback
from agents.grading import PointResult, Reason
from agents.knowledge import KnowledgeAgent
from agents.messages import Evaluation
from agents.providers.rubric import RubricProvider
from agents.question_bank import load_question_bank
from agents.semantic import default_grader

BANK = load_question_bank()
KNOW = KnowledgeAgent(BANK)
AGENT = EvaluateAgent(RubricProvider(), default_grader(), bank=BANK)


def feedback(qid: str, answer: str) -> tuple[Evaluation, str]:
    q = BANK.get(qid)
    j = AGENT.judge(q.text, answer, KNOW.for_question(q))
    ev = Evaluation(score=j.score, has_standard_answer=True, points=j.points,
                    misconceptions=j.misconceptions, reason=j.reason, off_topic=j.off_topic)
    return ev, bank_feedback(q, ev).text


def test_a_list_of_the_right_terms_is_told_to_explain_them() -> None:
    terms = "B-tree sorted structure, faster lookups, no full scan, slower inserts, extra storage"
    ev, text = feedback("db-index", terms)
    assert ev.reason is Reason.keyword_list, ev.reason
    assert NAMED_NOT_EXPLAINED in text, text
    assert BANK.get("db-index").feedback.guidance not in text  # "You are part way…"
    # All four letters of ACID, listed: never "You have some of the letters".
    _, text = feedback("db-acid", "Atomicity, consistency, isolation, durability")
    assert "some of the letters" not in text, text


def test_what_a_quote_covers_reads_as_a_sentence_for_every_kind_of_point() -> None:
    said = []
    for q in list(BANK.questions.values())[:40]:
        if not q.reference_answer or q.topic.value in ("projects", "behavioral"):
            continue
        _, text = feedback(q.id, q.reference_answer)
        said.append(text)
        assert "that shows" not in text, text  # "that shows avoids a full table scan"
    assert any("which covers this: " in t for t in said)


_BROKEN = ("?.", "!.", "..", " .", ".,", ",.", ";.", ":.", "that that ", "  ")


def test_every_point_misconception_and_hint_of_the_bank_reads_in_its_frame() -> None:
    """Each authored text of the bank rendered in the frame that speaks it: a point the answer
    covered, a misconception the answer stated, a hint after a first "I don't know". None
    leaves broken punctuation or a doubled word at the seams ("looking for?." was one)."""
    rendered = 0
    for q in BANK.questions.values():
        for p in q.assessment_points:
            point = PointResult(point_id=p.id, text=p.text, weight=p.weight, coverage=1.0,
                                evidence=["the words that showed it"])
            ev = Evaluation(score=0.9, has_standard_answer=True, points=[point],
                            misconceptions=[], reason=Reason.none)
            texts = [bank_feedback(q, ev).evidence]
            for m in q.misconceptions:
                texts.append(bank_feedback(q, Evaluation(
                    score=0.2, has_standard_answer=True, points=[point],
                    misconceptions=[m.text], reason=Reason.none)).evidence)
            for hint in q.hints:
                texts.append(bank_feedback(q, Evaluation(
                    score=0.0, has_standard_answer=True, points=[point], misconceptions=[],
                    reason=Reason.dont_know), hint=hint).text)
            for text in texts:
                rendered += 1
                assert not any(b in text for b in _BROKEN), (q.id, text)
                assert text.rstrip().endswith((".", "?", "!")), (q.id, text)
    assert rendered > 300
