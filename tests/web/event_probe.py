"""Catches the UI reading an event field the server never sends, in real Chromium.

The probe (event_probe.js) is given the server's event schema and wraps every event the
app parses; each read of a field the schema does not declare is recorded on the page."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import Page

from core.events import events_json_schema

PROBE = (Path(__file__).with_name("event_probe.js")).read_text()


def install_event_probe(page: Page) -> None:
    """Call before the first ``page.goto``; the probe runs before the app's own scripts."""
    page.add_init_script(f"({PROBE})({json.dumps(events_json_schema())});")


def undeclared_reads(page: Page) -> list[str]:
    """``type.path.field`` for each field the app read that the schema does not declare."""
    reads: list[str] = page.evaluate("window.__vivaEventViolations || []")
    return reads
