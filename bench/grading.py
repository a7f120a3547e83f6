"""``viva bench grading``: agreement of rubric scores with human labels.

Two labelled sets in tests/data: answers to bank questions (graded with the bank's authored
assessment points) and answers to questions outside the bank (graded from the reference
answer alone, as ``viva grade --batch`` does). Reports Pearson r, Spearman rho and mean
absolute error against the labels, plus how well right and wrong answers separate.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import time
from pathlib import Path
from typing import Any

from agents.batch_grading import BatchItem, grade_item
from agents.evaluate import EvaluateAgent
from agents.knowledge import KnowledgeAgent
from agents.providers.rubric import RubricProvider
from agents.question_bank import load_question_bank

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def pearson(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    cov = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    vx = math.sqrt(sum((x - mx) ** 2 for x in xs))
    vy = math.sqrt(sum((y - my) ** 2 for y in ys))
    return cov / (vx * vy) if vx and vy else 0.0


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


def figures(scores: list[float], labels: list[float]) -> dict[str, Any]:
    if len(scores) < 3:
        return {"n": len(scores)}
    good = [s for s, lab in zip(scores, labels, strict=True) if lab >= 0.7]
    bad = [s for s, lab in zip(scores, labels, strict=True) if lab <= 0.3]
    return {
        "n": len(scores),
        "pearson_r": round(pearson(scores, labels), 3),
        "spearman_rho": round(spearman(scores, labels), 3),
        "mae": round(sum(abs(s - lab) for s, lab in zip(scores, labels, strict=True))
                     / len(scores), 3),
        "mean_score_label_ge_0_7": round(sum(good) / len(good), 3) if good else None,
        "mean_score_label_le_0_3": round(sum(bad) / len(bad), 3) if bad else None,
    }


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def run() -> dict[str, Any]:
    bank = load_question_bank()
    agent = EvaluateAgent(RubricProvider())
    knowledge = KnowledgeAgent(bank)
    started = time.perf_counter()
    scores, labels = [], []
    for row in read_jsonl(DATA / "grading_labelled.jsonl"):
        q = bank.get(row["question_id"])
        ev = await agent.evaluate(q.text, row["answer"], knowledge.for_question(q))
        scores.append(ev.score)
        labels.append(float(row["label"]))
    ref_scores, ref_labels = [], []
    for row in read_jsonl(DATA / "grading_reference_only.jsonl"):
        ref_scores.append(await grade_item(agent, BatchItem.model_validate(row)))
        ref_labels.append(float(row["label"]))
    elapsed = time.perf_counter() - started
    n = len(scores) + len(ref_scores)
    return {
        "bench": "grading", "provider": "rubric",
        "bank_points": figures(scores, labels),
        "reference_only": figures(ref_scores, ref_labels),
        "ms_per_answer": round(1000 * elapsed / max(1, n), 2),
        "bank_questions": len(bank), "bank_topics": len(bank.topics),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="viva bench grading")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = asyncio.run(run())
    if not args.json:
        for key in ("bank_points", "reference_only"):
            print(f"{key}: {result[key]}")
        print(f"{result['ms_per_answer']} ms per answer; bank {result['bank_questions']} "
              f"questions over {result['bank_topics']} topics")
    print(json.dumps(result))
    return 0
