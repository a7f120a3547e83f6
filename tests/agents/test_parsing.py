"""Layered parsing of model output."""

from __future__ import annotations

import pytest

from agents.messages import ModelVote
from agents.providers.parsing import ParseFailure, parse_model_output


@pytest.mark.parametrize("raw", [
    '{"ok": true, "reason": "fine"}',
    'Sure! Here it is:\n```json\n{"ok": true, "reason": "fine"}\n```\nHope it helps.',
    'The result: {"ok": true, "reason": "fine",}',
    "{'ok': true, 'reason': 'fine'}",
    '{"ok": true, "reason": "fine"',
    '{"result": {"ok": true, "reason": "fine"}}',
])
def test_layers_recover_the_object(raw: str) -> None:
    assert parse_model_output(raw, ModelVote) == ModelVote(ok=True, reason="fine")


@pytest.mark.parametrize("raw", ["", "no json here", '{"ok": "maybe?"}', "[1,2]"])
def test_unparseable_output_fails_with_reasons(raw: str) -> None:
    with pytest.raises(ParseFailure) as info:
        parse_model_output(raw, ModelVote)
    assert str(info.value)


def test_out_of_range_numbers_are_clamped_to_the_schema() -> None:
    from agents.messages import ModelEvaluation

    parsed = parse_model_output(
        '{"points": [{"point_id": "a", "covered": 3, "quote": "x"},'
        ' {"point_id": "b", "covered": -1}]}', ModelEvaluation)
    assert [p.covered for p in parsed.points] == [1.0, 0.0]
