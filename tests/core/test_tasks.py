"""Task ownership: failures are logged and reported, stages restart, teardown is real."""

from __future__ import annotations

import asyncio
import logging

import pytest

from core.tasks import Supervisor, cancel_and_wait


async def test_cancel_and_wait_logs_a_failure_instead_of_swallowing_it(
        caplog: pytest.LogCaptureFixture) -> None:
    async def boom() -> None:
        raise ValueError("the reason")

    async def forever() -> None:
        await asyncio.Event().wait()

    failed = asyncio.create_task(boom(), name="boom")
    running = asyncio.create_task(forever(), name="forever")
    await asyncio.sleep(0)
    with caplog.at_level(logging.ERROR):
        await cancel_and_wait(failed, running, None, context="session s-1")
    assert running.cancelled() and failed.done()
    assert any("session s-1" in r.getMessage() and "boom" in r.getMessage()
               and r.exc_info and "the reason" in str(r.exc_info[1]) for r in caplog.records)


async def test_our_own_cancellation_propagates() -> None:
    async def stubborn() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            await asyncio.sleep(0.2)
            raise

    inner = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    outer = asyncio.create_task(cancel_and_wait(inner))
    await asyncio.sleep(0.01)
    outer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await outer


async def test_a_failing_stage_is_reported_and_restarted_then_stays_down(
        caplog: pytest.LogCaptureFixture) -> None:
    reported: list[tuple[str, str]] = []
    runs = 0

    async def on_failure(name: str, exc: BaseException) -> None:
        reported.append((name, str(exc)))

    async def stage() -> None:
        nonlocal runs
        runs += 1
        raise RuntimeError(f"run {runs}")

    owner = Supervisor("session s-2", on_failure=on_failure, restart_delay_s=0)
    with caplog.at_level(logging.ERROR):
        task = owner.spawn(stage, "stage", restarts=2)
        await asyncio.wait_for(task, 2)
    assert runs == 3
    assert reported == [("stage", "run 1"), ("stage", "run 2"), ("stage", "run 3")]
    assert sum("session s-2: stage failed" in r.getMessage() for r in caplog.records) == 3
    await owner.aclose()


async def test_a_stage_that_recovers_keeps_running_and_aclose_stops_everything() -> None:
    attempts = 0
    running = asyncio.Event()

    async def flaky() -> None:
        nonlocal attempts
        attempts += 1
        if attempts == 1:
            raise ConnectionError("redis went away")
        running.set()
        await asyncio.Event().wait()

    owner = Supervisor("judge service", restart_delay_s=0)
    stage = owner.spawn(flaky, "worker", restarts=5)
    helper = owner.helper(asyncio.sleep(30), "helper")
    await asyncio.wait_for(running.wait(), 2)
    assert attempts == 2 and [n for n, _ in owner.failures] == ["worker"]
    await owner.aclose()
    assert stage.cancelled() and helper.cancelled() and not owner.tasks
