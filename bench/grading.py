"""``viva bench grading``: agreement of Viva's grades with human labels, and their cost.

- ``bank_points``: answers to bank questions, graded on the bank's authored points. Two numbers
  of the bank's combination are fitted on this set, so its r is in-sample; ``fitted_on_this_set``
  carries the leave-one-question-out r from ``calibration_report.json``;
- ``reference_only``: answers to questions outside the bank, graded from the reference answer
  alone (as ``viva grade --batch`` does). Both in-house sets were written for this project;
- ``public_dev``: real student answers graded by humans on the public **dev** questions (the
  held-out training questions of SemEval-2013 Task 7 SciEntsBank and Beetle and of SAF,
  ``tests/data/public_dev/``): every choice is made here. The derived combination's weights are
  fitted on these answers, so ``fitted_on_this_set`` carries the leave-one-question-out r from
  ``calibration_report.json``. Pearson r, quadratic weighted kappa and MAE;
- ``public_unseen`` (only with ``--test``, and then alone): the same on the **test** questions
  (SemEval "unseen questions", SAF's "unseen questions"; ``tests/data/public/``), which nothing
  is fitted or chosen on. Each run is logged in the model card with its reason;
- ``off_topic``: each bank question answered with another question's reference answer (one
  from another topic, one from the same topic): the share that scores >= 0.3;
- ``near_topic``: each bank question answered with the reference answer of every other
  question of the same or a neighbouring topic (``NEIGHBOUR_TOPICS``): the share credited
  >= 0.5 (goal <= 5 %), for technical and open questions apart; left out by ``--quick``;
- ``word_salad``: each bank question answered with its own reference answer's words in a random
  order (its content words alone, and all its words), drawn with a fixed seed: mean and max
  score (goal: mean <= 0.15, max <= 0.3), the share read as word salad, and how many score
  at or above the reference's first sentence;
- ``evidence_location``: where the grader says a point credited in the candidate's own words
  was said (``SemanticGrader.locate``), against the clause the rubric's phrases find for that
  point (bank answers with three or more clauses): how often the quote is that clause, and how
  often the cross-encoder's reading would have picked it. The answer key is lexical, so it
  measures clauses that share the point's words;
- ``ms_per_answer``: wall time of one grading (rubric + cross-encoder + embedder + gate), p50 and
  p95, over all answers and per set (``by_set``);

Every set is graded by the combined grader and, for comparison, by the rubric alone.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

from agents.evaluate import EvaluateAgent, Judgement, judge
from agents.grading import (
    Reason,
    clauses,
    content_words,
    derive_points,
    grade,
    quote_for,
    sentences,
)
from agents.knowledge import Knowledge, KnowledgeAgent
from agents.providers.base import LanguageProvider
from agents.providers.rubric import RubricProvider
from agents.question_bank import Question, QuestionBank, load_question_bank
from agents.relevance import OPEN_TOPICS
from agents.semantic import MAX_EVIDENCE_CLAUSES, MODEL_DIR, SemanticGrader, default_grader
from bench.stats import paired_r_difference, pearson, percentile

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
# The public test split: read only by ``--test`` (``make test`` and the default bench never
# open it; ``tests/split_guard.py`` checks that).
TEST_SPLIT = DATA / "public"
DEV_SPLIT = DATA / "public_dev"
PUBLIC = {
    "semeval_scientsbank": "semeval2013_scientsbank_unseen.jsonl",
    "semeval_beetle": "semeval2013_beetle_unseen.jsonl",
    "saf_networking": "saf_unseen_questions.jsonl",
}
PUBLIC_DEV = {
    "semeval_scientsbank": "semeval2013_scientsbank_dev.jsonl",
    "semeval_beetle": "semeval2013_beetle_dev.jsonl",
    "saf_networking": "saf_dev.jsonl",
}
OFF_TOPIC_PASS = 0.3
NEAR_TOPIC_PASS = 0.5
# Topics whose questions share vocabulary (an answer to one may be given to the other): the
# pairs the near-topic figure is measured on, beside the same topic's.
NEIGHBOUR_TOPICS: dict[str, frozenset[str]] = {
    "data_structures": frozenset({"algorithms", "databases"}),
    "algorithms": frozenset({"data_structures"}),
    "operating_systems": frozenset({"concurrency", "networking"}),
    "concurrency": frozenset({"operating_systems", "python"}),
    "networking": frozenset({"operating_systems", "system_design"}),
    "databases": frozenset({"system_design", "data_structures"}),
    "system_design": frozenset({"databases", "networking"}),
    "python": frozenset({"concurrency"}),
    "projects": frozenset({"behavioral"}),
    "behavioral": frozenset({"projects"}),
}


def _ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2
        i = j + 1
    return ranks


def spearman(xs: list[float], ys: list[float]) -> float:
    return pearson(_ranks(xs), _ranks(ys))


def qwk(scores: list[float], labels: list[float], levels: int) -> float:
    """Quadratic weighted kappa with both sides rounded onto ``levels`` equal steps of 0..1."""
    a = [min(levels - 1, round(s * (levels - 1))) for s in scores]
    b = [min(levels - 1, round(lab * (levels - 1))) for lab in labels]
    n = len(a)
    observed = [[0.0] * levels for _ in range(levels)]
    for i, j in zip(a, b, strict=True):
        observed[i][j] += 1
    ha = [sum(row) for row in observed]
    hb = [sum(observed[i][j] for i in range(levels)) for j in range(levels)]
    num = den = 0.0
    for i in range(levels):
        for j in range(levels):
            w = (i - j) ** 2 / (levels - 1) ** 2
            num += w * observed[i][j]
            den += w * ha[i] * hb[j] / n
    return 1 - num / den if den else 0.0


def figures(scores: list[float], labels: list[float], levels: int = 5) -> dict[str, Any]:
    if len(scores) < 3:
        return {"n": len(scores)}
    good = [s for s, lab in zip(scores, labels, strict=True) if lab >= 0.7]
    bad = [s for s, lab in zip(scores, labels, strict=True) if lab <= 0.3]
    return {
        "n": len(scores),
        "pearson_r": round(pearson(scores, labels), 3),
        "spearman_rho": round(spearman(scores, labels), 3),
        "qwk": round(qwk(scores, labels, levels), 3),
        "mae": round(sum(abs(s - lab) for s, lab in zip(scores, labels, strict=True))
                     / len(scores), 3),
        "mean_score_label_ge_0_7": round(sum(good) / len(good), 3) if good else None,
        "mean_score_label_le_0_3": round(sum(bad) / len(bad), 3) if bad else None,
    }


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class _Timer:
    """Grades as the live interview does (rubric + cross-encoder + relevance gate), timing
    each answer; or with the rubric alone, for comparison."""

    def __init__(self, agent: EvaluateAgent) -> None:
        self.agent = agent
        self.ms: list[float] = []
        self.section = ""  # the set being graded: its times are also reported apart
        self.by_section: dict[str, list[float]] = {}

    def grade(self, combined: bool, question: str, answer: str, knowledge: Knowledge) -> float:
        if not combined:
            return judge(answer, knowledge.points, knowledge.misconceptions).score
        return self.judge(question, answer, knowledge).score

    def judge(self, question: str, answer: str, knowledge: Knowledge) -> Judgement:
        started = time.perf_counter()
        j = self.agent.judge(question, answer, knowledge)
        ms = 1000 * (time.perf_counter() - started)
        self.ms.append(ms)
        self.by_section.setdefault(self.section, []).append(ms)
        return j


def _reference_knowledge(reference: str, others: list[str] | None = None) -> Knowledge:
    return Knowledge(True, reference, derive_points(reference), [], None,
                     alternative_references=tuple(others or ()))


Row = tuple[str, Knowledge, str, float]  # question, knowledge, answer, label


def _pairs(rows: list[Row], timer: _Timer) -> tuple[list[float], list[float], list[float]]:
    combined, rubric, labels = [], [], []
    for question, knowledge, answer, label in rows:
        combined.append(timer.grade(True, question, answer, knowledge))
        rubric.append(timer.grade(False, question, answer, knowledge))
        labels.append(label)
    return combined, rubric, labels


def _versus(combined: list[float], rubric: list[float], labels: list[float],
            rows: list[Row]) -> dict[str, float]:
    """How much the combined grader's r differs from the rubric's alone on these answers, with
    a 95 % interval from resampling whole questions (a set of 75 answers on 25 questions cannot
    tell a difference of 0.02 from none)."""
    return paired_r_difference(combined, rubric, labels, [q for q, *_ in rows])


def _in_house(bank: QuestionBank, timer: _Timer) -> dict[str, Any]:
    knowledge = KnowledgeAgent(bank)
    bank_rows = [(bank.get(r["question_id"]).text,
                  knowledge.for_question(bank.get(r["question_id"])), r["answer"],
                  float(r["label"])) for r in read_jsonl(DATA / "grading_labelled.jsonl")]
    ref_rows = [(r["question"], _reference_knowledge(r["reference_answer"]), r["answer"],
                 float(r["label"]))
                for r in read_jsonl(DATA / "grading_reference_only.jsonl")]
    out: dict[str, Any] = {}
    for name, rows in (("bank_points", bank_rows), ("reference_only", ref_rows)):
        timer.section = name
        combined, rubric, labels = _pairs(rows, timer)
        out[name] = figures(combined, labels) | {"rubric_only": figures(rubric, labels),
                                                 "combined_vs_rubric": _versus(
                                                     combined, rubric, labels, rows)}
    report = MODEL_DIR / "calibration_report.json"
    if timer.agent.grader is not None and report.exists():
        fit = json.loads(report.read_text())
        if "bank_pearson_leave_one_question_out" in fit:
            out["bank_points"]["fitted_on_this_set"] = {
                "leave_one_question_out_pearson_r": fit["bank_pearson_leave_one_question_out"]}
    return out


def _public(timer: _Timer, limit: int | None, *, test: bool = False) -> dict[str, Any]:
    """Figures on the public dev questions, or with ``test`` on the unseen test questions."""
    out: dict[str, Any] = {}
    all_c, all_r, all_l = [], [], []
    all_rows: list[Row] = []
    folder, files = (TEST_SPLIT, PUBLIC) if test else (DEV_SPLIT, PUBLIC_DEV)
    for name, fname in files.items():
        rows = read_jsonl(folder / fname)
        if limit is not None and len(rows) > limit:
            step = len(rows) / limit
            rows = [rows[int(i * step)] for i in range(limit)]
        if not rows:
            continue
        timer.section = name
        graded = [(r["question"], _reference_knowledge(r["reference_answer"],
                                                       r.get("other_reference_answers")),
                   r["answer"], float(r["label"])) for r in rows]
        combined, rubric, labels = _pairs(graded, timer)
        levels = 2 if name.startswith("semeval") else 5  # SemEval labels are correct/not
        out[name] = figures(combined, labels, levels) | {
            "rubric_only": figures(rubric, labels, levels),
            "combined_vs_rubric": _versus(combined, rubric, labels, graded)}
        all_c += combined
        all_r += rubric
        all_l += labels
        all_rows += graded
    if all_l:
        out["all"] = figures(all_c, all_l) | {"rubric_only": figures(all_r, all_l),
                                              "combined_vs_rubric": _versus(
                                                  all_c, all_r, all_l, all_rows)}
    return out


def _off_topic(bank: QuestionBank, timer: _Timer, draw_wide: bool = True) -> dict[str, Any]:
    knowledge = KnowledgeAgent(bank)
    rng = random.Random(2013)
    questions = sorted(bank.questions.values(), key=lambda q: q.id)
    result: dict[str, Any] = {}
    timer.section = "off_topic"
    for kind in ("other_topic", "same_topic"):
        passed, rubric_passed, n = [], 0, 0
        for q in questions:
            pool = [o for o in questions if o.id != q.id
                    and (o.topic != q.topic if kind == "other_topic" else o.topic == q.topic)]
            if not pool:
                continue
            other = rng.choice(pool)
            k = knowledge.for_question(q)
            n += 1
            if timer.grade(True, q.text, other.reference_answer, k) >= OFF_TOPIC_PASS:
                passed.append(f"{q.id}<-{other.id}")
            rubric_passed += timer.grade(False, q.text, other.reference_answer, k) >= OFF_TOPIC_PASS
        result[kind] = {"n": n, "rate_ge_0_3": round(len(passed) / max(1, n), 3),
                        "rubric_only_rate": round(rubric_passed / max(1, n), 3),
                        "examples": passed[:5]}
    if not draw_wide:
        return result
    # A wider draw than the one above (whose pairs were looked at while setting the gate):
    # every bank question answered with 8 other-topic references drawn with another seed.
    wide = random.Random(7)
    passed_wide, n_wide = 0, 0
    for q in questions:
        pool = [o for o in questions if o.topic != q.topic]
        k = knowledge.for_question(q)
        for other in wide.sample(pool, min(8, len(pool))):
            n_wide += 1
            passed_wide += timer.grade(True, q.text, other.reference_answer, k) >= OFF_TOPIC_PASS
    result["other_topic_wide"] = {"n": n_wide, "rate_ge_0_3": round(passed_wide / max(1, n_wide),
                                                                      3)}
    return result


def near_topic_pairs(bank: QuestionBank) -> list[tuple[Question, Question]]:
    """(asked, other): every bank question with every other one of the same or a
    neighbouring topic, whose reference answer is given as the answer."""
    questions = sorted(bank.questions.values(), key=lambda q: q.id)
    return [(q, o) for q in questions for o in questions if o.id != q.id and (
        o.topic == q.topic or o.topic.value in NEIGHBOUR_TOPICS[q.topic.value])]


def _near_topic(bank: QuestionBank, timer: _Timer) -> dict[str, Any]:
    knowledge = KnowledgeAgent(bank)
    timer.section = "near_topic"
    credited: dict[str, list[str]] = {"technical": [], "open": []}
    n = {"technical": 0, "open": 0}
    for q, other in near_topic_pairs(bank):
        kind = "open" if q.topic.value in OPEN_TOPICS else "technical"
        n[kind] += 1
        if timer.grade(True, q.text, other.reference_answer,
                       knowledge.for_question(q)) >= NEAR_TOPIC_PASS:
            credited[kind].append(f"{q.id}<-{other.id}")
    total = sum(n.values())
    out: dict[str, Any] = {"n": total, "rate_ge_0_5": round(
        sum(len(c) for c in credited.values()) / max(1, total), 3)}
    for kind in ("technical", "open"):
        out[kind] = {"n": n[kind], "rate_ge_0_5": round(len(credited[kind]) / max(1, n[kind]), 3),
                     "examples": credited[kind][:5]}
    return out


def _word_salad(bank: QuestionBank, timer: _Timer) -> dict[str, Any]:
    from agents.fluency import words

    knowledge = KnowledgeAgent(bank)
    rng = random.Random(24)
    timer.section = "word_salad"
    out: dict[str, Any] = {}
    firsts: dict[str, float] = {}
    for kind in ("content_words", "all_words"):
        scores, salads, not_below = [], 0, 0
        for q in sorted(bank.questions.values(), key=lambda q: q.id):
            k = knowledge.for_question(q)
            if q.id not in firsts:
                firsts[q.id] = timer.agent.judge(q.text, sentences(q.reference_answer)[0],
                                                 k).score
            ws = list(content_words(q.reference_answer) if kind == "content_words"
                      else words(q.reference_answer))
            rng.shuffle(ws)
            j = timer.judge(q.text, " ".join(ws), k)
            scores.append(j.score)
            salads += j.reason is Reason.word_salad
            not_below += j.score >= firsts[q.id] and j.score > 0
        out[kind] = {"n": len(scores), "mean": round(sum(scores) / max(1, len(scores)), 3),
                     "max": round(max(scores, default=0.0), 3),
                     "read_as_salad": round(salads / max(1, len(scores)), 3),
                     "not_below_first_sentence": not_below}
    return out


async def _model_figures(provider: LanguageProvider, bank: QuestionBank, limit: int,
                         ) -> dict[str, Any]:
    """A configured model's own per-point judgement on the bank set (first ``limit``)."""
    agent = EvaluateAgent(provider, use_semantic=False, model_deadline_s=120.0)
    knowledge = KnowledgeAgent(bank)
    model, labels, grader_scores, ms = [], [], [], []
    grader = default_grader()
    for r in read_jsonl(DATA / "grading_labelled.jsonl")[:limit]:
        q = bank.get(r["question_id"])
        k = knowledge.for_question(q)
        started = time.perf_counter()
        j = agent.judge(q.text, r["answer"], k)
        score = await agent._model_score(q.text, r["answer"], j.points)
        ms.append(1000 * (time.perf_counter() - started))
        if score is None:
            continue
        model.append(score)
        labels.append(float(r["label"]))
        grader_scores.append(judge(r["answer"], k.points, k.misconceptions,
                                   reference=k.reference_answer, grader=grader).score)
    both = [(m + g) / 2 for m, g in zip(model, grader_scores, strict=True)]
    return {"provider": provider.name, "answered": len(model),
            "model": figures(model, labels), "grader": figures(grader_scores, labels),
            "average_of_both": figures(both, labels),
            "ms_p50": percentile(ms, 50), "ms_p95": percentile(ms, 95)}


def _evidence_location(bank: QuestionBank, grader: SemanticGrader) -> dict[str, Any]:
    knowledge = KnowledgeAgent(bank)
    reader = SemanticGrader(grader.encoder, grader.calibrations)  # no embedder: cross-encoder
    n = right = ce_right = 0
    for r in read_jsonl(DATA / "grading_labelled.jsonl"):
        k = knowledge.for_question(bank.get(r["question_id"]))
        answer = r["answer"]
        said = clauses(answer)[:MAX_EVIDENCE_CLAUSES]
        if len(said) < 3:
            continue
        graded = grade(answer, k.points, k.misconceptions).points
        for p in graded:
            key = {quote_for(answer, e) for e in p.evidence} if p.coverage >= 0.5 else set()
            if not key & {c.rstrip(",;") for c in said}:
                continue
            n += 1
            others = [o.text for o in graded if o is not p]
            right += grader.locate(p.text, said, authored=True,
                                   others=others).rstrip(",;") in key
            ce_right += reader.locate(p.text, said, authored=True).rstrip(",;") in key
    return {"n": n, "quote_right": round(right / max(1, n), 3),
            "cross_encoder_reading_right": round(ce_right / max(1, n), 3)}


def _dev_fit(grader: SemanticGrader | None) -> dict[str, Any]:
    """The derived combination is fitted on the dev answers: its honest dev figure is the
    leave-one-question-out r of that fit."""
    report = MODEL_DIR / "calibration_report.json"
    if grader is None or not report.exists():
        return {}
    fit = json.loads(report.read_text())
    key = "dev_pearson_derived_leave_one_question_out"
    return {"fitted_on_this_set": {"leave_one_question_out_pearson_r": fit[key]}} if (
        key in fit) else {}


async def run(public_limit: int | None = None, model_limit: int = 0, *,
              test: bool = False, quick: bool = False) -> dict[str, Any]:
    bank = load_question_bank()
    agent = EvaluateAgent(RubricProvider(), bank=bank)
    agent.warm()  # as the server does at start-up: times are per answer, not per first answer
    timer = _Timer(agent)
    parts = (["cross-encoder"] if agent.grader else []) + (["relevance gate"] if agent.gate
                                                           else [])
    result: dict[str, Any] = {"bench": "grading", "grader": " + ".join(["rubric", *parts]),
                              "split": "test" if test else "dev"}
    if test:
        # The unseen questions alone: nothing else is measured on a --test run, so that it is
        # run for its figure (once per shipped change, logged), not as a dev loop.
        result["public_unseen"] = _public(timer, public_limit, test=True)
    else:
        result |= _in_house(bank, timer)
        result["public_dev"] = _public(timer, public_limit)
        if "all" in result["public_dev"]:
            result["public_dev"]["all"] |= _dev_fit(agent.grader)
        result["off_topic"] = _off_topic(bank, timer, draw_wide=not quick)
        if not quick:
            result["near_topic"] = _near_topic(bank, timer)
        result["word_salad"] = _word_salad(bank, timer)
        if agent.grader is not None:
            result["evidence_location"] = _evidence_location(bank, agent.grader)
    p50, p95 = percentile(timer.ms, 50), percentile(timer.ms, 95)
    result["ms_per_answer"] = {"p50": round(p50, 1) if p50 is not None else None,
                               "p95": round(p95, 1) if p95 is not None else None,
                               "n": len(timer.ms),
                               "by_set": {name: {"p50": round(percentile(ms, 50) or 0, 1),
                                                 "p95": round(percentile(ms, 95) or 0, 1),
                                                 "n": len(ms)}
                                          for name, ms in timer.by_section.items()}}
    result |= {"bank_questions": len(bank), "bank_topics": len(bank.topics)}
    if model_limit:
        from agents.providers.factory import make_provider
        from server.settings import get_settings

        s = get_settings()
        provider = make_provider(s.llm_provider, openai_base_url=s.openai_base_url,
                                 openai_api_key=s.openai_api_key, openai_model=s.openai_model,
                                 local_model_path=s.local_model_path)
        try:
            if provider.has_model:
                result["model_voter"] = await _model_figures(provider, bank, model_limit)
        finally:
            await provider.aclose()
    return result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="viva bench grading")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--public-limit", type=int, default=None,
                        help="grade at most N answers of each public set (evenly spread)")
    parser.add_argument("--quick", action="store_true",
                        help="leave out the wide off-topic draw (784 answers) and the "
                             "near-topic pairs (2,400): for tests")
    parser.add_argument("--test", action="store_true",
                        help="grade the public TEST split (unseen questions) instead of the "
                             "dev sets: once per shipped change, logged in "
                             "agents/grader_model/MODEL_CARD.md with its reason")
    parser.add_argument("--model-limit", type=int, default=0,
                        help="also measure the configured model's (VIVA_LLM_PROVIDER) "
                             "per-point judgement on the first N bank answers")
    args = parser.parse_args(argv)
    result = asyncio.run(run(args.public_limit, args.model_limit, test=args.test,
                             quick=args.quick))
    if not args.json:
        for key in ("bank_points", "reference_only", "public_dev", "public_unseen", "off_topic",
                    "near_topic", "word_salad",
                    "evidence_location", "ms_per_answer", "model_voter"):
            if key in result:
                print(f"{key}: {json.dumps(result[key])}")
    print(json.dumps(result))
    return 0
