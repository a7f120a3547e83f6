"""The end-of-turn text model (realtime/text_turn_model.py) and its recipe
(scripts/train_text_turn_model.py): the shipped weights load offline and read the question;
the recipe's fit runs end to end on a tiny synthetic sample."""

from __future__ import annotations

import importlib.util
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from realtime.text_turn_model import (
    DEFAULT_PATH,
    HashedTextTurnModel,
    TextTurnModel,
    floor_holding,
    load_text_turn_model,
    question_info,
    words,
)

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "train_text_turn_model.py"
_spec = importlib.util.spec_from_file_location("train_text_turn_model", SCRIPT)
assert _spec and _spec.loader
recipe = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recipe)

EXPLAIN = "Explain how a hash table handles collisions."
YES_NO = "Have you used Redis?"
FINISHED = "it uses chaining so each bucket keeps a linked list of the entries"


@pytest.fixture(scope="module")
def model() -> TextTurnModel:
    return load_text_turn_model()


def test_the_shipped_weights_load_offline_from_the_repository(model: TextTurnModel) -> None:
    assert DEFAULT_PATH.is_file()
    assert isinstance(model, HashedTextTurnModel)
    assert model.name
    p = model.probability(EXPLAIN, FINISHED)
    assert 0.0 < p < 1.0
    report = json.loads((DEFAULT_PATH.parent / "report.json").read_text())
    assert report["test"]["all"]["auc"] > 0.8


@pytest.mark.parametrize("unfinished", [
    "so the reason is that", "um", "let me think", "so basically when two keys",
    "it uses chaining and", "give me a second", "uh let me see um",
])
def test_an_open_clause_a_filler_or_a_request_for_time_scores_below_a_finished_answer(
        model: TextTurnModel, unfinished: str) -> None:
    finished = model.probability(EXPLAIN, FINISHED)
    assert model.probability(EXPLAIN, unfinished) < finished
    assert model.probability(EXPLAIN, unfinished) < 0.5


def test_floor_holding_phrases_are_incomplete_whatever_the_question(
        model: TextTurnModel) -> None:
    for q in (EXPLAIN, YES_NO, "What is a deadlock?", "Tell me about your last project."):
        for text in ("let me think", "Hmm, let me think.", "Give me a second.", "hold on",
                     "so the first thing, let me think"):
            assert model.probability(q, text) < 0.05, (q, text)


def test_a_short_yes_reads_as_finished_after_a_yes_no_question_not_after_explain(
        model: TextTurnModel) -> None:
    for text in ("yes I have", "yes", "no I haven't"):
        assert model.probability(YES_NO, text) > model.probability(EXPLAIN, text), text


def test_punctuation_and_case_do_not_change_the_score(model: TextTurnModel) -> None:
    for q, a, b in [
        (EXPLAIN, "It uses chaining.", "it uses chaining"),
        (EXPLAIN, "So. The reason is, that", "so the reason is that"),
        (YES_NO, "Yes, I have!", "yes i have"),
        (YES_NO, "Um. Let me think...", "um let me think"),
    ]:
        assert model.probability(q, a) == model.probability(q, b)


def test_reading_the_question() -> None:
    assert question_info("Have you used Redis?").yes_no
    assert question_info("So, is it a tree or a graph?").kind == "is"
    assert not question_info("So, is it a tree or a graph?").yes_no
    assert question_info("Okay. Explain how a hash table works.").kind == "explain"
    assert question_info("How many bits are in a byte?").kind2 == "how many"
    assert words("I 'm sure it's O(n), isn't it?") == ["i'm", "sure", "it's", "o", "n",
                                                        "isn't", "it"]
    assert floor_holding(words("so the first thing, let me think, um"))
    assert not floor_holding(words("let me think about the cache first"))


def test_one_call_is_fast(model: TextTurnModel) -> None:
    text = "so basically when two keys hash to the same bucket we keep a list of them and"
    times = []
    for i in range(300):
        t0 = time.perf_counter()
        model.probability(EXPLAIN, text[: 20 + i % 60])
        times.append(time.perf_counter() - t0)
    assert statistics.median(times) < 0.005


def test_missing_or_mismatched_weights_fail_clearly(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="text turn model weights not found"):
        load_text_turn_model(tmp_path / "absent.npz")
    path = tmp_path / "old.npz"
    np.savez(path, weights=np.zeros(16, dtype=np.float16),
             meta=np.asarray(json.dumps({"feature_version": 0})))
    with pytest.raises(ValueError, match="feature version"):
        load_text_turn_model(path)


def test_transcript_labels_end_at_sentences_never_after_a_filler_or_a_restart() -> None:
    toks = recipe.tokens("Um . I think so , yeah . We could {disfmarker} we could use it")
    ws = [w for w, _ in toks]
    assert ws == ["um", "i", "think", "so", "yeah", "we", "could", "we", "could", "use", "it"]
    assert recipe._labels(toks, final_complete=False) == [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
    assert recipe._labels(toks, final_complete=True)[-1] == 1
    toks = recipe.tokens("I 'm not sure . It 's 3.5 GHz .")
    assert [w for w, _ in toks] == ["i'm", "not", "sure", "it's", "3", "5", "ghz"]
    assert recipe._labels(toks, final_complete=False) == [0, 0, 1, 0, 0, 0, 1]


def _segment(split: str, doc: str, question: str, text: str) -> dict[str, Any]:
    toks = recipe.tokens(text)
    return {"source": "saf" if doc.startswith("q") else "ami", "split": split, "doc": doc,
            "after_question": True, "question": question, "words": [w for w, _ in toks],
            "labels": recipe._labels(toks, final_complete=doc.startswith("q"))}


def test_the_recipe_fits_chooses_on_dev_and_reports_test_on_a_tiny_sample(
        tmp_path: Path) -> None:
    answers = ["it uses chaining so each bucket keeps a list", "yes I have .",
               "so the reason is that the keys collide and we probe the next slot",
               "um I think it is a tree", "no ."]
    segments = []
    for k in range(30):
        split = "train" if k < 20 else "dev" if k < 25 else "test"
        for i, a in enumerate(answers):
            q = YES_NO if i % 2 else EXPLAIN
            segments.append(_segment(split, f"q{k}", q, a))
            segments.append(_segment(split, f"m{k}", q, "Okay . " + a + " and then"))
    segments += recipe.floor_holding_segments(segments, recipe.random.Random(0), 0.5)
    data = tmp_path / "data"
    data.mkdir()
    (data / "segments.jsonl").write_text("".join(json.dumps(s) + "\n" for s in segments))
    dest = tmp_path / "model"
    assert recipe.main(["fit", "--data", str(data), "--dest", str(dest), "--dims", "4096",
                        "--l2", "1e-3", "1e-2", "--balance", "0", "1", "--iters", "30"]) == 0
    report = json.loads((dest / "report.json").read_text())
    assert len(report["grid"]) == 4
    assert report["chosen"]["l2"] in (1e-3, 1e-2)
    assert report["test"]["all"]["prefixes"] > 0
    assert report["test"]["all"]["auc"] > 0.7
    fitted = load_text_turn_model(dest / "weights.npz")
    assert fitted.probability(EXPLAIN, "so the reason is that") < fitted.probability(
        EXPLAIN, "it uses chaining so each bucket keeps a list")


def test_l_bfgs_matches_a_known_logistic_fit() -> None:
    rng = np.random.default_rng(0)
    n, dim = 4000, 8
    idx = rng.integers(0, dim, size=(n, 3))
    true_w = np.linspace(-2, 2, dim)
    z = true_w[idx].sum(axis=1)
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(np.float64)
    rows = np.repeat(np.arange(n, dtype=np.int32), 3)
    w = recipe.fit_logistic(idx.ravel().astype(np.int32), rows, y, np.ones(n), dim, 1e-6,
                            iters=200)
    assert np.allclose(w - w.mean(), true_w - true_w.mean(), atol=0.25)
