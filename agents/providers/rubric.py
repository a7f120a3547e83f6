"""The default provider: no model. Language comes from the bank; scores from coverage."""

from __future__ import annotations

from collections.abc import AsyncIterator

from agents.providers.base import LanguageProvider, ProviderCapabilities, ProviderError, T


class RubricProvider(LanguageProvider):
    name = "rubric"
    capabilities = ProviderCapabilities(has_model=False, streaming=False, json_schema=False)

    async def complete_json(self, system: str, user: str, schema: type[T]) -> T:
        raise ProviderError("the rubric provider has no model; use bank text")

    async def stream_text(self, system: str, user: str) -> AsyncIterator[str]:
        raise ProviderError("the rubric provider has no model; use bank text")
        yield ""  # pragma: no cover - makes this an async generator
