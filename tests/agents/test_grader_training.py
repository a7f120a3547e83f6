"""The grader's training data recipe (``scripts/train_grader.py``): the augmentation that
pairs an answer with other students' fully correct answers as references. Pure Python, no
torch: these are the rules a retrained model's data rests on."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "train_grader.py"
_spec = importlib.util.spec_from_file_location("train_grader", SCRIPT)
assert _spec and _spec.loader
train_grader = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train_grader)


def _row(qid: str, answer: str, label: float) -> dict[str, Any]:
    return {"question_id": qid, "answer": answer, "label": label,
            "references": [f"reference of {qid}"]}


ROWS = [
    _row("q1", "the bulb is in a closed path", 1.0),
    _row("q1", "there is a closed path through the bulb", 1.0),
    _row("q1", "the battery is big", 0.0),
    _row("q1", "ok", 1.0),  # too short to stand as a reference
    _row("q2", "voltage is zero across the gap", 1.0),
    _row("q2", "because of the gap", 0.5),
]


def test_peer_references_come_from_the_same_question_and_are_fully_correct() -> None:
    pairs = train_grader._peer_references(ROWS, random.Random(0), 3.0)
    correct = {r["answer"]: r["question_id"] for r in ROWS
               if r["label"] >= 0.99 and len(r["answer"].split()) >= 3}
    question_of = {r["answer"]: r["question_id"] for r in ROWS}
    label_of = {r["answer"]: r["label"] for r in ROWS}
    assert pairs
    for reference, answer, label in pairs:
        assert reference in correct, "only a fully correct answer of 3+ words is a reference"
        assert correct[reference] == question_of[answer], "a peer answers the same question"
        assert reference != answer, "an answer is never its own reference"
        assert label == label_of[answer], "the answer keeps its own label"
    # Every q1 answer has a correct peer; "voltage is zero ..." is q2's only correct answer,
    # so it gets none, while the partly right q2 answer is paired with it.
    answered = {a for _, a, _ in pairs}
    assert "voltage is zero across the gap" not in answered
    assert "because of the gap" in answered and "the battery is big" in answered


def test_a_share_above_one_gives_several_peers_and_zero_gives_none() -> None:
    assert train_grader._peer_references(ROWS, random.Random(0), 0.0) == []
    pairs = train_grader._peer_references(ROWS, random.Random(0), 2.0)
    per_answer: dict[str, int] = {}
    for _, a, _ in pairs:
        per_answer[a] = per_answer.get(a, 0) + 1
    assert per_answer["the battery is big"] == 2


def test_feature_selection_leaves_out_a_feature_that_only_fits_its_own_questions() -> None:
    # Column 1 carries the labels on every question; column 2 is tied to the labels only
    # through a per-question offset that a fit on the other questions cannot know: it lowers
    # the held-out r, so backward elimination by held-out questions drops it.
    import numpy as np

    rng = np.random.default_rng(3)
    groups = np.repeat(np.arange(12), 20)
    y = rng.uniform(0, 1, len(groups))
    signal = np.clip(y + rng.normal(0, 0.15, len(y)), 0, 1)
    offset = rng.choice([-0.8, 0.8], 12)[groups]
    spurious = np.clip(0.5 + offset * (y - 0.5) + rng.normal(0, 0.1, len(y)), 0, 1)
    x = np.column_stack([np.ones(len(y)), signal, spurious])
    scored = np.ones(len(y), dtype=bool)
    kept, trail = train_grader._select_features(x, y, groups, scored, [0, 1, 2])
    assert kept == [0, 1]
    assert trail[-1] > trail[0]
    # The informative column alone is never left out.
    kept, _ = train_grader._select_features(x[:, :2], y, groups, scored, [0, 1])
    assert kept == [0, 1]


def _git_repo(root: Path, files: dict[str, str]) -> Path:
    """A git repository holding ``files`` in one commit (the mirrors are read with git show)."""
    import subprocess

    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"}
    for cmd in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "data"]):
        subprocess.run(["git", "-C", str(root), *cmd], check=True, env=env)
    return root / ".git"


def test_calibrate_and_fluency_each_rewrite_only_their_part_of_the_report(
        tmp_path: Path) -> None:
    import json

    write = train_grader._write_report
    write(tmp_path, {"dev_pearson_derived": 0.6, "stale": 1})
    write(tmp_path, {"fluency": {"dev_salad_flagged": 0.9}})  # the fluency command
    report = json.loads((tmp_path / "calibration_report.json").read_text())
    assert report == {"dev_pearson_derived": 0.6, "stale": 1,
                      "fluency": {"dev_salad_flagged": 0.9}}
    write(tmp_path, {"dev_pearson_derived": 0.7}, keep=("fluency",))  # calibrate again
    report = json.loads((tmp_path / "calibration_report.json").read_text())
    assert report == {"dev_pearson_derived": 0.7, "fluency": {"dev_salad_flagged": 0.9}}


def test_the_nested_figure_chooses_features_and_weights_without_the_scored_question(
) -> None:
    """Each question is predicted by a fit on the others: a feature that carries the label
    reads it on every question, and one that is only noise reads nothing."""
    import numpy as np

    rng = np.random.default_rng(3)
    signal, noise = rng.uniform(0, 1, 240), rng.uniform(0, 1, 240)
    y = 0.2 + 0.6 * signal
    groups = np.repeat(np.arange(8), 30).astype(str)
    scored = np.ones(240, dtype=bool)
    ones = np.ones(240)
    told = train_grader._held_out_r(np.column_stack([ones, signal, noise]), y, groups, scored,
                                    [0, 1, 2], select=True)
    blind = train_grader._held_out_r(np.column_stack([ones, noise]), y, groups, scored, [0, 1],
                                     select=True)
    assert told > 0.99 and abs(blind) < 0.3
