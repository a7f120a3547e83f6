"""Credentials out of log lines: every ``token=`` / ``ticket=`` query value is redacted.

Uvicorn's access log writes the request path with its query string (``GET
/review?token=…``), and its websocket log the handshake path (``"WebSocket
/ws/sessions/ID?token=…" [accepted]``). A filter rewrites those values in the record's
message and arguments before any handler formats it. The arguments keep their types and
count: uvicorn's ``AccessFormatter`` unpacks them by position.
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import unquote_plus

REDACTED = "[redacted]"
# name=value pairs of a query string inside a log line. The name is compared decoded, the
# way the app reads it (``?t%6Fken=`` is ``token``).
_PARAM = re.compile(r"(^|[?&;\s\"'])([^=&;\s\"'#?]*)=([^&;\s\"'#]*)")
LOGGERS = ("uvicorn", "uvicorn.access", "uvicorn.error", "viva", "")


def _is_secret(name: str) -> bool:
    plain = unquote_plus(name).strip().lower()
    return plain.endswith("token") or plain == "ticket"


def redact(text: str) -> str:
    if "=" not in text:
        return text
    return _PARAM.sub(lambda m: m.group(0) if not _is_secret(m.group(2))
                      else f"{m.group(1)}{m.group(2)}={REDACTED}", text)


def _redact_arg(value: Any) -> Any:
    return redact(value) if isinstance(value, str) else value


class RedactSecrets(logging.Filter):
    """Rewrites ``token=`` values in a record's message and string arguments."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_redact_arg(a) for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: _redact_arg(v) for k, v in record.args.items()}
        return True


_FILTER = RedactSecrets()


def install() -> None:
    """On the loggers that carry request paths and on every handler they write through
    (a filter on a logger does not see records propagated from its children). Idempotent."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
        for handler in logger.handlers:
            if _FILTER not in handler.filters:
                handler.addFilter(_FILTER)
