"""Any OpenAI-compatible endpoint through the openai SDK (OpenAI, vLLM, Ollama, llama.cpp).

JSON judgements ask for ``response_format=json_schema`` and are still parsed in layers and
validated: servers and small models do not always honour the schema.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import openai

from agents.providers.base import LanguageProvider, ProviderCapabilities, ProviderError, T
from agents.providers.parsing import ParseFailure, parse_model_output


class OpenAIProvider(LanguageProvider):
    name = "openai"
    capabilities = ProviderCapabilities(has_model=True, streaming=True, json_schema=True)

    def __init__(self, *, base_url: str | None, api_key: str | None, model: str,
                 timeout_s: float = 60.0, max_tokens: int = 512):
        self.model = model
        self.max_tokens = max_tokens
        self.client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key or "not-needed",
                                         timeout=timeout_s, max_retries=0)

    async def complete_json(self, system: str, user: str, schema: type[T]) -> T:
        try:
            response = await self.client.chat.completions.create(
                model=self.model,
                messages=[{"role": "system", "content": system},
                          {"role": "user", "content": user}],
                max_tokens=self.max_tokens,
                temperature=0,
                response_format={"type": "json_schema", "json_schema": {
                    "name": schema.__name__, "schema": schema.model_json_schema()}},
            )
        except (openai.APIConnectionError, openai.APITimeoutError) as exc:
            raise ProviderError(f"model endpoint unreachable: {exc}", retryable=True) from exc
        except openai.APIError as exc:
            raise ProviderError(f"model endpoint error: {exc}") from exc
        raw = response.choices[0].message.content or ""
        try:
            return parse_model_output(raw, schema)
        except ParseFailure as exc:
            raise ProviderError(f"model output did not fit {schema.__name__}: {exc}",
                                retryable=True) from exc

    async def stream_text(self, system: str, user: str) -> AsyncIterator[str]:
        try:
            stream = await self.client.chat.completions.create(
                model=self.model,
                messages=[{"role": "system", "content": system},
                          {"role": "user", "content": user}],
                max_tokens=self.max_tokens, temperature=0.3, stream=True,
            )
            async for chunk in stream:
                if chunk.choices and chunk.choices[0].delta.content:
                    yield chunk.choices[0].delta.content
        except (openai.APIConnectionError, openai.APITimeoutError) as exc:
            raise ProviderError(f"model endpoint unreachable: {exc}", retryable=True) from exc
        except openai.APIError as exc:
            raise ProviderError(f"model endpoint error: {exc}") from exc

    def status(self) -> str:
        return f"ok openai {self.model} at {self.client.base_url}"

    async def aclose(self) -> None:
        await self.client.close()
