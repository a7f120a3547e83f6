"""Judge-domain errors: a stable code and a message that says what to do. The API layer maps
``kind`` to its own error envelope (the judge never imports the server)."""

from __future__ import annotations

from typing import Literal

ErrorKind = Literal["invalid", "not_found", "too_large", "unavailable"]


class JudgeError(Exception):
    def __init__(self, code: str, message: str, kind: ErrorKind = "invalid"):
        super().__init__(message)
        self.code = code
        self.message = message
        self.kind = kind
