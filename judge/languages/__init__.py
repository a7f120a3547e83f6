"""The six supported languages, one executor module each."""

from __future__ import annotations

from judge.languages import c, cpp, go, java, javascript, python
from judge.languages.base import Executor

EXECUTORS: dict[str, Executor] = {
    m.EXECUTOR.name: m.EXECUTOR for m in (python, c, cpp, java, go, javascript)
}
LANGUAGES: tuple[str, ...] = tuple(EXECUTORS)


def executor_for(language: str) -> Executor:
    """The executor for ``language``; KeyError names the supported ones."""
    try:
        return EXECUTORS[language]
    except KeyError:
        raise KeyError(
            f"unsupported language {language!r}; use one of {', '.join(LANGUAGES)}") from None
