"""Errors of the live voice pipeline that the client can act on."""

from __future__ import annotations


class VoiceInputError(Exception):
    """Refused audio or configuration. The session goes on; the frame is dropped."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message
