"""The published wire schema: ``GET /api/schema/events`` (contract.md)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from core.events import events_json_schema

router = APIRouter()


@router.get("/api/schema/events")
async def event_schema() -> dict[str, Any]:
    """The JSON Schema of every server → client event, one definition per ``type``."""
    return events_json_schema()
