"""Build the configured provider."""

from __future__ import annotations

from pathlib import Path

from agents.providers.base import LanguageProvider
from agents.providers.rubric import RubricProvider


def make_provider(kind: str, *, openai_base_url: str | None = None,
                  openai_api_key: str | None = None, openai_model: str = "gpt-4o-mini",
                  local_model_path: Path | None = None) -> LanguageProvider:
    if kind == "rubric":
        return RubricProvider()
    if kind == "openai":
        from agents.providers.openai_provider import OpenAIProvider

        return OpenAIProvider(base_url=openai_base_url, api_key=openai_api_key,
                              model=openai_model)
    if kind == "local":
        from agents.providers.local import LocalProvider

        return LocalProvider(local_model_path)
    raise ValueError(f"unknown provider {kind!r}: use rubric, openai or local")
