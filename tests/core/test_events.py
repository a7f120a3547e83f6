"""The server event models: one schema per type, the wire form, and the generated
TypeScript that the web app compiles against (it must never drift from the models)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from core.events import (
    EVENT_TYPES,
    ErrorEvent,
    Event,
    FeedbackEvent,
    JudgeResultEvent,
    events_json_schema,
    parse_event,
    to_client,
    wire,
)
from server.cli import main as viva
from server.event_types_ts import typescript_from_schema
from tests.conftest import ROOT

GENERATED = ROOT / "web" / "src" / "shared" / "events.gen.ts"


def test_one_definition_per_type_and_type_and_seq_required() -> None:
    schema = events_json_schema()
    members = [m["$ref"].rsplit("/", 1)[-1] for m in schema["oneOf"]]
    types = [schema["$defs"][m]["properties"]["type"]["const"] for m in members]
    assert sorted(types) == sorted(EVENT_TYPES) and len(set(types)) == len(types)
    assert schema["discriminator"]["propertyName"] == "type"
    for m in members:
        assert {"type", "seq"} <= set(schema["$defs"][m]["required"]), m
        assert schema["$defs"][m]["additionalProperties"] is False, m
    # contract.md's names are all there.
    assert {"question", "transcript_partial", "transcript_final", "feedback", "tts_start",
            "tts_end", "tts_stop", "coding_task", "judge_case", "judge_result", "state",
            "error", "session_end"} <= EVENT_TYPES


def test_the_generated_typescript_matches_the_models() -> None:
    expected = typescript_from_schema(events_json_schema())
    assert GENERATED.read_text() == expected, (
        "web/src/shared/events.gen.ts is out of date with core/events.py; regenerate it: "
        ".venv/bin/viva schema events --typescript > web/src/shared/events.gen.ts")


def test_viva_schema_events_prints_the_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert viva(["schema", "events"]) == 0
    assert json.loads(capsys.readouterr().out) == events_json_schema()
    assert viva(["schema", "events", "--typescript"]) == 0
    assert capsys.readouterr().out == GENERATED.read_text()


def test_wire_form_keeps_only_what_was_set() -> None:
    assert wire(FeedbackEvent(kind="comment", text="ok")) == {
        "type": "feedback", "kind": "comment", "text": "ok"}
    assert wire(ErrorEvent(code="x", message="y", seq=0)) == {
        "type": "error", "seq": 0, "code": "x", "message": "y"}
    # A field set to None explicitly is sent as null (the client may rely on it).
    assert wire(FeedbackEvent(kind="comment", text="ok", turn_id=None))["turn_id"] is None


def test_unknown_fields_and_wrong_values_are_refused() -> None:
    with pytest.raises(ValidationError):
        parse_event({"type": "feedback", "kind": "comment", "text": "x", "stdout": "?"})
    with pytest.raises(ValidationError):
        parse_event({"type": "question", "text": "q", "question_id": "q", "phase": "nope",
                     "turn_id": "t"})
    with pytest.raises(ValidationError):
        parse_event({"type": "no_such_event"})
    case = {"id": "s1", "kind": "sample", "verdict": "WA", "time_ms": 1, "memory_kb": 2,
            "stdout": "3\n"}  # the name the coding room used to read
    with pytest.raises(ValidationError):
        JudgeResultEvent.model_validate({
            "submission_id": "s", "status": "done", "verdict": "WA", "passed": 0, "total": 1,
            "revision": 1, "compile": {"ok": True, "log": ""}, "cases": [case],
            "evidence_text": "", "diff": None})


def test_to_client_passes_recorded_events_and_reports_a_mismatch() -> None:
    good = {"type": "tts_end", "turn_id": "t", "seq": 4, "t_ms": 10}
    assert to_client(good) == (good, None)
    bad = {"type": "tts_end", "seq": 5}
    data, problem = to_client(bad)
    assert data == bad and problem is not None and "turn_id" in problem


def test_every_event_class_is_in_the_union() -> None:
    assert {c.model_fields["type"].default for c in Event.__subclasses__()} == EVENT_TYPES
