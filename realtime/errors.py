"""Errors of the live voice pipeline that the client can act on."""

from __future__ import annotations

from core.errors import AppError


class VoiceInputError(AppError):
    """Refused audio or configuration. The session goes on; the frame is dropped."""

    status = 422

    def __init__(self, code: str, message: str):
        super().__init__(message, code=code)
