"""A judge result's evidence in an interviewer's words: the crash and the candidate's line,
the first line where a sample's output differs, the size of the input a hidden test failed
on. Reads the public view only (samples carry their data; hidden and performance cases a
verdict and a rounded size), so nothing here can say a hidden test's data.

Everything returned is speakable: no reprs, no escape sequences, no ids read out, short.
"""

from __future__ import annotations

import re
from typing import Any

MAX_VALUE = 30  # characters of a printed value read out
MAX_CODE = 60  # characters of a quoted source line
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_ESCAPES = re.compile(r"\\[nrt0\\]")
_SIZE_VAR = re.compile(r"^\s*(?:first line(?: contains)?|one integer|the first line(?: has)?)"
                       r"[:\s]+([a-z])\b", re.IGNORECASE)


def speakable(text: str) -> str:
    """One line of plain words: control characters and escape sequences become spaces."""
    text = _CONTROL.sub(" ", _ESCAPES.sub(" ", text))
    return " ".join(text.split())


def clip(text: str, limit: int = MAX_VALUE) -> str:
    text = speakable(text)
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def article(phrase: str) -> str:
    """'a ZeroDivisionError', 'an IndexError' (signals are named in words first)."""
    starts_vowel = phrase[:1].lower() in "aeiou" and not phrase.lower().startswith(("uni", "use"))
    return ("an " if starts_vowel else "a ") + phrase


def sample_name(case_id: str, position: int) -> str:
    """'sample 2' for id 'sample-2' (or for the second sample when the id has no number)."""
    digits = re.findall(r"\d+", case_id)
    return f"sample {digits[-1] if digits else position}"


def size_var(input_format: str | None) -> str:
    """The name the problem gives its first number ('n', 't'), from its input format."""
    match = _SIZE_VAR.match(input_format or "")
    return match.group(1) if match else "n"


def size_words(size: dict[str, Any] | None, var: str = "n") -> str:
    """'n = 50', 'n about 200,000' (a rounded public size), or '' when the size is unknown."""
    if not size or size.get("n") is None:
        return ""
    n = int(size["n"])
    return f"{var} about {n:,}" if size.get("rounded") else f"{var} = {n:,}"


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def first_difference(expected: str, actual: str) -> str | None:
    """Where the output first differs, in words: 'line 2: you print 7, expected 9'."""
    want, got = _lines(expected), _lines(actual)
    if want == got:
        return None
    if not got:
        return f"your program prints nothing; expected {clip(want[0]) if want else 'nothing'}"
    for index, (a, b) in enumerate(zip(want, got, strict=False)):
        if a != b:
            where = f"line {index + 1}" if len(want) > 1 or len(got) > 1 else "the output"
            ta, tb = a.split(), b.split()
            if len(a) > MAX_VALUE and len(ta) > 1 and len(tb) > 1:
                at = next((i for i, (x, y) in enumerate(zip(ta, tb, strict=False)) if x != y),
                          min(len(ta), len(tb)))
                if at < min(len(ta), len(tb)):
                    return (f"{where}, value {at + 1}: you print {clip(tb[at])}, "
                            f"expected {clip(ta[at])}")
                return (f"{where}: you print {_plural(len(tb), 'value')}, "
                        f"expected {len(ta)}")
            return f"{where}: you print {clip(b) or 'an empty line'}, expected {clip(a)}"
    if len(got) < len(want):
        return (f"your output stops after {_plural(len(got), 'line')}, "
                f"{len(want)} expected")
    return f"you print {_plural(len(got), 'line')}, {len(want)} expected"


def source_line(code: str | None, line: int | None) -> str | None:
    if not code or not line:
        return None
    lines = code.splitlines()
    if not 1 <= line <= len(lines):
        return None
    text = lines[line - 1].strip()
    return clip(text, MAX_CODE) if text else None


def fault_words(fault: dict[str, Any], code: str | None) -> str:
    """'a ZeroDivisionError on line 4, `print(1 // 0)`'; a signal or panic the same way."""
    kind, name = fault.get("kind"), str(fault.get("name") or "runtime error")
    if kind == "exception":
        what = article(f"uncaught {name}" if "::" in name else name)
    elif kind == "panic":
        what = f"a panic, {name},"
    elif kind == "signal":
        meaning = fault.get("message")
        what = article(f"{meaning} ({name})") if meaning else f"the signal {name}"
    elif kind == "sanitizer":
        what = article(name)
    else:
        what = name
    line = fault.get("line")
    if not line:
        return what.rstrip(",")
    quoted = source_line(code, int(line))
    return f"{what} on line {line}" + (f", `{quoted}`" if quoted else "")


def sentence_count(text: str) -> int:
    """Sentences as a listener hears them (a quoted code line is not split)."""
    plain = re.sub(r"`[^`]*`", "code", text)
    return len([s for s in re.split(r"(?<=[.!?])\s+", plain.strip()) if s])
