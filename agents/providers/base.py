"""The provider interface. Agents ask for language or for a validated JSON judgement.

``rubric`` has no model: ``has_model`` is False and agents use bank-authored text and code
rules. Model providers return validated pydantic objects or raise :class:`ProviderError`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class ProviderCapabilities:
    has_model: bool
    streaming: bool
    json_schema: bool


class ProviderError(Exception):
    """A provider call failed. ``retryable`` errors are retried once by the caller."""

    def __init__(self, message: str, *, retryable: bool = False):
        super().__init__(message)
        self.retryable = retryable


class LanguageProvider(ABC):
    name: str = "base"
    capabilities = ProviderCapabilities(has_model=False, streaming=False, json_schema=False)

    @property
    def has_model(self) -> bool:
        return self.capabilities.has_model

    @abstractmethod
    async def complete_json(self, system: str, user: str, schema: type[T]) -> T:
        """A judgement as a validated ``schema`` instance."""

    @abstractmethod
    def stream_text(self, system: str, user: str) -> AsyncIterator[str]:
        """Language, streamed as text deltas."""

    async def complete_text(self, system: str, user: str) -> str:
        return "".join([d async for d in self.stream_text(system, user)]).strip()

    def status(self) -> str:
        return f"ok {self.name}"

    async def aclose(self) -> None:
        return None
