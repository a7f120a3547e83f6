"""Train the end-of-turn text model (realtime/text_turn_model.py), plain numpy.

    python scripts/train_text_turn_model.py prepare --mirrors ROOT --out DATA
    python scripts/train_text_turn_model.py fit --data DATA --dest realtime/text_turn_model

``prepare`` reads three public repositories from git mirrors (``ROOT/<owner>+<name>/repo`` or
``ROOT/<owner>+<name>``, bare git dirs as the search tool's ``fetch`` lays them out; nothing is
downloaded) and writes answer segments: the question, the answer's words (lower-cased, no
punctuation) and, for each word, whether a cut right after it is the end of a sentence or turn
(1), anywhere else (0), or not an example (-1, words of a synthetic prefix before its end):

- Yale-LILY/QMSum (MIT): AMI and ICSI meeting transcripts (CC BY 4.0), spoken, with fillers,
  restarts and the transcribers' punctuation; each speaker turn is an answer to the previous
  speaker's last sentence. The committee (parliament) transcripts are not used.
- myrosia/semeval-2013-task7 (CC BY-SA 3.0): Beetle and SciEntsBank questions with students'
  written answers.
- SebOchs/SAF (MIT): English communication-networks questions and students' answers.

Splits are by document or question, never by prefix: QMSum's own meeting split (train / val ->
dev / test); SemEval's ``test-unseen-questions`` and SAF's ``unseen_questions`` -> test (the
questions of ``tests/data/public``), the remaining questions -> train, 15 % of them (by a hash
of the question id) -> dev. The UNT / Mohler "Texas" data is not read.

``fit`` expands every segment into its prefixes, hashes their features, fits an L2 logistic
regression by L-BFGS on train for each setting of a small grid, chooses the setting with the
best dev log loss, and reports that one model on test once (``report.json``, ``weights.npz``).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import re
import sys
import time
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT, ROOT / "scripts"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from git_mirrors import git_dir, head, ls, show  # noqa: E402

from realtime.text_turn_model import (  # noqa: E402
    FEATURE_VERSION,
    FILLERS,
    FLOOR_HOLDING,
    feature_names,
    question_info,
    words,
)

DEV_SHARE = 0.15
SEED = 13
QMSUM = "Yale-LILY+QMSum"
SEMEVAL = "myrosia+semeval-2013-task7"
SAF = "SebOchs+SAF"
# AMI (ES, IS, TS, EN) and ICSI (B..) meetings; QMSum's committee transcripts are left out.
MEETING = re.compile(r"^(ES|IS|TS|EN)\d{4}[a-d]$|^B[a-z]{2}\d{3}$")
_BRACE = re.compile(r"^\{[a-z]+\}$")
_SENTENCE_END = re.compile(r"[.?!]+[\"')\]]*$")


# ----------------------------------------------------------------------------- prepare

def _is_dev(key: str) -> bool:
    h = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16)
    return h / 0xFFFFFFFF < DEV_SHARE


def tokens(text: str) -> list[tuple[str, str]]:
    """(word, mark) for each word of a transcript: mark "end" when a sentence ends after the
    word, "cut" when the transcriber marked a disfluent break ({disfmarker}), else ""."""
    out: list[tuple[str, str]] = []
    text = re.sub(r"\s+('(?:s|m|re|ve|ll|d)\b|n't\b)", r"\1", text.replace("\u2019", "'"))
    for tok in text.split():
        if _BRACE.match(tok.lower()):
            if tok.lower() == "{disfmarker}" and out:
                out[-1] = (out[-1][0], "cut")
            continue
        ws = words(tok)
        out.extend((w, "") for w in ws)
        if out and _SENTENCE_END.search(tok) and not re.search(r"\d\.\d", tok):
            if out[-1][1] == "":
                out[-1] = (out[-1][0], "end")
    return out


def _labels(toks: list[tuple[str, str]], *, final_complete: bool) -> list[int]:
    labels = [1 if mark == "end" else 0 for _, mark in toks]
    if final_complete and toks:
        labels[-1] = 1
    for i, (w, _) in enumerate(toks):
        if w in FILLERS:  # a cut after "um" is never the end, whatever the full stop says
            labels[i] = 0
    return labels


def _last_sentence(text: str) -> str:
    """The last sentence of a turn that has a word other than a filler, braces removed."""
    text = re.sub(r"\{[a-z]+\}", " ", text)
    parts = [p for p in re.split(r"(?<=[.?!])\s+", text.strip())
             if any(w not in FILLERS for w in words(p))]
    return parts[-1] if parts else ""


def _qmsum(git_dir: Path) -> Iterator[dict[str, Any]]:
    names = ls(git_dir, "HEAD", "data/ALL")
    for name in sorted(names):
        m = re.match(r"data/ALL/(train|val|test)/(.+)\.json$", name)
        if not m or not MEETING.match(m.group(2)):
            continue
        split = {"train": "train", "val": "dev", "test": "test"}[m.group(1)]
        doc = m.group(2)
        source = "icsi" if doc.startswith("B") else "ami"
        turns = json.loads(show(git_dir, "HEAD", name))["meeting_transcripts"]
        prev_speaker, prev_text = None, ""
        for turn in turns:
            content, speaker = turn.get("content") or "", turn.get("speaker")
            toks = tokens(content)
            if not toks:
                continue
            question = _last_sentence(prev_text) if speaker != prev_speaker else ""
            yield {"source": source, "split": split, "doc": doc,
                   "after_question": question.rstrip().endswith("?"),
                   "question": question, "words": [w for w, _ in toks],
                   "labels": _labels(toks, final_complete=False)}
            if speaker != prev_speaker:
                prev_speaker, prev_text = speaker, content
            else:
                prev_text = prev_text + " " + content


def _qa_segment(source: str, split: str, qid: str, question: str,
                answer: str) -> dict[str, Any] | None:
    toks = tokens(answer)
    if not toks:
        return None
    return {"source": source, "split": split, "doc": qid, "after_question": True,
            "question": question, "words": [w for w, _ in toks],
            "labels": _labels(toks, final_complete=True)}


def _clean(text: str | None) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def _semeval(git_dir: Path) -> Iterator[dict[str, Any]]:
    archive = zipfile.ZipFile(io.BytesIO(show(git_dir, "HEAD", "semeval-3way.zip")))
    for name in sorted(archive.namelist()):
        if not name.endswith(".xml") or "/3way/" not in name:
            continue
        corpus = "beetle" if "/beetle/" in name else "scientsbank"
        root = ET.fromstring(archive.read(name))
        qid = f"semeval-{corpus}-{root.get('id')}"
        split = "test" if "unseen-questions" in name else ("dev" if _is_dev(qid) else "train")
        question = _clean(root.findtext("questionText"))
        answers = root.find("studentAnswers")
        for a in answers if answers is not None else []:
            seg = _qa_segment(f"semeval-{corpus}", split, qid, question, _clean(a.text))
            if seg:
                yield seg


def _saf(git_dir: Path) -> Iterator[dict[str, Any]]:
    names = ls(git_dir, "HEAD")
    for name in sorted(names):
        if not (name.startswith("data/") and "/english/" in name and name.endswith(".xml")):
            continue
        root = ET.fromstring(show(git_dir, "HEAD", name))
        qid = f"saf-{root.get('id')}"
        split = ("test" if "/unseen_questions/" in name else
                 "dev" if _is_dev(qid) else "train")
        question = _clean(root.findtext("questionText"))
        for a in root.iter("studentAnswer"):
            seg = _qa_segment("saf", split, qid, question, _clean(a.findtext("response")))
            if seg:
                yield seg


def floor_holding_segments(segments: list[dict[str, Any]], rng: random.Random,
                           share: float) -> list[dict[str, Any]]:
    """Synthetic prefixes that end in a floor-holding phrase ("let me think"), label 0.

    The start of a real answer (0-6 words), then the phrase, maybe a filler: the speaker
    asks for time, so the answer goes on. Only the prefix ending at the phrase is an example.
    """
    out: list[dict[str, Any]] = []
    for seg in segments:
        if not seg["after_question"] or rng.random() >= share:
            continue
        k = rng.choice([0, 0, 0, 1, 2, 3, 4, 6])
        head = list(seg["words"][:k])
        if k and max(seg["labels"][:k]) == 1:
            head = []
        phrase = words(rng.choice(FLOOR_HOLDING))
        if rng.random() < 0.3:
            phrase = [rng.choice(["um", "uh", "okay", "so", "hmm"])] + phrase
        tail = [rng.choice(["um", "uh"])] if rng.random() < 0.2 else []
        ws = head + phrase + tail
        out.append({"source": "floor-holding", "split": seg["split"], "doc": seg["doc"],
                    "after_question": True, "question": seg["question"], "words": ws,
                    "labels": [-1] * (len(ws) - 1) + [0]})
    return out


def prepare(args: argparse.Namespace) -> None:
    mirrors = Path(args.mirrors)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    dirs = {n: git_dir(mirrors, n) for n in (QMSUM, SEMEVAL, SAF)}
    segments = [*_qmsum(dirs[QMSUM]), *_semeval(dirs[SEMEVAL]), *_saf(dirs[SAF])]
    segments += floor_holding_segments(segments, random.Random(SEED), args.floor_share)
    with (out / "segments.jsonl").open("w") as f:
        for seg in segments:
            f.write(json.dumps(seg) + "\n")
    summary: dict[str, Any] = {
        "sources": {n.replace("+", "/"): head(d) for n, d in dirs.items()},
        "floor_share": args.floor_share, "counts": _counts(segments)}
    (out / "sources.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


def _counts(segments: Iterable[dict[str, Any]]) -> dict[str, Any]:
    counts: dict[str, Any] = {}
    for seg in segments:
        c = counts.setdefault(seg["split"], {}).setdefault(
            seg["source"], {"segments": 0, "docs": set(), "complete": 0, "incomplete": 0})
        c["segments"] += 1
        c["docs"].add(seg["doc"])
        c["complete"] += sum(1 for v in seg["labels"] if v == 1)
        c["incomplete"] += sum(1 for v in seg["labels"] if v == 0)
    for split in counts.values():
        for c in split.values():
            c["docs"] = len(c["docs"])
    return counts


# ----------------------------------------------------------------------------- fit

class Examples:
    """Prefixes as a sparse 0/1 matrix (rows of crc32 feature hashes) with labels."""

    def __init__(self, segments: list[dict[str, Any]], names: Callable[..., list[str]]) -> None:
        import zlib
        cache: dict[str, int] = {}
        hashes: list[int] = []
        ptr = [0]
        y: list[int] = []
        groups: list[str] = []
        for seg in segments:
            info = question_info(seg["question"])
            ws = seg["words"]
            for i, label in enumerate(seg["labels"]):
                if label < 0:
                    continue
                for f in names(info, ws[:i + 1]):
                    h = cache.get(f)
                    if h is None:
                        h = cache[f] = zlib.crc32(f.encode())
                    hashes.append(h)
                ptr.append(len(hashes))
                y.append(label)
                groups.append(seg["source"] + ("" if seg["source"] not in ("ami", "icsi")
                                               or not seg["after_question"] else "+q"))
        self.hashes = np.asarray(hashes, dtype=np.uint32)
        bounds = np.asarray(ptr, dtype=np.int64)
        lens = bounds[1:] - bounds[:-1]
        self.rows = np.repeat(np.arange(len(y), dtype=np.int32), lens)
        self.y = np.asarray(y, dtype=np.float64)
        self.groups = np.asarray(groups)
        self.n = len(y)

    def indices(self, dim: int) -> np.ndarray:
        return (self.hashes % np.uint32(dim)).astype(np.int32)


def _logits(idx: np.ndarray, rows: np.ndarray, n: int, w: np.ndarray) -> np.ndarray:
    return np.bincount(rows, weights=w[idx], minlength=n)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def fit_logistic(idx: np.ndarray, rows: np.ndarray, y: np.ndarray, sw: np.ndarray, dim: int,
                 l2: float, *, iters: int = 200, memory: int = 10,
                 tol: float = 1e-6) -> np.ndarray:
    """Weighted L2 logistic regression on a 0/1 sparse matrix, by L-BFGS."""
    n = y.size
    total = float(sw.sum())

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = _logits(idx, rows, n, w)
        # log(1 + e^z) - y z, stable
        loss = float(np.dot(sw, np.logaddexp(0.0, z) - y * z)) / total
        g_rows = sw * (_sigmoid(z) - y) / total
        grad = np.bincount(idx, weights=g_rows[rows], minlength=dim)
        return loss + 0.5 * l2 * float(w @ w), grad + l2 * w

    w = np.zeros(dim)
    f, g = objective(w)
    s_hist: list[np.ndarray] = []
    y_hist: list[np.ndarray] = []
    for _ in range(iters):
        q = g.copy()
        alphas = []
        for s, yv in zip(reversed(s_hist), reversed(y_hist), strict=True):
            a = float(s @ q) / float(yv @ s)
            alphas.append(a)
            q -= a * yv
        if s_hist:
            q *= float(s_hist[-1] @ y_hist[-1]) / float(y_hist[-1] @ y_hist[-1])
        for (s, yv), a in zip(zip(s_hist, y_hist, strict=True), reversed(alphas), strict=True):
            b = float(yv @ q) / float(yv @ s)
            q += (a - b) * s
        d = -q
        slope = float(g @ d)
        if slope >= 0:
            d, slope = -g, -float(g @ g)
            s_hist, y_hist = [], []
        step = 1.0 if s_hist else 1.0 / max(1e-12, float(np.sqrt(g @ g)))
        while True:
            w_new = w + step * d
            f_new, g_new = objective(w_new)
            if f_new <= f + 1e-4 * step * slope or step < 1e-10:
                break
            step *= 0.5
        s, yv = w_new - w, g_new - g
        if float(s @ yv) > 1e-12:
            s_hist.append(s)
            y_hist.append(yv)
            if len(s_hist) > memory:
                s_hist.pop(0)
                y_hist.pop(0)
        converged = abs(f - f_new) <= tol * max(1.0, abs(f))
        w, f, g = w_new, f_new, g_new
        if converged:
            break
    return w


def auc(y: np.ndarray, p: np.ndarray) -> float:
    pos = int(y.sum())
    neg = y.size - pos
    if pos == 0 or neg == 0:
        return float("nan")
    order = np.argsort(p, kind="mergesort")
    ranks = np.empty(p.size)
    sorted_p = p[order]
    # average ranks over ties
    uniq, start, counts = np.unique(sorted_p, return_index=True, return_counts=True)
    avg = start + (counts - 1) / 2.0 + 1.0
    ranks[order] = np.repeat(avg, counts)
    return float((ranks[y == 1].sum() - pos * (pos + 1) / 2.0) / (pos * neg))


def metrics(y: np.ndarray, p: np.ndarray) -> dict[str, Any]:
    p = np.clip(p, 1e-7, 1 - 1e-7)
    pos = y == 1
    return {
        "prefixes": int(y.size), "complete": int(pos.sum()),
        "auc": round(auc(y, p), 4),
        "accuracy": round(float(np.mean((p >= 0.5) == pos)), 4),
        "log_loss": round(float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))), 4),
        "complete_scored_ge_0.5": round(float(np.mean(p[pos] >= 0.5)), 4) if pos.any() else None,
        "incomplete_scored_ge_0.5": (round(float(np.mean(p[~pos] >= 0.5)), 4)
                                     if (~pos).any() else None),
        "base_rate": round(float(pos.mean()), 4),
    }


def _group_family(g: str) -> str:
    if g.startswith("semeval") or g == "saf":
        return "qa"
    return g


def evaluate(ex: Examples, p: np.ndarray) -> dict[str, Any]:
    out: dict[str, Any] = {}
    natural = ex.groups != "floor-holding"
    out["all"] = metrics(ex.y[natural], p[natural])
    for g in sorted(set(ex.groups.tolist())):
        m = ex.groups == g
        out[g] = metrics(ex.y[m], p[m])
    fam = np.asarray([_group_family(g) for g in ex.groups.tolist()])
    for f in ("qa",):
        m = fam == f
        if m.any():
            out[f] = metrics(ex.y[m], p[m])
    meet = np.isin(ex.groups, ["ami", "icsi", "ami+q", "icsi+q"])
    if meet.any():
        out["meetings"] = metrics(ex.y[meet], p[meet])
    return out


def _dev_score(report: dict[str, Any]) -> float:
    """Mean log loss over the families (meetings, answers after a question, QA answers,
    floor-holding), so the largest source does not decide alone."""
    keys = [k for k in ("meetings", "ami+q", "qa", "floor-holding") if k in report]
    return float(np.mean([report[k]["log_loss"] for k in keys]))


def _sample_weights(ex: Examples, balance: bool) -> np.ndarray:
    sw = np.ones(ex.n)
    if not balance:
        return sw
    fam = np.asarray(["meetings" if g in ("ami", "icsi", "ami+q", "icsi+q")
                      else _group_family(g) for g in ex.groups.tolist()])
    for f in set(fam.tolist()):
        m = fam == f
        sw[m] = ex.n / (len(set(fam.tolist())) * m.sum())
    return sw


def fit(args: argparse.Namespace) -> None:
    t0 = time.time()
    data = Path(args.data)
    segments = [json.loads(line) for line in (data / "segments.jsonl").open()]
    by_split = {s: [g for g in segments if g["split"] == s] for s in ("train", "dev", "test")}
    if not by_split["train"] or not by_split["dev"]:
        raise SystemExit("fit needs train and dev segments")
    ex = {s: Examples(v, feature_names) for s, v in by_split.items() if v}
    print("prefixes: " + ", ".join(f"{s} {e.n}" for s, e in ex.items()),
          f"({time.time() - t0:.0f} s)", flush=True)
    grid = [(dim, l2, bal) for dim in args.dims for l2 in args.l2 for bal in args.balance]
    trials = []
    best: tuple[float, Any, np.ndarray] | None = None
    for dim, l2, bal in grid:
        t1 = time.time()
        tr = ex["train"]
        idx = tr.indices(dim)
        w = fit_logistic(idx, tr.rows, tr.y, _sample_weights(tr, bal), dim, l2,
                         iters=args.iters)
        w = w.astype(np.float16).astype(np.float64)  # as shipped
        dv = ex["dev"]
        p = _sigmoid(_logits(dv.indices(dim), dv.rows, dv.n, w))
        rep = evaluate(dv, p)
        score = _dev_score(rep)
        trials.append({"dim": dim, "l2": l2, "balance": bal, "dev_score": round(score, 4),
                       "dev": rep, "seconds": round(time.time() - t1, 1)})
        print(f"dim {dim} l2 {l2:g} balance {bal}: dev score {score:.4f} "
              f"auc {rep['all']['auc']} ({time.time() - t1:.0f} s)", flush=True)
        if best is None or score < best[0]:
            best = (score, (dim, l2, bal), w)
    assert best is not None
    _, (dim, l2, bal), w = best
    report: dict[str, Any] = {
        "feature_version": FEATURE_VERSION,
        "chosen": {"dim": dim, "l2": l2, "balance": bal},
        "train": {"prefixes": ex["train"].n, "counts": _counts(by_split["train"])},
        "dev": next(t["dev"] for t in trials
                    if (t["dim"], t["l2"], t["balance"]) == (dim, l2, bal)),
        "grid": [{k: v for k, v in t.items() if k != "dev"} for t in trials],
    }
    if "test" in ex:
        te = ex["test"]
        report["test"] = evaluate(te, _sigmoid(_logits(te.indices(dim), te.rows, te.n, w)))
        report["test_counts"] = _counts(by_split["test"])
    sources = data / "sources.json"
    if sources.is_file():
        report["sources"] = json.loads(sources.read_text())["sources"]
    report["fit_seconds"] = round(time.time() - t0, 1)
    dest = Path(args.dest)
    dest.mkdir(parents=True, exist_ok=True)
    meta = {"name": "hashed-text-turn-v1", "feature_version": FEATURE_VERSION, "dim": dim,
            "l2": l2, "balance": bal}
    np.savez_compressed(dest / "weights.npz", weights=w.astype(np.float16),
                        meta=np.asarray(json.dumps(meta)))
    (dest / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: report[k] for k in ("chosen", "fit_seconds")}, indent=2))
    if "test" in report:
        print(json.dumps(report["test"]["all"], indent=2))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare", help="answer segments from the git mirrors")
    p.add_argument("--mirrors", default="/work/.mirror",
                   help="folder of mirrors laid out as <owner>+<name>/repo")
    p.add_argument("--out", required=True)
    p.add_argument("--floor-share", type=float, default=0.1,
                   help="share of answers that also give a synthetic floor-holding prefix")
    p = sub.add_parser("fit", help="fit on train, choose on dev, report test")
    p.add_argument("--data", required=True)
    p.add_argument("--dest", default=str(ROOT / "realtime" / "text_turn_model"))
    p.add_argument("--dims", type=int, nargs="+", default=[1 << 16, 1 << 17])
    p.add_argument("--l2", type=float, nargs="+", default=[1e-5, 2e-5])
    p.add_argument("--balance", type=int, nargs="+", default=[1],
                   help="1: each source family weighs the same in the loss")
    p.add_argument("--iters", type=int, default=150)
    args = ap.parse_args(argv)
    {"prepare": prepare, "fit": fit}[args.cmd](args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
