"""The coding round: opening it, talk while coding, and the interviewer's words about each
judge result. Rules in code, wording from ``bank/coding_round.yaml``.

The engine owns the steps (load → apply → commit); this module gives it the pure parts: what
to change on the state and which events and words come out. A judge result is read from its
public view (what the candidate saw), so the interviewer never mentions a hidden test's data.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from pathlib import Path
from typing import Any, Literal, Protocol

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from agents.approach import COVERED, PointGrade, area_of, missing_point
from agents.code_evidence import (
    clip,
    fault_words,
    first_difference,
    sample_name,
    size_var,
    size_words,
)
from agents.code_reading import follow_ups, read_code
from agents.coding_hints import asks_for_hint, spoken_hint
from agents.coding_score import coding_score, tier_counts
from agents.coding_talk import ComplexityTalk, has_log_factor
from agents.orchestrator import transition
from agents.state import InterviewState, Phase, Turn
from core.events import CodingTaskEvent, FeedbackEvent, FeedbackKind, QuestionEvent, wire

DEFAULT_WORDING = Path(__file__).resolve().parent.parent / "bank" / "coding_round.yaml"
Verdicts = Literal["WA", "TLE", "MLE", "RE", "OLE", "IE"]


class ComplexityWording(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    again: str
    wait: str
    right: str
    wrong: str
    explain: str
    better: str
    unmeasured: str
    none: str


class HintWording(BaseModel):
    """A hint from the problem's ladder: ``{a}`` is "a" for the first, then "another"."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    asked: str
    idle: str
    none_left: str


class CodingWording(BaseModel):
    """The coding round's authored sentences (``bank/coding_round.yaml``), checked on load."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    intro: str
    talk_noted: str
    accepted: dict[Literal["run", "submit"], str]
    accepted_again: str
    compile_error: str
    compile_error_unnamed: str
    tally: str
    sample_wrong: str
    sample_crash: str
    sample_exit: str
    sample_other: str
    test_failed: str
    verdict_words: dict[Verdicts, str]
    advice: dict[Verdicts, str]
    sample_tle_advice: str
    internal_error: str
    labels: dict[Literal["run", "submit"], str]
    complexity: ComplexityWording
    hints: HintWording
    # A follow-up on an assessment point the talk has not covered, by the point's area
    # (agents/approach.py): it names the area, never the point.
    approach: dict[Literal["cost", "edge", "mechanism"], str]
    wrap_up: str


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _with_advice(sentence: str, advice: str | None) -> str:
    """'A hidden test crashes.' + 'which input could break it?' → one sentence."""
    if not advice:
        return sentence
    end = "" if advice[-1:] in ".?!" else "."
    return f"{sentence.rstrip('.')}: {advice}{end}"


class WordingError(Exception):
    """The wording file is missing or invalid; the message names the file."""


def load_wording(path: Path = DEFAULT_WORDING) -> CodingWording:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        return CodingWording.model_validate(raw)
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise WordingError(f"{path}: invalid coding round wording: {exc}") from exc


def wording_for(bank_dir: Path) -> CodingWording:
    """The bank's own ``coding_round.yaml``, else the one shipped with Viva."""
    own = bank_dir / "coding_round.yaml"
    return load_wording(own if own.is_file() else DEFAULT_WORDING)


class CodingPort(Protocol):
    """What the engine needs from the judge (wired by the server)."""

    async def pick_problem(self, difficulty: str, exclude: list[str]) -> dict[str, Any] | None:
        """A ``coding_task`` payload: problem_id, title, statement, templates, samples; and
        ``hints``, the problem's hint ladder, and ``points``, its assessment points
        ([{id, text}]), which the engine keeps and never sends."""
        ...


class Said:
    """What a coding-round step adds: wire events and the interviewer's words."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.spoken: list[str] = []
        self.speak_turn_id: str | None = None


class CodingRound:
    def __init__(self, wording: CodingWording | None = None):
        self.wording = wording or load_wording()
        self.complexity = ComplexityTalk(self.wording)

    def open(self, state: InterviewState, task: dict[str, Any], t_ms: int, said: Said) -> None:
        """Move to the coding phase with ``task`` (a ``coding_task`` payload)."""
        transition(state, Phase.coding)
        # The ladder stays in the state (server-side); only a hint given is said or shown.
        task = dict(task)
        state.coding_hints = [str(h) for h in task.pop("hints", None) or []]
        state.coding_points = [{"id": str(p["id"]), "text": str(p["text"])}
                               for p in task.pop("points", None) or []]
        state.coding_problem_id = str(task["problem_id"])
        state.coding_problem = {k: str(task[k]) for k in ("title", "statement", "input_format")
                                if task.get(k)}
        text = self.wording.intro.format(title=task["title"])
        turn = Turn(turn_id=secrets.token_hex(6), question_id=state.coding_problem_id,
                    phase=Phase.coding, text=text, topic="coding",
                    difficulty=state.difficulty, asked_t_ms=t_ms)
        state.turns.append(turn)
        state.current_turn_id = turn.turn_id
        said.events.append(wire(CodingTaskEvent.model_validate(task)))
        said.events.append(wire(QuestionEvent(text=text, question_id=state.coding_problem_id,
                                              phase="coding", turn_id=turn.turn_id)))
        said.spoken.append(text)
        said.speak_turn_id = turn.turn_id

    def talk(self, state: InterviewState, turn: Turn, t_ms: int, said: Said) -> bool:
        """The candidate spoke or typed during the coding round (the part of the turn's
        answer not yet responded to). True when the round is over (the engine wraps up)."""
        talk = state.coding_talk
        answer = turn.answer or ""
        text, talk.heard = answer[talk.heard:].strip(), len(answer)
        talk.last_activity_ms = t_ms
        if talk.stage in ("complexity", "explain"):
            spoken, over = self.complexity.hear(talk, text)
        elif talk.stage == "solving" and asks_for_hint(text):
            self.hint(state, t_ms, said, asked=True)
            return False
        else:
            spoken, over = [self.wording.talk_noted], False
        self._say(said, spoken, turn_id=turn.turn_id)
        return over

    def hint(self, state: InterviewState, t_ms: int, said: Said, *, asked: bool) -> bool:
        """The next hint of the ladder, while the candidate is solving: ``asked`` for it, or
        offered after a silence without edits. An exhausted ladder is said plainly when
        asked (no hint is repeated) and says nothing unasked. False: nothing said."""
        talk = state.coding_talk
        if state.phase != Phase.coding or talk.stage != "solving":
            return False
        turn_id = state.current_turn_id
        if talk.hints_used >= len(state.coding_hints):
            if asked:
                self._say(said, [self.wording.hints.none_left], turn_id=turn_id)
            return asked
        hint = state.coding_hints[talk.hints_used].strip()
        template = self.wording.hints.asked if asked else self.wording.hints.idle
        a = "a" if talk.hints_used == 0 else "another"
        talk.hints_used += 1
        talk.hint_t_ms.append(t_ms)
        # The room shows the hint as authored; the voice says its notation in words.
        said.events.append(wire(FeedbackEvent(kind="guidance", text=template.format(
            a=a, hint=hint), turn_id=turn_id)))
        said.spoken.append(template.format(a=a, hint=spoken_hint(hint)))
        return True

    def on_complexity(self, state: InterviewState, event: dict[str, Any], said: Said) -> bool:
        """The judge timed the accepted code (``complexity_measured``); True: round over."""
        talk = state.coding_talk
        if state.phase != Phase.coding or event.get("submission_id") != talk.accepted_submission:
            return False
        spoken, over = self.complexity.measured(talk, event)
        self._say(said, spoken, submission_id=talk.accepted_submission)
        return over

    @staticmethod
    def _say(said: Said, spoken: list[str], **where: Any) -> None:
        for text in spoken:
            said.events.append(wire(FeedbackEvent(kind="comment", text=text, **where)))
            said.spoken.append(text)

    def on_result(self, state: InterviewState, result: dict[str, Any], t_ms: int,
                  said: Said) -> bool:
        """Record a finished submission and speak about it, once per submission. False when
        there is nothing to say (not coding any more, or already discussed)."""
        sub_id = str(result.get("submission_id"))
        if state.phase != Phase.coding:
            return False
        if any(a.get("submission_id") == sub_id for a in state.coding_attempts):
            return False
        kind = str(result.get("kind", "submit"))
        state.coding_attempts.append({
            "submission_id": sub_id, "kind": kind, "verdict": result.get("verdict"),
            "passed": result.get("passed", 0), "total": result.get("total", 0), "t_ms": t_ms,
            "tiers": tier_counts(list(result.get("cases") or []))})
        talk = state.coding_talk
        accepted = kind == "submit" and result.get("verdict") == "AC"
        fb_kind, text = self.feedback(result, kind, state.coding_problem)
        if accepted and talk.stage != "solving":
            text = self.wording.accepted_again.format(total=result.get("total", 0))
        said.events.append(wire(FeedbackEvent(kind=fb_kind, text=text, submission_id=sub_id)))
        said.spoken.append(text)
        if accepted and talk.stage == "solving":
            # The complexity talk is the follow-up now: the code is measured (the judge's
            # complexity_measured event) and the candidate's claim checked against it.
            talk.stage, talk.accepted_submission = "complexity", sub_id
            facts = read_code(str(result.get("code") or ""), str(result.get("language") or ""))
            talk.log_factor = has_log_factor(str(result.get("code") or ""), facts)
            return True
        if talk.stage != "solving":
            return True
        question = self.code_question(state, result) or self.approach_question(state)
        if question is not None:
            state.coding_attempts[-1]["code_question"] = question
            said.events.append(wire(FeedbackEvent(kind="guidance", text=question,
                                                  submission_id=sub_id)))
            said.spoken.append(question)
        return True

    def approach_question(self, state: InterviewState) -> str | None:
        """After a run (the candidate is not typing): once a round, a question about an
        assessment point their talk has not covered, by its area alone."""
        talk = state.coding_talk
        if talk.followed_up or not state.coding_points:
            return None
        point = missing_point(state.coding_points, talk.points, talk.followed_up)
        if point is None:
            return None
        talk.followed_up.append(point["id"])
        return self.wording.approach[area_of(point["text"])]

    @staticmethod
    def heard_approach(state: InterviewState, grades: list[PointGrade], t_ms: int) -> None:
        """Keep each point's best coverage by the round's talk, with the clause that showed it
        and when."""
        talk = state.coding_talk
        for g in grades:
            if g.coverage > talk.points.get(g.point_id, 0.0):
                talk.points[g.point_id] = g.coverage
                if g.quote and g.coverage >= COVERED:
                    talk.point_quotes[g.point_id] = {"quote": g.quote, "t_ms": t_ms}

    @staticmethod
    def code_question(state: InterviewState, result: dict[str, Any]) -> str | None:
        """One question from reading the code, after an accepted or wrong result: the natural
        moment (the candidate has just run it, not typing). At most one per revision of the
        code (a run and a submit of the same code are one), never one already asked."""
        code, language = result.get("code"), result.get("language")
        if not code or not language:
            return None
        digest = hashlib.sha256(str(code).encode()).hexdigest()[:16]
        attempts = state.coding_attempts
        seen = any(a.get("code_sha") == digest for a in attempts)
        if attempts:
            attempts[-1]["code_sha"] = digest
        if seen or result.get("verdict") not in {"AC", "WA"}:
            return None
        asked = {a.get("code_question") for a in attempts}
        questions = follow_ups(read_code(str(code), str(language)), state.coding_problem,
                               limit=5)
        return next((q for q in questions if q not in asked), None)

    def feedback(self, result: dict[str, Any], kind: str,
                 problem: dict[str, str] | None = None) -> tuple[FeedbackKind, str]:
        """Evidence, then a suggestion, about a judge result, from its public view: at most
        two sentences. ``problem`` is the problem's public text (names its size variable)."""
        w = self.wording
        verdict = str(result.get("verdict"))
        passed, total = int(result.get("passed") or 0), int(result.get("total") or 0)
        run_or_submit: Literal["run", "submit"] = "run" if kind == "run" else "submit"
        if verdict == "AC":
            return "comment", w.accepted[run_or_submit].format(total=total)
        if verdict == "CE":
            return "correction", self._compile_error(result.get("compile") or {})
        if verdict == "IE":
            return "guidance", w.internal_error
        tally = w.tally.format(passed=passed, total=total, label=w.labels[run_or_submit])
        cases = list(result.get("cases") or [])
        failing = next((c for c in cases if c.get("verdict") != "AC"), None)
        evidence = self._case_words(failing, cases, result, problem or {}) if failing else ""
        kind_out: FeedbackKind = "guidance" if passed and passed >= total / 2 else "correction"
        return kind_out, f"{tally} {evidence}".strip()

    def _compile_error(self, compile_info: dict[str, Any]) -> str:
        w = self.wording
        message = str(compile_info.get("message") or "").strip()
        message = re.sub(r"^(?:\S+:\d+(?::\d+)?:\s*)?(?:fatal )?error:\s*", "", message)
        message = re.sub(r"^(?:SyntaxError|IndentationError|TabError):\s*", "", message)
        if not message:
            log = str(compile_info.get("log", "")).strip().splitlines()
            message = log[0] if log else w.compile_error_unnamed
        line = compile_info.get("line")
        return w.compile_error.format(where=f"line {line}, " if line else "",
                                      message=clip(message, 100).rstrip("."))

    def _case_words(self, case: dict[str, Any], cases: list[dict[str, Any]],
                    result: dict[str, Any], problem: dict[str, str]) -> str:
        w = self.wording
        verdict = str(case.get("verdict"))
        if case.get("kind") != "sample":
            size = size_words(case.get("input_size"), size_var(problem.get("input_format")))
            advice = w.advice.get(verdict)  # type: ignore[call-overload]
            text = w.test_failed.format(kind=case.get("kind", "hidden"),
                                        with_size=f" with {size}" if size else "",
                                        verdict=w.verdict_words.get(verdict, verdict))  # type: ignore[call-overload]
            return _with_advice(text, advice)
        samples = [c for c in cases if c.get("kind") == "sample"]
        name = sample_name(str(case.get("id", "")), samples.index(case) + 1)
        if verdict == "WA" and case.get("expected") is not None:
            difference = first_difference(str(case["expected"]), str(case.get("actual") or ""))
            if difference:
                return w.sample_wrong.format(sample=name, difference=difference)
        fault = case.get("fault")
        if verdict == "RE" and fault:
            template = w.sample_exit if fault.get("kind") == "exit" else w.sample_crash
            return _capital(template.format(sample=name,
                                            fault=fault_words(fault, result.get("code"))))
        text = w.sample_other.format(sample=name,
                                     verdict=w.verdict_words.get(verdict, verdict))  # type: ignore[call-overload]
        advice = w.sample_tle_advice if verdict == "TLE" else None
        return _capital(_with_advice(text, advice))

    @staticmethod
    def summary(state: InterviewState) -> dict[str, Any] | None:
        """The coding part of the report: attempts, the last submit's verdict, the round's
        score and its parts (agents/coding_score.py), the complexity talk and hints."""
        if not state.coding_problem_id:
            return None
        talk = state.coding_talk
        submits = [a for a in state.coding_attempts if a.get("kind") == "submit"]
        last = submits[-1] if submits else None
        # Approach: the mean coverage over all the problem's points (a point never talked
        # about counts 0) once the candidate said anything; nothing said: no approach part.
        ids = [p["id"] for p in state.coding_points] or list(talk.points)
        approach = (round(sum(talk.points.get(i, 0.0) for i in ids) / len(ids), 3)
                    if ids and talk.points else None)
        score = coding_score(state.coding_attempts, approach=approach,
                             complexity=talk.complexity_score, hints_used=talk.hints_used)
        return {"problem_id": state.coding_problem_id, "attempts": len(state.coding_attempts),
                "submissions": state.coding_attempts,
                "final_verdict": last.get("verdict") if last else None,
                "score": score.score, "score_parts": score.model_dump(),
                "complexity": {"claim": talk.claim, "claimed": talk.claimed,
                               "measured": talk.measured, "reference": talk.reference},
                "hints_used": talk.hints_used, "hint_t_ms": talk.hint_t_ms,
                # The points are the problem's rubric: their text is in the report only
                # once the interview has ended, as model answers are (a live report, which
                # the candidate may read, counts them).
                "approach_points": [
                    {"id": p["id"], "text": p["text"] if state.phase == Phase.ended else None,
                     "coverage": talk.points.get(p["id"], 0.0),
                     "covered": talk.points.get(p["id"], 0.0) >= COVERED,
                     **(talk.point_quotes.get(p["id"]) or {})}
                    for p in state.coding_points],
                "followed_up": talk.followed_up}
