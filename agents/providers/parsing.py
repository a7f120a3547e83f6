"""Layered parsing of model output into a schema: fenced block → JSON → repair → fallback.

Small models wrap JSON in prose, use single quotes, leave trailing commas or stop early. Each
layer tries a cheaper fix before the next; the result is always validated by pydantic.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


class ParseFailure(Exception):
    def __init__(self, message: str, raw: str):
        super().__init__(message)
        self.raw = raw


def _candidates(raw: str) -> list[str]:
    out = [m.group(1).strip() for m in _FENCE.finditer(raw)]
    start = raw.find("{")
    if start != -1:
        end = raw.rfind("}")
        out.append(raw[start: end + 1] if end > start else raw[start:])
    out.append(raw.strip())
    return out


def _repair(text: str) -> str:
    text = re.sub(r",\s*([}\]])", r"\1", text)  # trailing commas
    if "'" in text and '"' not in text:
        text = text.replace("'", '"')
    opens = text.count("{") - text.count("}")
    brackets = text.count("[") - text.count("]")
    if text.count('"') % 2 == 1:
        text += '"'
    text += "]" * max(0, brackets) + "}" * max(0, opens)
    return text


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return json.loads(_repair(text))


_BOUND_ERRORS = {"less_than_equal": "le", "greater_than_equal": "ge",
                 "less_than": "lt", "greater_than": "gt"}


def _clamp_out_of_range(data: Any, exc: ValidationError) -> bool:
    """Schema repair: pull numbers that break a declared bound back onto it (a model that
    says covered=2 on a 0..1 scale meant "fully"). Returns whether anything changed."""
    changed = False
    for err in exc.errors():
        bound_kind = _BOUND_ERRORS.get(err.get("type", ""))
        ctx = err.get("ctx") or {}
        if bound_kind is None or bound_kind not in ctx:
            continue
        target = data
        loc = list(err.get("loc", ()))
        try:
            for key in loc[:-1]:
                target = target[key]
            target[loc[-1]] = float(ctx[bound_kind])
            changed = True
        except (KeyError, IndexError, TypeError):
            continue
    return changed


def parse_model_output(raw: str, schema: type[T]) -> T:
    """Parse ``raw`` into ``schema`` or raise :class:`ParseFailure` with every reason."""
    reasons: list[str] = []
    for candidate in _candidates(raw):
        try:
            data = _loads(candidate)
        except json.JSONDecodeError as exc:
            reasons.append(f"json: {exc.msg}")
            continue
        try:
            return schema.model_validate(data)
        except ValidationError as exc:
            reasons.append(f"schema: {exc.errors()[0].get('msg')}")
            if _clamp_out_of_range(data, exc):
                try:
                    return schema.model_validate(data)
                except ValidationError:
                    pass
            # Schema repair: a model that wrapped the object ({"result": {...}}).
            if isinstance(data, dict) and len(data) == 1:
                inner = next(iter(data.values()))
                try:
                    return schema.model_validate(inner)
                except ValidationError:
                    pass
    raise ParseFailure("; ".join(reasons) or "empty output", raw)
