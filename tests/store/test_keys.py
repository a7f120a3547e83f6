"""Redis key names live only in store/keys.py: no other module spells one out."""

from __future__ import annotations

import re

from tests.conftest import ROOT

KEY_LITERAL = re.compile(r"""["'](viva|judge):[a-z{]""")


def test_no_module_outside_store_keys_spells_a_redis_key() -> None:
    offenders = []
    for package in ("server", "realtime", "agents", "judge", "audio", "store", "core"):
        for path in (ROOT / package).rglob("*.py"):
            if path == ROOT / "store" / "keys.py":
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                code = line.split("  # ")[0]  # a comment may quote a key
                if KEY_LITERAL.search(code):
                    offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offenders == []
