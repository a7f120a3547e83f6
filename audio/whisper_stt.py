"""Whisper (faster-whisper / CTranslate2) recognizer tuned for short live clips.

faster-whisper's ``transcribe`` pads every clip to a 30 s window, so the encoder costs the
same ~0.6 s on 2 cores whether the clip lasts one second or thirty. For a live turn that
cost lands after the candidate stops talking. CTranslate2 accepts shorter windows, so this
recognizer pads the clip with silence to a 10 s window (or 1.5 s past a longer clip; a
``quick`` request: always just 1.5 s past the clip) and
decodes greedily with the interview's question and key terms as the prompt. Too short a
window costs words: on the dev split of real turns (181 clips, tiny.en) a 1.5 s pad gave
WER 9.9 %, a 6 s window 8.5 %, 8 s 7.6 %, 10 s 7.2 % and the full 30 s 7.3 %, with decode
p50 0.07, 0.08, 0.08, 0.09 and 0.34 s. The quick window's closing-mark probability is kept for
the end-of-turn signal: the fusion was fitted on it, and with the 10 s window the dev pauses
that read most finished scored higher still (fast share 0.46 instead of 0.63 at the cut-in
goal, ``viva bench turns``).

The same decode also says whether the speaker closed a sentence: the probability Whisper gives
to a full stop, question or exclamation mark right after the last word. Whisper learned
punctuation from human transcripts, with the prosody, so this reads sound and words together;
on real turns it separates finished answers from mid-sentence pauses better than Smart Turn or
the text model (``viva bench turns``). Reading it costs no extra decode.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import ctranslate2
import numpy as np
from faster_whisper import WhisperModel
from faster_whisper.tokenizer import Tokenizer
from faster_whisper.transcribe import get_suppressed_tokens

from audio.model_files import whisper_model_dir
from audio.pcm import STT_RATE
from audio.stt import Recognition, RecognitionRequest, SpeechRecognizer

TAIL_PAD_S = 1.5  # silence after the speech: the model expects a clip to end in quiet
MIN_WINDOW_S = 10.0  # shorter windows lose words (see above); longer ones cost time
MAX_WINDOW_S = 30.0  # Whisper's receptive field
NO_SPEECH_REJECT = 0.6  # with a weak log-probability: the clip held no words
TOKENS_PER_S = 6  # generous bound on speech rate; stops runaway repetition loops


class WhisperRecognizer(SpeechRecognizer):
    def __init__(self, model_dir: Path, *, name: str, cpu_threads: int = 2, workers: int = 1,
                 beam_size: int = 1, no_repeat_ngram_size: int = 0):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        self.name = name
        self.max_concurrency = workers
        self.beam_size = beam_size
        self.no_repeat_ngram_size = no_repeat_ngram_size
        self._model = WhisperModel(str(model_dir), device="cpu", compute_type="int8",
                                   cpu_threads=cpu_threads, num_workers=workers)
        multilingual = bool(self._model.model.is_multilingual)
        self._tokenizer = Tokenizer(self._model.hf_tokenizer, multilingual,
                                    task="transcribe", language="en")
        self._suppress = list(get_suppressed_tokens(self._tokenizer, (-1,)))
        self._max_prompt = self._model.max_length // 2 - 1
        self._closers = sentence_closers(self._tokenizer)

    @classmethod
    def load(cls, model: str = "tiny.en", *, cache_dir: Path | None = None,
             cpu_threads: int = 2, workers: int = 1) -> WhisperRecognizer:
        return cls(whisper_model_dir(model, cache_dir), name=model, cpu_threads=cpu_threads,
                   workers=workers)

    def _prompt(self, request: RecognitionRequest) -> list[int]:
        tok = self._tokenizer
        bias = request.bias
        previous: list[int] = []
        if bias.hotwords:
            previous += tok.encode(" " + ", ".join(bias.hotwords) + ".")
        if bias.context:
            previous += tok.encode(" " + bias.context.strip())
        if bias.prefix_text:
            previous += tok.encode(" " + bias.prefix_text.strip())
        prompt: list[int] = []
        if previous:
            # Keep the end: the words just said matter more than the start of the question.
            prompt = [tok.sot_prev, *previous[-self._max_prompt:]]
        return [*prompt, *tok.sot_sequence, tok.no_timestamps]

    def quick_is_full(self, audio_s: float) -> bool:
        # From 8.5 s of audio the quick window (clip + 1.5 s) is as long as the full one.
        return audio_s + TAIL_PAD_S >= MIN_WINDOW_S

    def _features(self, audio: np.ndarray, quick: bool) -> np.ndarray:
        window_s = len(audio) / STT_RATE + TAIL_PAD_S
        if not quick:
            window_s = max(window_s, MIN_WINDOW_S)
        padded_len = int(min(window_s, MAX_WINDOW_S) * STT_RATE)
        padded = np.zeros(padded_len, dtype=np.float32)
        clip = audio[:padded_len]
        padded[: len(clip)] = clip
        frames = padded_len // self._model.feature_extractor.hop_length
        features = self._model.feature_extractor(padded, padding=0)[:, :frames]
        return np.ascontiguousarray(features[None], dtype=np.float32)

    def recognize(self, request: RecognitionRequest) -> Recognition:
        started = time.perf_counter()
        audio = np.asarray(request.audio, dtype=np.float32)
        audio_s = len(audio) / STT_RATE
        if audio_s < 0.1:
            return Recognition("", audio_s, 0.0, 1.0, 0.0, rejected="too short")
        features = ctranslate2.StorageView.from_array(self._features(audio, request.quick))
        max_tokens = int(10 + min(audio_s, MAX_WINDOW_S) * TOKENS_PER_S)
        prompt = self._prompt(request)
        result = self._model.model.generate(
            features, [prompt], beam_size=self.beam_size,
            no_repeat_ngram_size=self.no_repeat_ngram_size,
            max_length=generation_limit(len(prompt), max_tokens),
            suppress_tokens=self._suppress,
            suppress_blank=True,
            return_scores=True, return_no_speech_prob=True, return_logits_vocab=True,
        )[0]
        ids = list(result.sequences_ids[0])
        tokens = [t for t in ids if t < self._tokenizer.eot]
        avg_logprob = float(result.scores[0]) / (len(tokens) + 1) if result.scores else 0.0
        text = self._tokenizer.decode(tokens).strip()
        decode_s = time.perf_counter() - started
        no_speech = float(result.no_speech_prob)
        rejected: str | None = None
        if no_speech > NO_SPEECH_REJECT and avg_logprob < -0.5:
            rejected, text = "no speech", ""
        else:
            # Short windows end in silence; tiny models sometimes "continue" by repeating
            # what they just heard. A trailing sentence already said is not new speech.
            text = drop_repeated_tail(text)
            if len(ids) >= max_tokens:
                # The decode ran to its cap, which speech never needs (6 tokens a second):
                # it looped past the end of the speech, often into a near-copy of the last
                # sentence that the repeat rules miss ("... standard issue. Police insisted
                # that they were a standard").
                text = drop_unclosed_tail(text)
        p_end = None
        if text and not rejected:
            steps = result.logits[0] if result.logits else []
            p_end = self._sentence_end(ids, steps, len(_words(text)))
        return Recognition(text, audio_s, decode_s, no_speech, avg_logprob, rejected, p_end)

    def _sentence_end(self, ids: list[int], steps: list[object], n_words: int) -> float | None:
        """P(sentence-closing punctuation) at the step after the text's last word: where the
        kept text ends (a decoder loop dropped by ``drop_repeated_tail`` comes later)."""
        at = word_end_step([self._tokenizer.decode([t]) if t < self._tokenizer.eot else ""
                            for t in ids], n_words)
        if at is None or at >= len(steps):
            return None
        logits = np.asarray(steps[at], dtype=np.float64)
        probs = np.exp(logits - logits.max())
        return float(probs[self._closers].sum() / probs.sum())


def generation_limit(prompt_tokens: int, new_tokens: int) -> int:
    """CTranslate2's ``max_length`` for a Whisper decode that may write ``new_tokens``.

    It counts the prompt, and it also stops at half of ``max_length`` (measured, tiny.en:
    max_length 40 gave 20 new tokens after an 8-token prompt and 15 after a 26-token one;
    80 gave 40 after either). ``len(prompt) + new_tokens`` alone therefore gave a short
    prompt about half its budget: a 10.8 s answer lost its last word and its closing mark.
    """
    return max(prompt_tokens + new_tokens, 2 * new_tokens)


def sentence_closers(tokenizer: Tokenizer) -> np.ndarray:
    """Token ids that open with a sentence's closing mark (". ? !"), not an ellipsis: "..."
    is how Whisper writes a voice trailing off, mid-thought."""
    ids = []
    for i in range(tokenizer.eot):
        piece = tokenizer.decode([i]).strip()
        if piece[:1] in (".", "?", "!") and not piece.startswith(".."):
            ids.append(i)
    return np.array(ids, dtype=np.int64)


def word_end_step(pieces: list[str], n_words: int) -> int | None:
    """Index of the step after the ``n_words``-th word (and its sub-word pieces) in a decoded
    sequence (it may be the step that ended the sequence, past ``ids``), or None when the
    sequence has fewer words."""
    text = ""
    for i, piece in enumerate(pieces):
        text += piece
        if len(_words(text)) < n_words:
            continue
        j = i + 1
        while j < len(pieces) and pieces[j][:1].isalnum():  # the word goes on: "Qu|il|ter"
            j += 1
        return j
    return None


def _words(text: str) -> list[str]:
    return "".join(c.lower() if c.isalnum() else " " for c in text).split()


def _contains(haystack: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return any(haystack[i:i + n] == needle for i in range(len(haystack) - n + 1))


def drop_repeated_tail(text: str) -> str:
    """Remove what a decoder loop appended: an immediately repeated run of words at the end,
    or a trailing fragment or sentence whose words were already said, in order."""
    tokens = _collapse_loops(text.split())
    while tokens:
        keys = [" ".join(_words(t)) for t in tokens]
        n = len(keys)
        cut = next((p for p in range(2, n // 2 + 1) if keys[n - 2 * p:n - p] == keys[n - p:]),
                   None)
        if cut is None:
            ends = [i for i, t in enumerate(tokens[:-1]) if t.endswith((".", "!", "?"))]
            if ends:
                tail = [k for k in keys[ends[-1] + 1:] if k]
                before = [k for k in keys[:ends[-1] + 1] if k]
                if _contains(before, tail) or (len(tail) >= 4 and (
                        _contains(before, tail[:-1]) or _contains(before, tail[1:]))):
                    cut = n - ends[-1] - 1
        if cut is None:
            cut = _echoed_tail(keys)
        if cut is None:
            break
        tokens = tokens[:n - cut]
    return " ".join(tokens)


def drop_unclosed_tail(text: str) -> str:
    """The text up to its last closing mark (". ? !", not an ellipsis), when a sentence
    closes before the end; otherwise the text as it is."""
    tokens = text.split()
    ends = [i for i, t in enumerate(tokens[:-1])
            if t.endswith((".", "!", "?")) and not t.endswith("..")]
    return " ".join(tokens[:ends[-1] + 1]) if ends else text


def _echoed_tail(keys: list[str], min_words: int = 3) -> int | None:
    """Length of a trailing run (≥ 3 words, its last word possibly cut short) that repeats
    words said earlier in the same clip: what a decoder loops into at the end of a window
    ("And so my fellow Americans ask not, and so my fellow")."""
    n = len(keys)
    for k in range(n // 2, min_words - 1, -1):
        tail = keys[n - k:]
        if not tail[-1]:
            continue
        for i in range(0, n - k):  # the earlier run may touch the tail: a loop
            if keys[i:i + k - 1] == tail[:-1] and keys[i + k - 1].startswith(tail[-1]):
                return k
    return None


def _collapse_loops(tokens: list[str]) -> list[str]:
    """Drop immediate repeats of a run of 3+ words anywhere ("X Y Z X Y Z" → "X Y Z")."""
    i = 0
    while i < len(tokens):
        keys = [" ".join(_words(t)) for t in tokens]
        for p in range((len(tokens) - i) // 2, 2, -1):
            if keys[i:i + p] == keys[i + p:i + 2 * p]:
                del tokens[i + p:i + 2 * p]
                break
        else:
            i += 1
    return tokens
