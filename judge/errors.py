"""Judge-domain errors: a stable code and a message that says what to do. ``kind`` picks the
HTTP status; the server maps every ``AppError`` to its envelope (the judge never imports the
server)."""

from __future__ import annotations

from typing import Literal

from core.errors import AppError

ErrorKind = Literal["invalid", "not_found", "too_large", "unavailable"]
KIND_STATUS: dict[str, int] = {"invalid": 422, "not_found": 404, "too_large": 413,
                               "unavailable": 503}


class JudgeError(AppError):
    def __init__(self, code: str, message: str, kind: ErrorKind = "invalid"):
        super().__init__(message, code=code, status=KIND_STATUS[kind],
                         retryable=kind == "unavailable")
        self.kind = kind
