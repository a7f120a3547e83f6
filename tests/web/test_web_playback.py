"""Playback in real Chromium of a recorded voice interview (real speech, real models) whose
Redis keys are gone: the archive serves it; the page plays the audio from a moment in the
middle of an answer, shows that moment's transcript and code, obeys its shortcuts, and a
report item jumps to its moment — with no JavaScript error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import redis
from playwright.sync_api import Page, Playwright, expect

from tests.server.support import client
from tests.server.test_recorded_session import record_voice_interview
from tests.web.harness import JsErrors, launch, screenshot, viva_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def position(page: Page) -> float:
    return float(page.get_by_test_id("playback-slider").input_value())


def seek(page: Page, ms: int) -> None:
    page.get_by_test_id("playback-slider").evaluate(
        "(s, ms) => { s.value = String(ms); s.dispatchEvent(new Event('input')); }", ms)


def test_playback_plays_audio_and_shows_the_moment(
        web_dist: Path, redis_url: str, tmp_path: Path, playwright_driver: Playwright,
        js_errors: JsErrors) -> None:
    data_dir = tmp_path / "data"
    with client(redis_url, data_dir) as c:
        s, events, _ = record_voice_interview(c, ["vctk_p314_272.wav"])
        sid = s["session_id"]
        audio = c.get(f"/api/sessions/{sid}/audio",
                      headers={"Authorization": f"Bearer {s['token']}"}).json()
    r = redis.Redis.from_url(redis_url)
    r.delete(*r.keys(f"viva:session:{sid}:*"))  # only the archive is left
    r.close()
    [answer] = [a for a in audio if a["speaker"] == "candidate"]
    [final] = [e for e in events if e["type"] == "transcript_final"]
    first, second = [e for e in events if e["type"] == "code_change"]

    with viva_server(redis_url, data_dir, "playback") as server:
        browser = launch(playwright_driver, grant_microphone=False)
        try:
            page = browser.new_page()
            js_errors.watch(page)
            page.goto(f"{server.url}/playback/{sid}?token={s['token']}")
            transcript = page.get_by_test_id("playback-transcript")
            expect(transcript.locator("li").first).to_be_visible()

            # Mid-answer: the candidate's cue is the current one, no code yet.
            middle = answer["t_ms"] + answer["duration_ms"] // 2
            seek(page, middle)
            expect(transcript.locator("li.current")).to_contain_text(final["text"][:20])
            expect(page.get_by_test_id("playback-code-label")).to_contain_text("No code yet")

            # Space plays from there: the audio context plays the answer mid-utterance.
            page.locator("body").press("Space")
            expect(page.get_by_test_id("playback-audio-state")).to_have_text(
                "playing", timeout=15_000)
            started = position(page)
            page.wait_for_timeout(1200)
            assert position(page) > started + 500  # the clock follows the audio
            page.keyboard.press("Space")
            expect(page.get_by_test_id("playback-audio-state")).to_have_text("paused")
            paused_at = position(page)
            page.keyboard.press("ArrowLeft")
            assert abs(position(page) - max(0, paused_at - 5000)) < 150

            # The editor shows each state of the code where it was recorded.
            code = page.get_by_test_id("playback-code")
            seek(page, first["t_ms"] + 100)
            expect(code).to_contain_text("print('first')")
            seek(page, second["t_ms"] + 10)
            expect(code).to_contain_text("print('second')")
            expect(page.get_by_test_id("playback-code-label")).to_contain_text("python")

            # A report item jumps to its moment: the start of the answer it quotes.
            moments = page.get_by_test_id("report-moment")
            expect(moments.first).to_be_visible()
            target = float(moments.first.get_attribute("data-t") or -1)
            moments.first.click()
            assert abs(position(page) - target) < 150
            assert target == answer["t_ms"]
            screenshot(page, "playback-archived")

            # The printed report's links open playback at the start of the quoted answer.
            report = page.request.get(f"{server.url}/sessions/{sid}/report?token={s['token']}")
            assert report.status == 200
            link = re.search(r"href='(/playback/[^']+&amp;turn=[^']+)'", report.text())
            assert link, "the report links no moment"
            page.goto(server.url + link.group(1).replace("&amp;", "&") + f"&token={s['token']}")
            expect(transcript.locator("li.current")).to_contain_text(final["text"][:20])
            assert position(page) == answer["t_ms"]

            # The reviewer finds it (archived: its Redis keys are gone) and opens its playback.
            page.goto(f"{server.url}/review")
            page.get_by_test_id("reviewer-token").fill(server.reviewer_token)
            page.get_by_test_id("reviewer-token-submit").click()
            page.get_by_test_id("review-filter").fill(sid[:6])
            row = page.get_by_test_id("review-session-row")
            expect(row).to_have_count(1)
            expect(row).to_contain_text("archived")
            row.get_by_role("link", name="Playback").click()
            expect(page.get_by_test_id("playback-transcript")).to_contain_text(
                final["text"][:20])
        finally:
            browser.close()
