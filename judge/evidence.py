"""The evidence chain's text parts: the compact summary agents read (seed 003 §5.2) and the
diff of a revision against the previous one with a short summary of what changed."""

from __future__ import annotations

import difflib
import json
import re

from judge.models import SubmissionResult, Verdict

MAX_FIELD = 200
MAX_FAILED = 3
_DEFINITION = re.compile(
    r"^\s*(?:def|class|func|function|public|private|static|int|long|void|bool|auto|"
    r"std::\w+|vector<[^>]*>|string|double)\b[^=;]*?(\w+)\s*\(")


def _clip(text: str | None) -> str | None:
    if text is None:
        return None
    return text if len(text) <= MAX_FIELD else text[:MAX_FIELD] + "…"


def _quote(value: str | None) -> str:
    return "null" if value is None else json.dumps(_clip(value), ensure_ascii=False)


def evidence_text(result: SubmissionResult, *, reveal_hidden: bool) -> str:
    """``[Test Result] Passed: N/M Failed: [...]`` + ``Compile: ...`` (+ revision line)."""
    failed = [c for c in result.cases if c.verdict != Verdict.AC][:MAX_FAILED]
    rows = []
    for case in failed:
        secret = case.kind != "sample" and not reveal_hidden
        error = case.error or case.checker_message
        if case.verdict != Verdict.WA:
            error = f"{case.verdict.value}: {error}" if error else case.verdict.value
        if secret:
            rows.append(f"  {{case: {case.id} ({case.kind}), input: (hidden), expected: (hidden), "
                        f"actual: (hidden), error: {_quote(case.verdict.value)}}},")
        else:
            rows.append(f"  {{case: {case.id}, input: {_quote(case.input)}, "
                        f"expected: {_quote(case.expected)}, actual: {_quote(case.actual)}, "
                        f"error: {_quote(error)}}},")
    failed_part = "[\n" + "\n".join(rows) + "\n]" if rows else "[]"
    lines = [f"[Test Result] Passed: {result.passed}/{result.total} Failed: {failed_part}"]
    if result.compile.ok:
        lines.append("Compile: success")
    else:
        where = f" at line {result.compile.line}" if result.compile.line else ""
        lines.append(f"Compile: failed{where}: {result.compile.message or 'see the log'}")
    if result.error:
        lines.append(f"Judge error: {result.error}")
    if result.execution == "manual":
        lines.append("Execution: manual (not run; review the code)")
    if result.diff_summary:
        lines.append(f"Revision {result.revision}: {result.diff_summary}")
    return "\n".join(lines)


def _names(lines: list[str]) -> set[str]:
    names = set()
    for line in lines:
        match = _DEFINITION.match(line)
        if match:
            names.add(match.group(1))
    return names


def diff_against(previous: SubmissionResult | None, current: SubmissionResult
                 ) -> tuple[str | None, str]:
    """A unified diff against the previous revision and a one-line summary of the change."""
    progress = f"{current.verdict.value if current.verdict else 'no verdict'}, " \
               f"passed {current.passed}/{current.total}"
    if previous is None:
        return None, f"initial submission ({current.language}); {progress}"
    old, new = previous.code.splitlines(), current.code.splitlines()
    diff_lines = list(difflib.unified_diff(old, new, f"revision {previous.revision}",
                                           f"revision {current.revision}", lineterm="", n=2))
    added = [ln[1:] for ln in diff_lines if ln.startswith("+") and not ln.startswith("+++")]
    removed = [ln[1:] for ln in diff_lines if ln.startswith("-") and not ln.startswith("---")]
    parts = [f"+{len(added)}/-{len(removed)} lines"]
    if previous.language != current.language:
        parts.append(f"language {previous.language} -> {current.language}")
    touched = sorted(_names(added) | _names(removed))
    if touched:
        parts.append("touched " + ", ".join(touched[:5]))
    if not diff_lines:
        parts = ["no code change"]
    before = f"{previous.verdict.value if previous.verdict else '-'} " \
             f"{previous.passed}/{previous.total}"
    parts.append(f"{before} -> {progress}")
    return "\n".join(diff_lines) or None, "; ".join(parts)
