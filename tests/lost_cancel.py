"""A call that loses the first cancel it gets and stays stuck until cancelled again, as a
Redis call or a pipe write can (Python 3.11's ``asyncio.wait_for`` returns the result when
the awaited future finishes just as the cancel arrives), and a bounded wait for the code
that must still finish around it. Shared by the teardown tests of the judge and server;
``swallow_a_cancel`` and ``ends_on_one_cancel`` by those of the voice stages."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


class StuckCall:
    def __init__(self) -> None:
        self.lost = 0  # cancels lost so far
        self.entered = asyncio.Event()

    async def __call__(self, *_: object) -> None:
        self.entered.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            if self.lost:
                raise
            self.lost += 1
            await asyncio.sleep(3600)  # goes on as if never cancelled


async def finishes(work: Coroutine[Any, Any, Any], within_s: float) -> asyncio.Task[Any] | None:
    """``work`` run as a task: the task once it has finished within ``within_s``, else None
    (it is cancelled, and not awaited: a hang must fail the test, not hang it too)."""
    task = asyncio.create_task(work)
    done, _ = await asyncio.wait({task}, timeout=within_s)
    if not done:
        task.cancel()
        return None
    return task


async def swallow_a_cancel() -> None:
    """Wait until cancelled, then return as if the wait had finished: the cancel is lost."""
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        pass


async def ends_on_one_cancel(stage: asyncio.Task[Any], caplog: Any, where: str) -> None:
    """Cancel ``stage`` once while a step of it loses that cancel: it must end within 2 s
    (not wait for its next input for ever) and warn that a cancel was swallowed ``where``."""
    import logging

    with caplog.at_level(logging.WARNING, logger="realtime"):
        stage.cancel()
        done, _ = await asyncio.wait({stage}, timeout=2)
    assert stage in done and stage.cancelled()
    assert any(where in r.getMessage() and "swallowed" in r.getMessage()
               for r in caplog.records)
