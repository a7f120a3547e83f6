"""Task ownership: every background task has an owner that notices its failure and, at the
end, cancels it and waits for it to finish.

- :func:`cancel_and_wait` tears tasks down for real (livekit's helper of the same name): it
  cancels, waits, and logs — never swallows — an exception a task had died with.
- :class:`Supervisor` owns one component's long-running stages. A stage that ends with an
  exception is logged with the owner's context (``session 3f2a…``), reported to the owner's
  ``on_failure`` (which surfaces it: an ``error`` event, a close with 1011), and started
  again when it was spawned with restarts left.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

log = logging.getLogger("viva.tasks")

FailureHandler = Callable[[str, BaseException], Awaitable[None]]


RECANCEL_S = 2.0  # a task still running this long after its cancel is cancelled again...
RECANCEL_TIMES = 4  # ...this many times (within the 10 s a closing connection is given)


async def cancel_and_wait(*tasks: asyncio.Task[Any] | None,
                          context: str = "", logger: logging.Logger = log,
                          recancel_s: float = RECANCEL_S) -> None:
    """Cancel ``tasks`` and wait until all have finished. An exception one of them ended with
    (other than the cancellation) is logged with ``context``. Our own cancellation while
    waiting propagates, as it must.

    A task still running ``recancel_s`` after its cancel is cancelled again: a cancellation
    can be swallowed (Python 3.11's ``asyncio.wait_for`` returns the result when the awaited
    future finishes just as the cancel arrives), and the task then goes on to wait for its
    next input for ever. A live voice session's reply stage did that at the end of an
    interview: its close hung and was abandoned after 10 s, its tasks left pending."""
    live = [t for t in tasks if t is not None]
    if not live:
        return
    pending: set[asyncio.Task[Any]] = set(live)
    for attempt in range(RECANCEL_TIMES + 1):
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=recancel_s)
        if not pending:
            break
        logger.warning("%s: %s still running %.1f s after cancel %d; cancelling again",
                       context or "tasks", _named(pending, where=True), recancel_s,
                       attempt + 1)
    if pending:
        logger.error("%s: %s ignored %d cancels; waiting for them", context or "tasks",
                     _named(pending), RECANCEL_TIMES + 1)
        await asyncio.wait(pending)
    for task in live:
        if task.cancelled():
            continue
        exc = task.exception()
        if exc is not None:
            logger.error("%s: task %s had failed", context or "tasks", task.get_name(),
                         exc_info=exc)


def end_if_cancelled(where: str, logger: logging.Logger = log) -> None:
    """Raise ``CancelledError`` when the current task was asked to stop and an await in
    ``where`` swallowed the request.

    A stage loop calls this before it waits for its next input: a lost cancel (3.11's
    ``wait_for`` returning a result that finished as the cancel came, or a library that
    catches it) would otherwise leave it waiting there until its owner cancels again, seconds
    later. ``Task.cancelling()`` still counts the request (only ``uncancel`` takes it back, as
    ``asyncio.timeout`` does for its own), so the loop ends as it was asked to."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        logger.warning("%s: a cancel of %s was swallowed on the way; ending it now", where,
                       task.get_name())
        raise asyncio.CancelledError


def _named(tasks: set[asyncio.Task[Any]], *, where: bool = False) -> str:
    return ", ".join(sorted(f"{t.get_name()} (at {awaiting(t)})" if where else t.get_name()
                            for t in tasks))


def awaiting(task: asyncio.Task[Any]) -> str:
    """Where ``task`` waits, innermost first (``file:line function`` through the awaited
    coroutines): which await went on after a cancel is what a swallowed one leaves to find."""
    frames: list[str] = []
    coro: Any = task.get_coro()
    while coro is not None and len(frames) < 30:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        if frame is not None:
            frames.append(f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno} "
                          f"{frame.f_code.co_name}")
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    return " < ".join(reversed(frames)) or "?"


class Supervisor:
    """Owns the long-running stages (and short helpers) of one component."""

    def __init__(self, context: str, *, on_failure: FailureHandler | None = None,
                 logger: logging.Logger = log, restart_delay_s: float = 0.5):
        self.context = context
        self.on_failure = on_failure
        self.logger = logger
        self.restart_delay_s = restart_delay_s
        self.failures: list[tuple[str, BaseException]] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing = False

    def spawn(self, factory: Callable[[], Coroutine[Any, Any, Any]], name: str, *,
              restarts: int = 0) -> asyncio.Task[Any]:
        """Run ``factory()`` as stage ``name``; after a failure start it again up to
        ``restarts`` times (a stage that keeps its state outside the coroutine)."""
        task = asyncio.create_task(self._run(factory, name, restarts), name=name)
        self._track(task)
        return task

    def helper(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        """A short task (no restart); its failure is logged and reported like a stage's."""
        return self.spawn(lambda: coro, name)

    async def _run(self, factory: Callable[[], Coroutine[Any, Any, Any]], name: str,
                   restarts: int) -> None:
        while True:
            try:
                await factory()
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.failures.append((name, exc))
                self.logger.error("%s: %s failed%s", self.context, name,
                                  f"; restarting ({restarts} left)" if restarts else "",
                                  exc_info=exc)
                if self.on_failure is not None and not self._closing:
                    try:
                        await self.on_failure(name, exc)
                    except Exception:
                        self.logger.exception("%s: reporting the failure of %s failed",
                                              self.context, name)
                if restarts <= 0 or self._closing:
                    return
                restarts -= 1
                await asyncio.sleep(self.restart_delay_s)

    def _track(self, task: asyncio.Task[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @property
    def tasks(self) -> frozenset[asyncio.Task[Any]]:
        return frozenset(self._tasks)

    async def aclose(self) -> None:
        """Cancel every stage and helper and wait for them."""
        self._closing = True
        await cancel_and_wait(*self._tasks, context=self.context, logger=self.logger)
