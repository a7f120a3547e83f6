"""``viva grade --batch``: grade answers from a reference answer alone."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agents.evaluate import EvaluateAgent
from agents.grading import derive_points
from agents.knowledge import Knowledge
from agents.providers.base import LanguageProvider


class BatchItem(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str | int
    question: str = Field(min_length=1)
    reference_answer: str = Field(min_length=1)
    # Further acceptable reference answers, if the data set has them: the nearest counts.
    other_reference_answers: list[str] = Field(default_factory=list)
    answer: str


async def grade_item(agent: EvaluateAgent, item: BatchItem) -> float:
    knowledge = Knowledge(True, item.reference_answer, derive_points(item.reference_answer),
                          [], None, alternative_references=tuple(item.other_reference_answers))
    return (await agent.evaluate(item.question, item.answer, knowledge)).score


async def grade_batch_file(path: Path, provider: LanguageProvider) -> int:
    """Grade every line of ``path`` with ``provider`` (the caller builds it from the settings
    and hands it over; closed here when done)."""
    agent = EvaluateAgent(provider)
    failures = 0
    try:
        try:
            lines = (await asyncio.to_thread(path.read_text, encoding="utf-8")).splitlines()
        except OSError as exc:
            print(f"error: cannot read {path}: {exc}", file=sys.stderr)
            return 2
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                item = BatchItem.model_validate_json(line)
            except ValidationError as exc:
                failures += 1
                print(json.dumps({"line": n, "error": {"code": "invalid_input", "message":
                                  str(exc.errors()[0].get("msg")), "details": exc.errors()[0]
                                  .get("loc")}}, default=str))
                continue
            score = await grade_item(agent, item)
            print(json.dumps({"id": item.id, "score": score}), flush=True)
    finally:
        await provider.aclose()
    return 1 if failures else 0
