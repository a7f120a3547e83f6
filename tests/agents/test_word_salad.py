"""Word salad: an answer's words with no sentence around them earn nothing and are never
quoted back (``agents/fluency.py``, wired in ``agents.evaluate.judge``)."""

from __future__ import annotations

import random
import statistics

import pytest

from agents.evaluate import EvaluateAgent
from agents.feedback import NOT_A_SENTENCE, bank_feedback
from agents.fluency import MIN_WORDS, FluencyModel, default_model, judged, words
from agents.grading import content_words, sentences
from agents.knowledge import KnowledgeAgent
from agents.messages import Evaluation
from agents.providers.rubric import RubricProvider
from agents.question_bank import load_question_bank
from agents.semantic import default_grader

BANK = load_question_bank()
KNOW = KnowledgeAgent(BANK)
GRADER = default_grader()
AGENT = EvaluateAgent(RubricProvider(), GRADER, bank=BANK)
pytestmark = pytest.mark.skipif(GRADER is None or default_model() is None,
                                reason="grader or word-order model files are absent")
QUESTIONS = sorted(BANK.questions.values(), key=lambda q: q.id)


def _salads(text: str, rng: random.Random) -> list[str]:
    """The text's content words shuffled (no sentence at all), and all its words shuffled
    (the function words are there, in no order)."""
    out = []
    for ws in (content_words(text), words(text)):
        ws = list(ws)
        rng.shuffle(ws)
        out.append(" ".join(ws))
    return out


def test_word_salad_of_every_bank_reference_scores_below_its_first_sentence() -> None:
    rng = random.Random(2024)
    scores: list[float] = []
    for q in QUESTIONS:
        k = KNOW.for_question(q)
        first = AGENT.judge(q.text, sentences(q.reference_answer)[0], k).score
        for salad in _salads(q.reference_answer, rng):
            j = AGENT.judge(q.text, salad, k)
            scores.append(j.score)
            assert j.score < first or j.score == first == 0.0, (q.id, salad, j.score, first)
            assert j.score <= 0.3, (q.id, salad, j.score)
    assert statistics.mean(scores) <= 0.15


def test_a_salad_gets_asked_again_and_is_never_quoted() -> None:
    q = BANK.get("conc-concurrency-vs-parallelism")
    salad = _salads(q.reference_answer, random.Random(7))[0]
    j = AGENT.judge(q.text, salad, KNOW.for_question(q))
    assert j.score == 0.0 and all(not p.evidence for p in j.points)
    fb = bank_feedback(q, Evaluation(score=j.score, has_standard_answer=True, points=j.points,
                                     reason=j.reason))
    assert fb.text == NOT_A_SENTENCE and "“" not in fb.text and fb.kind == "correction"
    # The same words as sentences (the reference itself) are graded as an answer.
    assert AGENT.judge(q.text, q.reference_answer, KNOW.for_question(q)).score >= 0.8


def test_order_scores_a_sentence_above_its_shuffles() -> None:
    model = default_model()
    assert model is not None
    sentence = ("A process has its own address space, while threads share the memory of the "
                "process they belong to, so switching between threads is cheaper and they can "
                "talk through shared data, which is also why they need locks.")
    assert len(words(sentence)) >= MIN_WORDS
    assert model.order_factor(sentence) == 1.0
    rng = random.Random(3)
    shuffled = [model.order_z(" ".join(rng.sample(words(sentence), len(words(sentence)))))
                for _ in range(20)]
    assert model.order_z(sentence) > max(shuffled)


def test_short_answers_and_formulas_are_not_judged_for_order() -> None:
    model = default_model()
    assert model is not None
    assert not judged("Mutex lets one thread in, a semaphore lets N threads in.")
    formula = ("P(X>=3) = P(X=3) + P(X=4) + P(X=5) + P(X=6) = 0.8208 and P(B) = 0.6^3 * "
               "0.4^3 = 0.0138 and P(C) = 20 * 0.6^3 * 0.4^3 = 0.2765 so B < C < A overall")
    assert not judged(formula) and model.order_factor(formula) == 1.0


def test_bars_rise_with_length_and_hard_is_below_soft() -> None:
    model = default_model()
    assert model is not None and model.bars
    previous = (-float("inf"), -float("inf"))
    for _, hard, soft in model.bars:
        assert hard <= soft and hard >= previous[0] and soft >= previous[1]
        previous = (hard, soft)


def test_counting_a_model_from_texts() -> None:
    texts = ["the bulb is in a closed path with the battery",
             "there is a gap in the circuit so the bulb is off"] * 20
    m = FluencyModel.count(texts, vocabulary_size=5)
    assert "the" in m.vocabulary or "is" in m.vocabulary
    assert abs(sum(m.unigram.values()) - 1) < 1e-3
    # "the" is followed by a noun, never by "is": the pair carries negative information.
    assert m.pmi("the", "is") < 0 < m.pmi("is", "in")
