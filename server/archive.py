"""Archiving: a finished (or abandoned) session written to one folder under VIVA_DATA_DIR.

A session is archived when ``session_end`` is seen, again when its connection closes (the
closing words are spoken after ``session_end``), and by a sweep that also ends sessions
nobody has touched for ``abandon_after_minutes``. Archiving is idempotent: it rewrites the
folder from Redis while the keys exist, and ``archive.json`` (written last) records the last
seq it holds, so the sweep refreshes an archive that fell behind. Once archived, the Redis
keys get a TTL; from then on the folder is the session (see ``server.archived_session``).
One process archives a session at a time (a Redis lock), so two app processes never write
the same folder at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from agents.engine import InterviewEngine, InterviewError
from agents.state import Phase
from agents.summary import Report, reviewed_score
from core.events import ReviewEvent, wire
from core.tasks import cancel_and_wait
from realtime.recording_writer import RecordingWriter
from server.archived_session import (
    ARCHIVE_MARK,
    ArchivedSession,
    ArchiveInfo,
    load_archive,
    stored_token_digest,
)
from server.recording import code_revisions, render_report_html, webvtt
from server.report_view import report_view
from server.settings import Settings
from store import keys
from store.events import now_ms
from store.recordings import RecordingStore

log = logging.getLogger("viva.archive")

EXTENSIONS = {"python": "py", "c": "c", "cpp": "cpp", "java": "java", "go": "go",
              "javascript": "js"}

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


def _write(path: Path, data: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(data)
    os.replace(tmp, path)


def write_archive(folder: Path, info: ArchiveInfo, events: list[dict[str, Any]],
                  report: dict[str, Any], report_html: str, vtt: str) -> None:
    """Blocking: call in a thread. Every file atomically; the mark last."""
    folder.mkdir(parents=True, exist_ok=True)
    _write(folder / "events.ndjson",
           "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events))
    _write(folder / "report.json", json.dumps(report, indent=2))
    _write(folder / "report.html", report_html)
    _write(folder / "transcript.vtt", vtt)
    code = folder / "code"
    code.mkdir(exist_ok=True)
    revisions = code_revisions(events)
    for rev in revisions:
        name = f"{rev['n']:03d}-{rev['problem_id']}.{EXTENSIONS.get(str(rev['language']), 'txt')}"
        if all(c.isalnum() or c in "-_." for c in name):
            _write(code / name, rev["code"])
            rev["file"] = name
        del rev["code"]
    _write(code / "revisions.json", json.dumps(revisions, indent=2))
    _write(folder / ARCHIVE_MARK, info.model_dump_json(indent=2))


def review_record(review: ReviewEvent) -> dict[str, str]:
    """The report's ``review`` as Redis keeps it (every value a string): written to the
    session's review hash while it is live, and into an archive's report after."""
    original = review.original_score
    return {"overall_score": str(review.overall_score), "note": review.note,
            "reviewer": review.reviewer or "", "at": review.at or "",
            "original_score": "" if original is None else str(original)}


def review_archive(archived: ArchivedSession, review: ReviewEvent) -> dict[str, Any]:
    """Blocking: a reviewer's override of a session that only the archive still holds. The
    review joins the timeline as its next event (at the last event's time: the session's
    clock is gone with Redis) and the report as ``review``, shaped as the live report shows
    it; the graded score stays as ``original_score``. Returns the event written."""
    events = archived.events()
    last = events[-1] if events else {"seq": 0, "t_ms": 0}
    report = archived.report()
    review = review.model_copy(update={"original_score": report.get("overall_score")})
    event = {**wire(review), "seq": int(last["seq"]) + 1, "t_ms": int(last["t_ms"])}
    events.append(event)
    report["review"] = review_record(review)
    report["final_score"] = review.overall_score
    info = archived.info.model_copy(update={"last_seq": event["seq"], "events": len(events),
                                            "reviewed_score": review.overall_score})
    write_archive(archived.folder, info, events, report,
                  render_report_html(Report.model_validate(report), code_revisions(events)),
                  archived.transcript_vtt())
    return event


class Archiver:
    def __init__(self, redis: aioredis.Redis, engine: InterviewEngine, settings: Settings,
                 writer: RecordingWriter | None = None):
        self.redis = redis
        self.engine = engine
        self.settings = settings
        self.writer = writer
        self.recordings = RecordingStore(settings.data_dir)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self.lock_ms = 120_000  # the archive lock's expiry

    # -- one session ----------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _locked(self, session_id: str, wait_s: float = 0.0) -> AsyncIterator[bool]:
        """The session's archive lock (one writer across processes), waited for up to
        ``wait_s``; yields whether it is held, and releases it after."""
        lock = f"{keys.PREFIX}:session:{session_id}:archive_lock"
        mine = secrets.token_hex(16)  # who holds it: only the holder may release it
        deadline = time.monotonic() + wait_s
        while not (held := bool(await self.redis.set(lock, mine, nx=True,
                                                     px=self.lock_ms))):
            if time.monotonic() >= deadline:
                break
            await asyncio.sleep(0.05)
        try:
            yield held
        finally:
            if held:
                # Compare and delete in one step: a slow archiver whose lock expired (and
                # was taken by another process) leaves the other's lock alone.
                await self.redis.eval(_RELEASE, 1, lock, mine)

    async def archive(self, session_id: str, only_ended: bool = False) -> Path | None:
        """Write the session's folder from Redis; None when Redis no longer has it (or,
        with ``only_ended``, when the interview is still going)."""
        async with self._locked(session_id) as held:
            if not held:
                return None  # another process is writing it now
            try:
                state = await self.engine.load(session_id)
            except InterviewError:
                return None
            if only_ended and state.phase != Phase.ended:
                return None
            if self.writer is not None:
                await self.writer.drain(session_id)
            events = await self.engine.events.range(session_id, 0)
            recordings = await asyncio.to_thread(self.recordings.entries, session_id)
            revisions = code_revisions(events)
            from server.routes.practice import practice_comparison

            report = report_view(
                await practice_comparison(self.engine, self.settings,
                                          await self.engine.report(session_id)),
                events, recordings, revisions)
            meta = await self.redis.hgetall(keys.session_meta(session_id))
            info = ArchiveInfo(
                session_id=session_id, candidate_id=state.config.candidate_id,
                role=state.config.role, mode=state.config.mode, status=state.phase.value,
                ended_reason=state.ended_reason,
                token_sha256=stored_token_digest(meta),
                archived_at=datetime.now(UTC).isoformat(timespec="seconds"),
                last_seq=events[-1]["seq"] if events else 0, events=len(events),
                recordings=len(recordings), overall_score=report.overall_score,
                reviewed_score=reviewed_score(report.review),
                flags=list(report.reviewer_flags))
            folder = self.recordings.session_dir(session_id)
            # Rendering a long session takes a while: in the thread too, off the event loop.
            await asyncio.to_thread(lambda: write_archive(
                folder, info, events, report.model_dump(),
                render_report_html(report, revisions), webvtt(events, recordings)))
            if state.phase == Phase.ended:
                await self._expire(session_id)
            return folder

    async def review_archived(self, session_id: str, review: ReviewEvent) -> bool:
        """Record a reviewer's override in the archive of a session Redis has let go; False
        when there is no archive. Under the archive lock, so two overrides both land."""
        async with self._locked(session_id, wait_s=5.0) as held:
            if not held:
                raise TimeoutError(f"the archive of session {session_id} stayed locked")
            archived = load_archive(self.settings.data_dir, session_id)
            if archived is None:
                return False
            await asyncio.to_thread(review_archive, archived, review)
            return True

    async def _expire(self, session_id: str) -> None:
        ttl_ms = int(self.settings.redis_ttl_after_archive_hours * 3_600_000)
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in (keys.session_state(session_id), keys.session_events(session_id),
                        keys.session_seq(session_id), keys.session_meta(session_id),
                        f"{keys.PREFIX}:session:{session_id}:review"):
                # 0: archived sessions stay (the idle TTL every event sets is lifted)
                if ttl_ms > 0:
                    pipe.pexpire(key, ttl_ms)
                else:
                    pipe.persist(key)
            await pipe.execute()

    def request(self, session_id: str, *, only_ended: bool = False,
                delay_s: float = 0.0) -> None:
        """Archive soon, in the background. A request while one runs makes it run once more
        afterwards (what it read may already be behind: a recording written since)."""
        running = self._tasks.get(session_id)
        if running is not None and not running.done():
            self._again.add(session_id)
            return

        async def go() -> None:
            await asyncio.sleep(delay_s)
            again = True
            while again:
                self._again.discard(session_id)
                try:
                    await self.archive(session_id, only_ended)
                except Exception:
                    log.exception("archiving session %s failed; the sweep will retry",
                                  session_id)
                again = session_id in self._again

        task = asyncio.create_task(go(), name=f"archive-{session_id}")
        self._tasks[session_id] = task
        task.add_done_callback(lambda _: self._tasks.pop(session_id, None))

    async def settle(self) -> None:
        """Wait for archives in progress (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    # -- the sweep --------------------------------------------------------------------

    async def sweep_once(self) -> int:
        """Archive ended sessions whose archive is missing or behind; end abandoned ones."""
        done = 0
        for session_id in sorted(await self.redis.smembers(keys.SESSIONS_INDEX)):
            try:
                if await self._sweep_session(str(session_id)):
                    done += 1
            except InterviewError:
                continue
        return done

    async def _sweep_session(self, session_id: str) -> bool:
        last_seq = await self.engine.events.last_seq(session_id)
        if last_seq == 0:
            # Its keys expired (every session has an event from its creation): the archive,
            # if any, is all there is; the index need not carry it into every sweep.
            await self.redis.srem(keys.SESSIONS_INDEX, session_id)
            return False
        archived = await asyncio.to_thread(load_archive, self.settings.data_dir, session_id)
        state = await self.engine.load(session_id)
        if state.phase != Phase.ended:
            meta = await self.redis.hgetall(keys.session_meta(session_id))
            last = await self.redis.xrevrange(keys.session_events(session_id), count=1)
            started = int(meta.get("started_ms", 0))
            last_t = int(last[0][1]["t_ms"]) if last else 0
            idle_ms = now_ms() - started - last_t
            if idle_ms < self.settings.abandon_after_minutes * 60_000:
                return False
            await self.engine.end(session_id, reason="abandoned")
        elif archived is not None and archived.info.last_seq >= last_seq:
            return False
        return await self.archive(session_id) is not None

    async def _sweep_loop(self) -> None:
        while True:
            started = time.monotonic()
            try:
                await self.sweep_once()
                if self.settings.audio_retention_days > 0:
                    await asyncio.to_thread(self.recordings.prune,
                                            self.settings.audio_retention_days)
            except Exception:
                log.exception("archive sweep failed")
            await asyncio.sleep(max(1.0, self.settings.archive_sweep_s
                                    - (time.monotonic() - started)))

    def start(self) -> None:
        self._sweeper = asyncio.create_task(self._sweep_loop(), name="archive-sweep")

    async def aclose(self) -> None:
        await cancel_and_wait(self._sweeper, context="archive sweeper")
        await self.settle()
