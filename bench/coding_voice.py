"""``viva bench coding_voice``: one coding round spoken end to end, as a transcript.

The real stack (a private Redis, ``viva serve`` with the real judge, Whisper and Piper) runs
a voice interview whose only round is coding. A scripted candidate talks into the live
microphone (Piper speech, streamed in real time) and uses the editor's messages:
1. asks for a hint out loud;
2. runs the problem's wrong solution on the samples (a wrong answer);
3. submits the reference with an off-by-one read added (a crash);
4. submits the reference (accepted), and the judge times it;
5. claims, out loud, a complexity the timing contradicts ("quadratic");
6. says it is done.
The transcript (who said what, verdicts, the timing) is written as Markdown (``--out``) and
checked for what issue 22 asks of the interviewer: it gives a hint, names the failing line
of the wrong answer, names the crash's exception and line, and checks the claim against the
measured growth. With ``--json`` the last stdout line is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audio.sample_speech import SpeechMaker
from bench.local_stack import app_server, private_redis
from bench.voice import VoiceClient
from judge.problems import ProblemRegistry

ROOT = Path(__file__).resolve().parent.parent
HINT_ASK = "Can I get a hint, please?"
CLAIM = "I think my solution is quadratic, so O of n squared."
DONE = "I think that is all I have. Thank you."
# An off-by-one read after the input's length is parsed: an IndexError on its own line.
_LENGTH_LINE = re.compile(r"^(\s*)n = int\(data\[0\]\)\s*$")
BUGGY_LINE = "last = int(data[n + 1])  # the last value"


def with_off_by_one(reference: str) -> tuple[str, int] | None:
    """``reference`` with a read one past the end added after ``n = int(data[0])``; the
    line number of the bug (1-based), or None when the program has no such line."""
    lines = reference.splitlines()
    for i, line in enumerate(lines):
        match = _LENGTH_LINE.match(line)
        if match:
            lines.insert(i + 1, match.group(1) + BUGGY_LINE)
            return "\n".join(lines) + "\n", i + 2
    return None


@dataclass
class Transcript:
    started: float = field(default_factory=time.monotonic)
    lines: list[tuple[float, str, str]] = field(default_factory=list)

    def add(self, who: str, text: str) -> None:
        self.lines.append((time.monotonic() - self.started, who, text))

    def markdown(self, title: str) -> str:
        out = [f"# A spoken coding round: {title}", "",
               "| t (s) | who | what |", "|---:|---|---|"]
        for t, who, text in self.lines:
            out.append(f"| {t:.1f} | {who} | {text.replace('|', '/')} |")
        return "\n".join(out) + "\n"


class Candidate:
    """The scripted candidate: listens to everything, speaks into the live microphone."""

    def __init__(self, client: VoiceClient, maker: SpeechMaker, transcript: Transcript):
        self.client, self.maker, self.transcript = client, maker, transcript
        self.played_until = 0.0
        self._audio_bytes = 0
        self._first_audio: float | None = None
        self._rate = 22050
        self.speaking = False

    async def until(self, kind: str, within_s: float = 120.0,
                    match: str | None = None) -> dict[str, Any]:
        """Read events (noting each in the transcript) until one of ``kind`` (whose text
        contains ``match``, if given) arrives."""
        deadline = time.monotonic() + within_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {kind} event within {within_s:.0f} s")
            at, item = await asyncio.wait_for(self.client.events.get(), left)
            if isinstance(item, bytes):
                self._first_audio = self._first_audio or at
                self._audio_bytes += len(item)
                continue
            self._note(at, item)
            if item.get("type") == kind and (match is None or match in item.get("text", "")):
                return item

    def _note(self, at: float, e: dict[str, Any]) -> None:
        kind = e.get("type")
        if kind == "tts_start":
            self.speaking = True
            self._rate, self._audio_bytes, self._first_audio = (
                int(e.get("sample_rate", 22050)), 0, None)
        elif kind in ("tts_end", "tts_stop"):
            self.speaking = False
            self.played_until = (self._first_audio or at) + self._audio_bytes / 2 / self._rate
        elif kind in ("question", "feedback"):
            self.transcript.add(f"Interviewer ({kind})", e["text"])
        elif kind == "transcript_final":
            self.transcript.add("Candidate (heard)", e["text"])
        elif kind == "coding_task":
            self.transcript.add("Room", f"problem: {e['title']} ({e['problem_id']})")
        elif kind == "judge_result":
            self.transcript.add("Judge", f"{e['verdict']}: {e['passed']} of {e['total']} "
                                         f"tests ({e.get('kind', 'submit')})")
        elif kind == "complexity_measured":
            self.transcript.add("Judge", f"timing: {e['status']}, growth exponent "
                                         f"{e.get('exponent')}, time ratio when n doubles "
                                         f"{e.get('ratio')}; the reference is "
                                         f"{e.get('reference_class')}")
        elif kind == "error":
            self.transcript.add("Error", f"{e.get('code')}: {e.get('message')}")

    async def heard_out(self) -> None:
        """Wait until the interviewer's speech has been played, then a breath."""
        if not self.speaking:
            try:  # what was just shown is about to be spoken
                await self.until("tts_start", within_s=3)
            except TimeoutError:
                return
        await self.until("tts_end")
        await asyncio.sleep(max(0.0, self.played_until - time.monotonic()) + 0.5)

    async def say(self, text: str) -> None:
        assert self.client.mic is not None
        self.transcript.add("Candidate (says)", text)
        pcm = await asyncio.to_thread(self.maker.speech, text)
        await self.client.mic.say(pcm)

    async def submit(self, pid: str, code: str, kind: str, what: str) -> dict[str, Any]:
        self.transcript.add("Candidate (editor)", f"{kind}: {what}")
        await self.client.send({"type": "code_change", "problem_id": pid,
                                "language": "python", "code": code})
        await self.client.send({"type": "submit", "problem_id": pid, "language": "python",
                                "code": code, "kind": kind})
        return await self.until("judge_result", within_s=180)


async def spoken_round(base_url: str, transcript: Transcript) -> dict[str, Any]:
    # Loaded before the microphone starts: loading blocks this process for seconds.
    registry = ProblemRegistry.from_bank(ROOT / "bank")
    maker = SpeechMaker()
    await asyncio.to_thread(maker.speech, HINT_ASK)
    client = VoiceClient(base_url)
    await client.open(max_questions=2, rounds=("coding",))
    me = Candidate(client, maker, transcript)
    checks: dict[str, Any] = {}
    try:
        task = await me.until("coding_task")
        pid = task["problem_id"]
        problem = registry.get(pid)
        assert problem is not None
        solutions = ROOT / "bank" / "problems" / pid / "solutions"
        await me.until("question")
        await me.heard_out()

        await me.say(HINT_ASK)
        heard = await me.until("transcript_final", within_s=30)
        checks["hint_asked_heard"] = "hint" in heard["text"].lower()
        hint = await me.until("feedback", match=problem.hints[0], within_s=30)
        checks["hint_given"] = bool(hint)
        await me.heard_out()

        wrong = await me.submit(pid, (solutions / "wrong.py").read_text(), "run",
                                "the first try (wrong.py), on the samples")
        said = (await me.until("feedback"))["text"]
        checks["wrong_answer"] = wrong["verdict"]
        # "On sample 3, line 2: you print 7, expected 9" (the line when the output has
        # several), or "your output stops after 2 lines, 3 expected".
        checks["wrong_answer_named"] = (wrong["verdict"] != "WA" or bool(
            re.search(r"you print .+ expected|stops after", said)))
        await me.heard_out()

        buggy = with_off_by_one((solutions / "reference.py").read_text())
        if buggy is not None:
            code, line = buggy
            crash = await me.submit(pid, code, "submit",
                                    f"a read past the end on line {line}")
            said = (await me.until("feedback"))["text"]
            checks["crash"] = crash["verdict"]
            checks["bug_named"] = "IndexError" in said and f"line {line}" in said
            await me.heard_out()

        accepted = await me.submit(pid, (solutions / "reference.py").read_text(), "submit",
                                   "the fixed solution")
        await me.until("feedback")  # the verdict, and the question about complexity
        timing = await me.until("complexity_measured", within_s=120)
        await me.heard_out()
        checks["accepted"] = accepted["verdict"]
        checks["timing"] = timing["status"]

        await me.say(CLAIM)
        said = (await me.until("feedback"))["text"]
        # The claim as the interviewer heard it, against the measured class.
        checks["claim_checked"] = (said.startswith("You said n squared; your time ")
                                   if timing["status"] == "measured" else None)
        await me.heard_out()
        await me.say(DONE)
        try:
            await me.until("session_end", within_s=90)
            checks["ended"] = True
        except TimeoutError:
            checks["ended"] = False
    finally:
        await client.close()
    checks["problem"] = pid
    return checks


async def bench(args: argparse.Namespace) -> tuple[Transcript, dict[str, Any]]:
    transcript = Transcript()
    with private_redis() as redis_url, app_server(redis_url, VIVA_ENV="test") as base_url:
        try:
            checks = await spoken_round(base_url, transcript)
        finally:
            if not args.json:
                print(transcript.markdown("(so far)"), file=sys.stderr)
    return transcript, checks


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="viva bench coding_voice")
    parser.add_argument("--out", default="var/coding-voice-transcript.md")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    transcript, checks = asyncio.run(bench(args))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(transcript.markdown(checks["problem"]), encoding="utf-8")
    wanted = ("hint_given", "hint_asked_heard", "wrong_answer_named", "bug_named",
              "claim_checked")
    result = {"bench": "coding_voice", **checks, "transcript": str(out),
              "all_shown": all(checks.get(k) is not False for k in wanted)}
    print(json.dumps(result))
    return 0 if result["all_shown"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
