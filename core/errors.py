"""The one error base of every domain error (server, interview, judge, voice).

An :class:`AppError` has a stable ``code``, a ``message`` that says what to do, the HTTP
``status`` it maps to, whether retrying the same request may succeed (``retryable``) and
optional ``details``. The server maps any of them in one place each: to the contract's error
envelope ``{"error": {"code", "message", "details"}}`` (``server.errors``) and to a websocket
``error`` event (``server.ws``), so no layer translates another's errors by hand.
"""

from __future__ import annotations

from typing import Any, ClassVar


class AppError(Exception):
    code: str = "bad_request"
    status: int = 400
    retryable: bool = False
    # A code → status table for subclasses whose codes are many (their __init__ takes code).
    statuses: ClassVar[dict[str, int]] = {}
    retryable_codes: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, message: str, *, code: str | None = None, status: int | None = None,
                 retryable: bool | None = None, details: Any = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.status = status if status is not None else self.statuses.get(self.code,
                                                                          self.status)
        self.retryable = (retryable if retryable is not None
                          else self.retryable or self.code in self.retryable_codes)
        self.details = details

    def envelope(self) -> dict[str, Any]:
        """The contract's HTTP error body."""
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}
