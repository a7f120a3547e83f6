"""Feedback that is true of the answer (issue 24): a bare list of the right terms is told it
named them and must explain them, never the authored "You have some of the letters"; the
points a quote earned read as sentences whatever shape the point's text has (a fragment such
as "avoids a full table scan" too). The bank, the real grader."""

from __future__ import annotations

from agents.evaluate import EvaluateAgent
from agents.feedback import KEYWORD_LIST, NAMED_NOT_EXPLAINED, bank_feedback
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
    assert ev.reason == KEYWORD_LIST, ev.reason
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
