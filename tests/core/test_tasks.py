"""Task ownership: failures are logged and reported, stages restart, teardown is real."""

from __future__ import annotations

import asyncio
import logging

import pytest

from core.tasks import Supervisor, cancel_and_wait, end_if_cancelled


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


async def tear_down(task: asyncio.Task[None], caplog: pytest.LogCaptureFixture,
                                   recancel_s: float = 1.0) -> None:
    """Tear ``task`` down with ``cancel_and_wait`` (warnings captured) within 5 s."""
    try:
        with caplog.at_level(logging.WARNING):
            async with asyncio.timeout(5):
                await cancel_and_wait(task, context="session s-1", recancel_s=recancel_s)
    finally:
        task.cancel()  # a failed test must not leave the loop a task that outlives it
    assert task.cancelled()


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
    await tear_down(task, caplog, recancel_s=0.05)
    assert went_on.is_set()
    assert any("voice-reply" in r.getMessage() and "cancelling again" in r.getMessage()
               and "swallows_once" in r.getMessage() for r in caplog.records)


async def test_a_stage_loop_ends_on_a_cancel_its_step_swallowed(
        caplog: pytest.LogCaptureFixture) -> None:
    """The loop checks before it waits for its next input: one cancel ends it, even when
    the step that was running when it came swallowed it."""
    inputs: asyncio.Queue[int] = asyncio.Queue()
    steps: list[int] = []
    stepping = asyncio.Event()

    async def step(item: int) -> None:
        steps.append(item)
        stepping.set()
        try:
            await asyncio.Event().wait()  # the engine answering, say
        except asyncio.CancelledError:
            pass  # lost: 3.11's wait_for returns a result that finished as the cancel came

    async def stage() -> None:
        while True:
            end_if_cancelled("session s-1 voice reply (the engine answering)")
            await step(await inputs.get())

    task = asyncio.create_task(stage(), name="voice-reply")
    inputs.put_nowait(1)
    await asyncio.wait_for(stepping.wait(), 5)
    await tear_down(task, caplog)
    assert steps == [1]
    messages = [r.getMessage() for r in caplog.records]
    assert not any("cancelling again" in m for m in messages), messages
    assert any("swallowed" in m and "the engine answering" in m and "voice-reply" in m
               for m in messages), messages


async def test_a_timeout_inside_a_step_is_not_taken_for_a_lost_cancel() -> None:
    """asyncio.timeout cancels the task and takes the cancel back when it fires: the loop
    must go on, and without any timeout or cancel it goes on too."""
    handled: list[str] = []

    async def stage() -> None:
        for item in ("timed out", "plain"):
            end_if_cancelled("stage")
            if item == "timed out":
                try:
                    async with asyncio.timeout(0.01):
                        await asyncio.Event().wait()
                except TimeoutError:
                    pass
            handled.append(item)
        end_if_cancelled("stage")

    await asyncio.wait_for(stage(), 5)
    assert handled == ["timed out", "plain"]


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
