"""A call that loses the first cancel it gets and stays stuck until cancelled again, as a
Redis call or a pipe write can (Python 3.11's ``asyncio.wait_for`` returns the result when
the awaited future finishes just as the cancel arrives), and a bounded wait for the code
that must still finish around it. Shared by the teardown tests of the judge and server."""

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
