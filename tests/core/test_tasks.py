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


async def test_a_task_that_swallowed_its_cancel_is_cancelled_again(
        caplog: pytest.LogCaptureFixture) -> None:
    went_on = asyncio.Event()

    async def swallows_once() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            pass  # as 3.11's wait_for does when the awaited future finished as the cancel came
        went_on.set()
        await asyncio.Event().wait()  # the stage's loop: the next final that never comes

    task = asyncio.create_task(swallows_once(), name="voice-reply")
    await asyncio.sleep(0)
    try:
        with caplog.at_level(logging.WARNING):
            async with asyncio.timeout(5):
                await cancel_and_wait(task, context="session s-1", recancel_s=0.05)
    finally:
        task.cancel()  # a failed test must not leave the loop a task that outlives it
    assert went_on.is_set() and task.cancelled()
    assert any("voice-reply" in r.getMessage() and "cancelling again" in r.getMessage()
               and "swallows_once" in r.getMessage() for r in caplog.records)


async def test_a_task_cleaning_up_within_the_grace_is_cancelled_once() -> None:
    cancels = 0

    async def cleans_up() -> None:
        nonlocal cancels
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancels += 1
            await asyncio.sleep(0.05)  # e.g. the speaker cutting its current utterance
            raise

    task = asyncio.create_task(cleans_up())
    await asyncio.sleep(0)
    await cancel_and_wait(task, recancel_s=1.0)
    assert task.cancelled() and cancels == 1


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
