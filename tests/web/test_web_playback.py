"""Playback in real Chromium of a recorded voice interview (real speech, real models) whose
Redis keys are gone: the archive serves it; the page plays the audio from a moment in the
middle of an answer, shows that moment's transcript and code, obeys its shortcuts, and a
report item jumps to its moment — with no JavaScript error."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import redis
from playwright.sync_api import Page, Playwright, expect

from tests.server.support import client
from tests.server.test_recorded_session import record_voice_interview
from tests.web.harness import JsErrors, launch, screenshot, viva_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TYPED = "A queue hands items out in the order they came in, first in, first out."
ID_LIKE = re.compile(r"\b[a-z]+[-_][a-z]+/[a-z-]+\b|\btopic:|\b[a-z]+_[a-z]+\b|\bpython\b")


def visible_text(page: str) -> str:
    body = re.sub(r"<style.*?</style>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def vtt_time(ms: int) -> str:
    h, rem = divmod(ms, 3_600_000)
    m, rem = divmod(rem, 60_000)
    return f"{h:02d}:{m:02d}:{rem // 1000:02d}.{rem % 1000:03d}"


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
        s, events, _ = record_voice_interview(c, ["vctk_p314_272.wav", TYPED])
        sid = s["session_id"]
        audio = c.get(f"/api/sessions/{sid}/audio",
                      headers={"Authorization": f"Bearer {s['token']}"}).json()
    r = redis.Redis.from_url(redis_url)
    r.delete(*r.keys(f"viva:session:{sid}:*"))  # only the archive is left
    r.close()
    [answer] = [a for a in audio if a["speaker"] == "candidate"]
    final, typed = [e for e in events if e["type"] == "transcript_final"]
    assert typed["text"] == TYPED and final["turn_id"] == answer["turn_id"]
    # Where each answer begins: the spoken one's recording, the typed one when it was sent.
    begins = {final["turn_id"]: answer["t_ms"], typed["turn_id"]: typed["t_ms"]}
    first, second = [e for e in events if e["type"] == "code_change"]

    with viva_server(redis_url, data_dir, "playback") as server:
        browser = launch(playwright_driver, grant_microphone=False)
        try:
            page = browser.new_page()
            js_errors.watch(page)
            # No token in the URL: the credential this browser stored when it created the
            # session (localStorage), as the lobby does.
            page.goto(f"{server.url}/")
            page.evaluate("""(s) => localStorage.setItem('viva.session.' + s.session_id,
                JSON.stringify({...s, mode: 'voice', started: true}))""", s)
            page.goto(f"{server.url}/playback/{sid}")
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

            # A typed answer is shown at the moment it was sent, in the page and the VTT.
            typed_cue = page.locator("[data-testid=playback-cue][data-marks~=typed]")
            expect(typed_cue).to_have_count(1)
            expect(typed_cue).to_contain_text(TYPED)
            assert int(typed_cue.get_attribute("data-start") or -1) == typed["t_ms"]
            seek(page, typed["t_ms"] + 200)
            expect(transcript.locator("li.current")).to_contain_text(TYPED)
            vtt = page.request.get(f"{server.url}/api/sessions/{sid}/transcript.vtt",
                                   headers={"Authorization": f"Bearer {s['token']}"}).text()
            assert f"{vtt_time(typed['t_ms'])} --> " in vtt and TYPED in vtt
            # The timeline follows: the event at that moment is marked and in view.
            listed = page.get_by_test_id("playback-events")
            current = listed.locator("li.current")
            expect(current).to_have_count(1)
            assert int(current.get_attribute("data-t") or -1) <= typed["t_ms"] + 200
            assert current.evaluate("""li => { const box = li.parentElement.getBoundingClientRect();
                const r = li.getBoundingClientRect(); return r.top >= box.top - 1
                && r.bottom <= box.bottom + 1; }"""), "the timeline did not follow playback"

            # The report's moments in playback: each at the start of the answer it quotes.
            moments = page.get_by_test_id("report-moment")
            expect(moments).to_have_count(2)
            in_playback = sorted(int(float(m.get_attribute("data-t") or -1))
                                 for m in moments.all())
            assert in_playback == sorted(begins.values())
            moments.first.click()
            assert abs(position(page) - in_playback[0]) < 150
            screenshot(page, "playback")

            # The printed report: each answer quoted once, no ids, its links land on the
            # answer's start in playback (the same moments playback's own copy gives).
            auth = {"Authorization": f"Bearer {s['token']}"}
            report_page = page.request.get(f"{server.url}/sessions/{sid}/report", headers=auth)
            assert report_page.status == 200
            report_html = report_page.text()
            text = visible_text(report_html)
            for said in (final["text"], TYPED):
                assert text.count(said) == 1, f"quoted {text.count(said)} times: {said}"
            assert not ID_LIKE.search(text), ID_LIKE.search(text)
            assert "Python" in text  # the language by its name
            links = re.findall(r"href='(/playback/[^']+\?t=(\d+))'", report_html)
            answer_links = [(href, int(t)) for href, t in links if int(t) in begins.values()]
            assert sorted(t for _, t in answer_links) == sorted(begins.values())
            report_page_view = browser.new_page(viewport={"width": 1100, "height": 1400})
            report_page_view.set_content(report_html)
            screenshot(report_page_view, "report")
            report_page_view.close()
            # A fresh tab: the reviewer's credential in this tab's storage, none in the link.
            page.evaluate("t => sessionStorage.setItem('viva.reviewer-token', t)",
                          server.reviewer_token)
            for href, t in answer_links:
                page.goto(server.url + href)
                expect(transcript.locator("li").first).to_be_visible()
                expected = min(begins.values(), key=lambda b: abs(b - t))
                assert abs(position(page) - expected) <= 1000, (href, position(page), expected)
            page.evaluate("sessionStorage.removeItem('viva.reviewer-token')")

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
