"""The archive without speech models: an abandoned session is ended and archived by the
sweep; an archive answers after its Redis keys are gone with the same token rules; retention
deletes old audio only; an import refuses paths outside its folder. Real Redis."""

from __future__ import annotations

import asyncio
import io
import json
import os
import tarfile
import time
from pathlib import Path

import numpy as np
import pytest
import redis
import redis.asyncio as aioredis

from realtime.recorder import Recording
from realtime.recording_writer import RecordingWriter
from server.archive_import import import_archive
from server.archived_session import load_archive
from server.settings import Settings
from store.recordings import RecordingStore
from tests.server.support import client, create_session, send, until

REVIEWER = {"Authorization": "Bearer reviewer-secret-xyz"}


def theirs_of(session: dict[str, str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {session['token']}"}


def test_an_abandoned_session_is_ended_archived_and_outlives_redis(redis_url: str,
                                                                   tmp_path: Path) -> None:
    with client(redis_url, tmp_path, abandon_after_minutes=0.0001,
                archive_sweep_s=3600) as c:
        s = create_session(c, max_questions=2)
        other = create_session(c, max_questions=2)
        sid, auth = s["session_id"], {"Authorization": f"Bearer {s['token']}"}
        with c.websocket_connect(f"/ws/sessions/{sid}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            until(ws, "question")
            send(ws, {"type": "answer", "text": "An index is a sorted structure over rows."})
            until(ws, "feedback")
        assert load_archive(tmp_path, sid) is None  # left, not ended: nothing archived yet
        time.sleep(0.05)
        archived = c.portal.call(c.app.state.archiver.sweep_once)
        assert archived >= 1
        info = load_archive(tmp_path, sid)
        assert info is not None and info.info.status == "ended"
        assert info.info.ended_reason == "abandoned"
        graded = c.get(f"/api/sessions/{sid}/report", headers=auth).json()["overall_score"]
        override = {"overall_score": 0.9, "note": "Strong, the grader missed it.",
                    "reviewer": "ana"}
        assert c.post(f"/api/sessions/{sid}/review", json=override,
                      headers=REVIEWER).status_code == 200
        c.portal.call(c.app.state.archiver.settle)
        review = c.get(f"/api/sessions/{sid}/report", headers=auth).json()["review"]
        assert review["reviewer"] == "ana" and review["at"] and review["note"] == override["note"]
        # The override stands everywhere: the report's header and the reviewer's list.
        assert c.get(f"/api/sessions/{sid}/report", headers=auth).json()["final_score"] == 0.9
        assert "90/100</b> after review by ana" in c.get(f"/sessions/{sid}/report",
                                                         headers=auth).text
        [row] = [r for r in c.get("/api/review/sessions", headers=REVIEWER).json()
                 if r["session_id"] == sid]
        assert row["overall_score"] == 0.9 and row["reviewed"]
        assert row["graded_score"] == pytest.approx(graded)
        assert row["status"] == "abandoned"  # not its last phase
        assert float(review["original_score"]) == pytest.approx(graded)  # the original stays
        events = c.get(f"/api/sessions/{sid}/events", headers=auth).text
        assert '"type":"session_end"' in events and '"type":"review"' in events
        assert load_archive(tmp_path, sid).info.last_seq == int(  # type: ignore[union-attr]
            json.loads(events.splitlines()[-1])["seq"])  # the override is archived too
        live = c.get(f"/api/sessions/{sid}", headers=auth).json()
        assert live["phase"] == "ended" and live["scores"]
        r = redis.Redis.from_url(redis_url)
        ttl = r.pttl(f"viva:session:{sid}:state")
        assert 0 < ttl <= 168 * 3_600_000  # expires, as configured
        r.delete(*r.keys(f"viva:session:{sid}:*"))
        r.close()
        assert c.get(f"/api/sessions/{sid}/events", headers=auth).text == events
        # The session's public state outlives Redis too, rebuilt from the archived timeline.
        kept = c.get(f"/api/sessions/{sid}", headers=auth).json()
        assert kept["current_question"] is None
        assert {k: v for k, v in kept.items() if k != "current_question"} == {
            k: v for k, v in live.items() if k != "current_question"}
        assert c.get(f"/api/sessions/{sid}", headers=theirs_of(other)).status_code == 403
        # A reviewer can still override once only the archive holds the session.
        later = {"overall_score": 0.7, "note": "Second look: the design part was thin.",
                 "reviewer": "bo"}
        assert c.post(f"/api/sessions/{sid}/review", json=later,
                      headers=theirs_of(other)).status_code in (401, 403)
        assert c.post(f"/api/sessions/{sid}/review", json=later,
                      headers=REVIEWER).status_code == 200
        report = c.get(f"/api/sessions/{sid}/report", headers=auth).json()
        assert report["review"]["reviewer"] == "bo" and report["review"]["note"] == later["note"]
        assert float(report["review"]["overall_score"]) == 0.7
        assert float(report["review"]["original_score"]) == pytest.approx(graded)
        timeline = c.get(f"/api/sessions/{sid}/events", headers=auth).text.splitlines()
        assert timeline[:-1] == events.splitlines()  # nothing already recorded is lost
        added = json.loads(timeline[-1])
        assert added["type"] == "review" and added["reviewer"] == "bo"
        assert added["seq"] == json.loads(timeline[-2])["seq"] + 1
        assert added["original_score"] == pytest.approx(graded)
        assert load_archive(tmp_path, sid).info.last_seq == added["seq"]  # type: ignore[union-attr]
        assert "Second look" in c.get(f"/sessions/{sid}/report", headers=auth).text
        assert "70/100</b> after review by bo" in c.get(f"/sessions/{sid}/report",
                                                        headers=auth).text
        assert c.post("/api/sessions/nope/review", json=later,
                      headers=REVIEWER).status_code == 404
        events = "".join(line + "\n" for line in timeline)
        assert c.get(f"/api/sessions/{sid}/report", headers=auth).json()["status"] == "ended"
        assert c.get(f"/api/sessions/{sid}/audio", headers=auth).json() == []
        theirs = {"Authorization": f"Bearer {other['token']}"}
        assert c.get(f"/api/sessions/{sid}/events", headers=theirs).status_code == 403
        assert c.get(f"/api/sessions/{sid}/events").status_code == 401
        assert c.get(f"/api/sessions/{sid}/report", headers=REVIEWER).status_code == 200
        assert c.get("/api/sessions/nope/events", headers=auth).status_code == 404
        listing = c.get("/api/review/sessions", headers=REVIEWER).json()
        [row] = [row for row in listing if row["session_id"] == sid]
        assert row["archived"] and row["overall_score"] == 0.7 and row["status"] == "abandoned"
        c.portal.call(c.app.state.archiver.sweep_once)  # forgets the expired session's id
        r = redis.Redis.from_url(redis_url)
        assert not r.sismember("viva:sessions", sid) and r.sismember("viva:sessions",
                                                                     other["session_id"])
        r.close()
        listing = c.get("/api/review/sessions", headers=REVIEWER).json()
        [row] = [row for row in listing if row["session_id"] == sid]
        assert row["archived"] and row["overall_score"] == 0.7 and row["status"] == "abandoned"


async def test_writes_off_the_loop_and_retention_keeps_the_timeline(tmp_path: Path) -> None:
    writer = RecordingWriter(tmp_path)
    samples = (np.sin(np.arange(16000) / 5) * 5000).astype(np.int16)
    writer.submit(Recording("abc", "candidate", "q-1", 1200, samples, 16000,
                            {"speech_start": 1200, "voiced_end": 2000, "turn_end": 2200}))
    await writer.drain("abc")
    store = RecordingStore(tmp_path)
    [entry] = store.entries("abc")
    assert entry.duration_ms == 1000 and entry.content_type == "audio/ogg"
    (store.session_dir("abc") / "events.ndjson").write_text("{}\n")
    old = time.time() - 10 * 86400
    os.utime(store.session_dir("abc") / "audio", (old, old))
    assert store.prune(30) == 0 and store.prune(5) == 1
    assert store.entries("abc") == []
    assert (store.session_dir("abc") / "events.ndjson").is_file()
    await writer.aclose()


@pytest.mark.parametrize("name", ["../evil.txt", "/etc/evil", "abc/../../evil"])
def test_an_import_cannot_write_outside_its_folder(tmp_path: Path, name: str) -> None:
    tarball = tmp_path / "bad.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        for member_name, data in (("abc/archive.json", json.dumps({}).encode()),
                                  (name, b"x")):
            member = tarfile.TarInfo(member_name)
            member.size = len(data)
            tar.addfile(member, io.BytesIO(data))
    with pytest.raises(ValueError):
        import_archive(tmp_path / "data", tarball)
    assert not (tmp_path / "evil.txt").exists()


def test_code_revisions_keep_each_state_and_the_tests_judged_on_it() -> None:
    from server.recording import code_revisions

    def ev(seq: int, kind: str, code: str, **extra: object) -> dict[str, object]:
        return {"seq": seq, "t_ms": seq * 10, "type": kind, "problem_id": "p",
                "language": "python", "code": code, **extra}

    revisions = code_revisions([
        ev(1, "code_change", "a"), ev(2, "code_change", "a"),  # unchanged: one state
        ev(3, "judge_result", "a", verdict="WA", passed=1, total=2),
        ev(4, "code_change", "b"),
        ev(5, "judge_result", "c", verdict="AC", passed=2, total=2),  # submitted, not seen
    ])
    assert [(r["code"], r["source"], [s["verdict"] for s in r["submissions"]])
            for r in revisions] == [("a", "editor", ["WA"]), ("b", "editor", []),
                                    ("c", "submitted", ["AC"])]


SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample_archive" / "viva-sample.tar.gz"


def test_the_sample_archive_imports_and_plays_back(redis_url: str, tmp_path: Path) -> None:
    """tests/data/sample_archive: a recorded voice interview (real speech), as `viva export`
    wrote it. It must stay readable: `viva import` it and open /playback/<id>."""
    from audio.recording_codec import decoded_seconds

    sid = import_archive(tmp_path, SAMPLE)
    with client(redis_url, tmp_path) as c:
        events = c.get(f"/api/sessions/{sid}/events", headers=REVIEWER).text.splitlines()
        assert json.loads(events[-1])["seq"] == len(events)
        audio = c.get(f"/api/sessions/{sid}/audio", headers=REVIEWER).json()
        assert {a["speaker"] for a in audio} == {"candidate", "interviewer"}
        clip = c.get(audio[0]["url"], headers=REVIEWER)
        assert abs(decoded_seconds(clip.content) * 1000 - audio[0]["duration_ms"]) <= 100
        assert c.get(f"/api/sessions/{sid}/transcript.vtt",
                     headers=REVIEWER).text.startswith("WEBVTT")
        state = c.get(f"/api/sessions/{sid}", headers=REVIEWER).json()
        graded = [json.loads(e) for e in events if '"type":"feedback"' in e]
        assert state["phase"] == "ended" and state["answered"] >= 1
        assert {s["turn_id"] for s in state["scores"]} == {
            e["turn_id"] for e in graded if e.get("turn_id") and e.get("score") is not None}
        assert c.get(f"/api/sessions/{sid}/audio").status_code == 401


async def test_a_slow_archiver_does_not_release_anothers_lock(
        aredis: aioredis.Redis, tmp_path: Path) -> None:
    """Issue 23, item 6: the archive lock is released only by its holder."""
    from server.archive import Archiver

    settings = Settings(env="test", reviewer_token="a-real-secret-123", data_dir=tmp_path)
    slow, other = (Archiver(aredis, None, settings) for _ in range(2))  # type: ignore[arg-type]
    slow.lock_ms = 200
    lock = "viva:session:abc:archive_lock"
    slow_hold = slow._locked("abc")
    assert await slow_hold.__aenter__()
    async with other._locked("abc") as taken:
        assert not taken  # held: the other process does not get it
    await asyncio.sleep(0.4)  # the slow one's lock expired...
    async with other._locked("abc") as taken:  # ...and the other process took it
        assert taken
        theirs = await aredis.get(lock)
        await slow_hold.__aexit__(None, None, None)  # the slow one finishes, releasing
        assert await aredis.get(lock) == theirs  # the other's lock is untouched
    assert await aredis.get(lock) is None  # released by its holder


async def test_closing_stops_a_sweep_that_loses_its_first_cancel(tmp_path: Path) -> None:
    from server.archive import Archiver
    from tests.lost_cancel import StuckCall, finishes

    stuck = StuckCall()  # a sweep's Redis call that loses its cancel

    class SwallowingArchiver(Archiver):
        async def sweep_once(self) -> int:
            await stuck()
            return 0

    settings = Settings(env="test", reviewer_token="a-real-secret-123", data_dir=tmp_path,
                        archive_sweep_s=3600)
    archiver = SwallowingArchiver(None, None, settings)  # type: ignore[arg-type]
    archiver.start()
    await asyncio.wait_for(stuck.entered.wait(), 5)
    closed = await finishes(archiver.aclose(), 15)  # a re-cancel comes after 2 s
    assert closed is not None and stuck.lost == 1
