"""Calibrate the relevance gate's near-topic margins (``agents/relevance.py``) on dev data.

    PYTHONPATH=. python scripts/calibrate_near_topic.py [--json]

Dev data only: the bank's own questions (each answered with the reference answer of every
other question of the same or a neighbouring topic, ``bench.grading.near_topic_pairs``, and
its labelled answers, ``tests/data/grading_labelled.jsonl``) and the public dev split
(``tests/data/public_dev``: each right answer's margin over the other questions of its data
set, the questions described by their text and reference answer). The public test split and
the UNT/Mohler data are never read: a ``SplitGuard`` over ``tests/data/public`` fails the run
if anything opened it.

For each margin it prints the share of near-topic pairs still credited >= 0.5 and the labelled
answers it would cap (with the in-house r after capping), for technical and open questions
apart. The pairs are graded once with the near-topic rules off; the caps are then applied to
those grades, as ``agents.evaluate.judge`` applies the gate. For open questions it also
prints the grader's contrast (``relevance.OPEN_CONTRAST_BY``: the answer graded as the answer
to the nearest other open question, minus its grade here) at each contrast margin, together
with the shipped embedder margin.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.split_guard import SplitGuard  # noqa: E402

GUARD = SplitGuard().install()

from agents import evaluate, relevance  # noqa: E402
from agents.evaluate import OFF_TOPIC_CAP, EvaluateAgent  # noqa: E402
from agents.knowledge import KnowledgeAgent  # noqa: E402
from agents.providers.rubric import RubricProvider  # noqa: E402
from agents.question_bank import load_question_bank  # noqa: E402
from bench.grading import DATA, DEV_SPLIT, NEAR_TOPIC_PASS, near_topic_pairs, read_jsonl  # noqa: E402
from bench.stats import pearson  # noqa: E402

MARGINS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
CONTRASTS = (0.1, 0.15, 0.2, 0.25, 0.3)
SHIPPED_OPEN_MARGIN = relevance.OPEN_NEAR_TOPIC_BY


def _graded(kind: str, asked: str, answer: str, agent: EvaluateAgent,
            knowledge: KnowledgeAgent, label: float | None = None) -> dict[str, Any]:
    """One grading with the gate's verdict, as ``EvaluateAgent.judge`` makes it."""
    bank = agent.bank
    assert bank is not None
    q = bank.get(asked)
    j = agent.judge(q.text, answer, knowledge.for_question(q))
    assert j.gate is not None  # a bank question: the gate always answers
    return {"kind": kind, "open": q.topic.value in relevance.OPEN_TOPICS, "label": label,
            "score": j.score, "margin": j.gate.kind_margin,
            "contrast": agent.story_contrast(answer, q.id, j.score, j.gate)}


def _public_dev(embed: Any) -> dict[str, Any]:
    """Right answers of the public dev split: how many sit nearer another question of their
    data set by more than each margin (a cap there would be a wrong one)."""
    out: dict[str, Any] = {}
    for path in sorted(DEV_SPLIT.glob("*.jsonl")):
        rows = read_jsonl(path)
        described: dict[str, str] = {}
        for r in rows:
            described.setdefault(r["question_id"], r["question"] + " " + r["reference_answer"])
        qids = sorted(described)
        matrix = np.stack([embed(described[q]) for q in qids])
        top = max(float(r["label"]) for r in rows)
        margins = []
        for r in rows:
            if float(r["label"]) < 0.5 * top:
                continue
            sims = matrix @ embed(r["answer"])
            i = qids.index(r["question_id"])
            own = float(sims[i])
            sims[i] = -2.0
            margins.append(float(sims.max()) - own)
        out[path.stem] = {"right_answers": len(margins), "capped_share": {
            str(m): round(float(np.mean(np.array(margins) > m)), 4) for m in MARGINS}}
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="calibrate_near_topic")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    bank = load_question_bank()
    agent = EvaluateAgent(RubricProvider(), bank=bank)
    agent.warm()
    knowledge = KnowledgeAgent(bank)
    # Grade with the near-topic rules off: the margins are applied below.
    relevance.NEAR_TOPIC_BY = relevance.OPEN_NEAR_TOPIC_BY = float("inf")
    evaluate.OPEN_CONTRAST_BY = float("inf")
    rows = [_graded("pair", q.id, o.reference_answer, agent, knowledge)
            for q, o in near_topic_pairs(bank)]
    rows += [_graded("labelled", r["question_id"], r["answer"], agent, knowledge,
                     float(r["label"])) for r in read_jsonl(DATA / "grading_labelled.jsonl")]
    labelled = [r for r in rows if r["kind"] == "labelled"]
    labels = [r["label"] for r in labelled]
    result: dict[str, Any] = {"in_house_r_without": round(pearson(
        [r["score"] for r in labelled], labels), 4), "margins": []}
    for m in MARGINS:
        def capped(r: dict[str, Any], m: float = m) -> float:
            return min(r["score"], OFF_TOPIC_CAP) if r["margin"] > m else r["score"]

        line: dict[str, Any] = {"margin": m}
        for kind, is_open in (("technical", False), ("open", True)):
            pairs = [r for r in rows if r["kind"] == "pair" and r["open"] == is_open]
            lab = [r for r in labelled if r["open"] == is_open]
            line[kind] = {
                "pairs": len(pairs),
                "credited_before": round(sum(r["score"] >= NEAR_TOPIC_PASS for r in pairs)
                                         / max(1, len(pairs)), 4),
                "credited_after": round(sum(capped(r) >= NEAR_TOPIC_PASS for r in pairs)
                                        / max(1, len(pairs)), 4),
                "labelled_capped": sum(r["margin"] > m for r in lab),
                "labelled_right_capped": sum(r["margin"] > m and r["label"] >= 0.5
                                             for r in lab)}
        line["in_house_r_if_both_at_this_margin"] = round(pearson(
            [capped(r) for r in labelled], labels), 4)
        result["margins"].append(line)
    result["open_contrast"] = []
    pairs = [r for r in rows if r["kind"] == "pair" and r["open"]]
    lab = [r for r in labelled if r["open"]]
    for c in CONTRASTS:
        def cut(r: dict[str, Any], c: float = c) -> bool:
            return r["margin"] > SHIPPED_OPEN_MARGIN or (
                r["contrast"] is not None and r["score"] > OFF_TOPIC_CAP
                and r["contrast"] > c)

        result["open_contrast"].append({
            "contrast": c, "embedder_margin": SHIPPED_OPEN_MARGIN, "pairs": len(pairs),
            "credited_after": round(sum((min(r["score"], OFF_TOPIC_CAP) if cut(r) else
                                         r["score"]) >= NEAR_TOPIC_PASS for r in pairs)
                                    / max(1, len(pairs)), 4),
            "labelled_capped": sum(cut(r) for r in lab),
            "labelled_right_capped": sum(cut(r) and r["label"] >= 0.5 for r in lab)})
    assert agent.gate is not None
    result["public_dev"] = _public_dev(agent.gate.embedder.embed)
    if GUARD.reads:
        raise SystemExit(f"the public test split was read: {GUARD.reads}")
    if args.json:
        print(json.dumps(result))
    else:
        print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
