"""The browser app in real Chromium against a scripted protocol server (tests/web/
scripted_server.py): exact situations — reconnect with resume, barge-in, compile errors on a
known line, a failing sample, a refused microphone — each checked on the page."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, Playwright, expect

from tests.web.event_probe import undeclared_reads
from tests.web.harness import JsErrors, launch, open_app, screenshot
from tests.web.scripted_server import CLOSING_S, ScriptedServer

pytestmark = pytest.mark.browser

CORRECT = "a, b = map(int, input().split())\nprint(a + b)\n"
WRONG = "a, b = map(int, input().split())\nprint(a - b)  # WRONG\n"
SYNTAX = "a, b = map(int, input().split())\nprint(a +  # SYNTAX\n"
CRASH = "a, b = map(int, input().split())\nprint('partial')\nprint(a // 0)  # CRASH\n"


@pytest.fixture
def scripted(web_dist: Path) -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    server.start()
    yield server
    server.stop()


def wait_for(predicate: Callable[[], bool], timeout_s: float = 10, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def replace_code(page: Page, code: str) -> None:
    editor = page.get_by_test_id("code-editor")
    editor.locator(".view-lines").click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)


def start_from_lobby(page: Page, url: str, mode: str) -> None:
    page.goto(url + "/")
    page.get_by_test_id(f"mode-{mode}").check()
    page.get_by_test_id("candidate-id").fill("scripted-candidate")
    page.get_by_test_id("round-coding").check()
    page.get_by_test_id("start-interview").click()
    page.wait_for_url(re.compile(r"/interview/s-1$"))


def test_text_interview_reconnects_codes_and_ends(
        playwright_driver: Playwright, scripted: ScriptedServer, js_errors: JsErrors) -> None:
    browser = launch(playwright_driver)
    try:
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        open_app(page, scripted.url + "/", js_errors)
        page.get_by_test_id("candidate-id").fill("")
        page.get_by_test_id("start-interview").click()
        expect(page.get_by_test_id("error-message")).to_contain_text("candidate id")
        screenshot(page, "scripted-lobby")

        start_from_lobby(page, scripted.url, "text")
        created = scripted.script.received[0]
        assert created["type"] == "http_create" and created["mode"] == "text"
        assert created["rounds"] == ["concepts", "coding"]
        expect(page.get_by_test_id("interviewer-text")).to_have_text("Tell me about a hash table.")
        expect(page.get_by_test_id("connection-state")).to_have_attribute("data-state", "open")
        assert scripted.script.kinds()[1:3] == ["resume", "start"]
        # The spoken question's audio reached the player (odd-sized chunks and all).
        audio = page.get_by_test_id("interviewer-audio")
        wait_for(lambda: int(audio.get_attribute("data-bytes") or 0) >= 26460, what="tts audio")

        # A dropped connection: the page reconnects, resumes after the last seq, and shows
        # nothing twice.
        last_seq = len(scripted.script.events)
        scripted.drop_connection()
        wait_for(lambda: scripted.script.connections == 2, what="reconnect")
        expect(page.get_by_test_id("connection-state")).to_have_attribute("data-state", "open")
        # The server counts a connection when it accepts it, before the page's first message
        # on it has arrived: wait for the second resume itself, not only for the socket.
        wait_for(lambda: scripted.script.kinds().count("resume") == 2, what="the second resume")
        resumes = [m for m in scripted.script.received if m["type"] == "resume"]
        assert resumes[-1] == {"type": "resume", "after_seq": last_seq}
        assert scripted.script.kinds().count("start") == 1
        log = page.get_by_test_id("conversation-log")
        expect(log.locator("li")).to_have_count(1)

        page.get_by_test_id("answer-input").fill("It maps keys to buckets through a hash function.")
        page.get_by_test_id("answer-send").click()
        expect(page.get_by_test_id("transcript")).to_contain_text("maps keys to buckets")
        # Our typed answer, echoed by the server as transcript_final, appears once.
        expect(page.get_by_test_id("transcript").locator(".final")).to_have_count(1)
        expect(page.get_by_test_id("feedback")).to_contain_text("collisions")
        expect(page.get_by_test_id("interviewer-text")).to_have_text("Now solve A plus B.")

        # Coding room: Monaco, six languages, the problem's template.
        editor = page.get_by_test_id("code-editor")
        expect(editor.locator(".monaco-editor")).to_be_visible(timeout=20000)
        options = page.get_by_test_id("language-select").locator("option")
        assert options.evaluate_all("os => os.map(o => o.value)") == [
            "python", "c", "cpp", "java", "go", "javascript"]
        expect(editor).to_contain_text("def main():")
        expect(page.get_by_test_id("problem-statement")).to_contain_text("print their sum")
        page.get_by_test_id("language-select").select_option("java")
        expect(editor).to_contain_text("public class Main")
        page.get_by_test_id("language-select").select_option("python")
        expect(editor).to_contain_text("def main():")

        # A compile error is drawn in the editor at its line.
        replace_code(page, SYNTAX)
        page.get_by_test_id("run-code").click()
        expect(page.get_by_test_id("verdict")).to_have_text("CE")
        expect(page.get_by_test_id("compile-log")).to_contain_text("SyntaxError")
        expect(editor.locator(".squiggly-error")).to_have_count(1)
        line_two_top = editor.locator(".view-line").nth(1).bounding_box()
        squiggle = editor.locator(".squiggly-error").bounding_box()
        assert line_two_top and squiggle and abs(squiggle["y"] - line_two_top["y"]) < 8

        # A wrong answer: the failing sample is shown in full.
        replace_code(page, WRONG)
        page.get_by_test_id("submit-code").click()
        expect(page.get_by_test_id("verdict")).to_have_text("WA")
        expect(page.get_by_test_id("case-row")).to_have_count(4)
        expect(page.locator("[data-testid=case-row][data-verdict=WA]")).to_have_count(1)
        failing = page.get_by_test_id("failing-case")
        expect(failing).to_contain_text("-10")
        expect(failing).to_contain_text("Expected")
        expect(editor.locator(".squiggly-error")).to_have_count(0)
        # Their output beside the expected one, the differing line marked; the checker's word.
        expect(page.get_by_test_id("actual-output")).to_have_text("-10")
        expect(page.get_by_test_id("expected-output")).to_have_text("0")
        expect(page.get_by_test_id("actual-output").locator(".output-line-differs")).to_have_count(1)
        expect(page.get_by_test_id("checker-message")).to_contain_text("expected '0'")

        # A crash: the traceback and what was printed before it.
        replace_code(page, CRASH)
        page.get_by_test_id("run-code").click()
        expect(page.get_by_test_id("verdict")).to_have_text("RE")
        expect(page.get_by_test_id("case-stderr")).to_contain_text("ZeroDivisionError")
        expect(page.get_by_test_id("case-stderr")).to_contain_text("Traceback")
        expect(page.get_by_test_id("actual-output")).to_have_text("partial")
        screenshot(page, "scripted-coding-room-traceback")

        replace_code(page, CORRECT)
        page.get_by_test_id("submit-code").click()
        expect(page.get_by_test_id("verdict")).to_have_text("AC")
        expect(page.get_by_test_id("case-row")).to_have_count(4)
        expect(page.locator("[data-testid=case-row][data-verdict=AC]")).to_have_count(4)
        expect(page.get_by_test_id("diff")).to_be_attached()
        screenshot(page, "scripted-coding-room")

        # The editor timeline went out as throttled code_change messages ending on the code.
        changes = [m for m in scripted.script.received if m["type"] == "code_change"]
        assert 1 <= len(changes) <= 12, len(changes)
        assert changes[-1]["code"] == CORRECT and changes[-1]["language"] == "python"
        submits = [m for m in scripted.script.received if m["type"] == "submit"]
        assert [s["kind"] for s in submits] == ["run", "submit", "run", "submit"]
        assert submits[-1]["code"] == CORRECT

        page.set_viewport_size({"width": 390, "height": 844})
        screenshot(page, "scripted-coding-room-phone")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"

        page.get_by_test_id("end-interview").click()
        page.get_by_test_id("end-confirm").click()
        report = page.get_by_test_id("report-link")
        expect(report).to_be_visible()
        # No token in the link: a click buys a one-time ticket over Authorization.
        assert report.get_attribute("href") == "/sessions/s-1/report"
        assert undeclared_reads(page) == [], "the UI read event fields the server never sends"
    finally:
        browser.close()


def test_ending_is_confirmed_and_the_closing_words_play_to_their_end(
        playwright_driver: Playwright, scripted: ScriptedServer, js_errors: JsErrors) -> None:
    """"End interview" asks first; after session_end the closing words (streamed after it, as
    the real server does) play to their end before the page closes its socket, and the page
    says the interview finished: never "Disconnected", never stuck on "Ending…"."""
    browser = launch(playwright_driver)
    try:
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        open_app(page, scripted.url + "/", js_errors)
        start_from_lobby(page, scripted.url, "text")
        expect(page.get_by_test_id("interviewer-text")).to_have_text("Tell me about a hash table.")
        audio = page.get_by_test_id("interviewer-audio")
        expect(audio).to_have_attribute("data-state", "idle", timeout=5000)

        end = page.get_by_test_id("end-interview")
        dialog = page.get_by_test_id("end-confirm-dialog")
        end.click()
        expect(dialog).to_be_visible()
        expect(dialog).to_contain_text("End the interview now?")
        page.get_by_test_id("end-cancel").click()
        expect(dialog).to_be_hidden()
        time.sleep(0.3)
        assert "end" not in scripted.script.kinds(), "cancelled, yet the interview was ended"
        expect(end).to_be_enabled()

        end.click()
        page.get_by_test_id("end-confirm").click()
        wait_for(lambda: "end" in scripted.script.kinds(), what="end sent")
        panel = page.get_by_test_id("end-panel")
        expect(panel).to_contain_text("Interview finished")
        expect(page.get_by_test_id("report-link")).to_be_visible()
        # The closing words play: the socket stays open while they do.
        expect(audio).to_have_attribute("data-state", "speaking", timeout=5000)
        expect(panel).to_have_attribute("data-closing", "playing")
        assert scripted.script.socket is not None, "the socket closed under the closing words"
        expect(panel).to_have_attribute("data-closing", "heard", timeout=15_000)
        expect(audio).to_have_attribute("data-state", "idle")
        sent_at = scripted.script.closing_sent_at
        assert sent_at is not None
        wait_for(lambda: (scripted.script.closed_at or 0) > sent_at, what="the page closing")
        closed_after = (scripted.script.closed_at or 0) - sent_at
        # Sent at once, heard in real time: the close waited for the speech to end.
        assert closed_after >= CLOSING_S - 0.25, f"closed {closed_after:.2f} s after the audio"
        state = page.get_by_test_id("connection-state")
        expect(state).to_have_attribute("data-state", "finished")
        expect(state.locator(".label")).to_have_text("Finished")
        expect(page.get_by_text("Disconnected")).to_have_count(0)
        expect(end).to_have_text("Interview ended")
        expect(end).to_be_disabled()
        expect(page.get_by_test_id("error-message")).to_have_count(0)
        screenshot(page, "ending")
        assert undeclared_reads(page) == [], "the UI read event fields the server never sends"
    finally:
        browser.close()


def test_the_event_probe_catches_an_undeclared_read(
        playwright_driver: Playwright, scripted: ScriptedServer) -> None:
    """The probe itself: a read of `stdout` (the name the coding room once used for the
    candidate's output) on a judged case is caught; declared fields are not."""
    browser = launch(playwright_driver)
    try:
        page = browser.new_page()
        open_app(page, scripted.url + "/")
        page.evaluate("""() => {
          const e = JSON.parse(JSON.stringify({type: 'judge_result', seq: 1,
            submission_id: 's', status: 'done', verdict: 'WA', passed: 0, total: 1,
            revision: 1, compile: {ok: true, log: ''}, evidence_text: '', diff: null,
            cases: [{id: 's1', kind: 'sample', verdict: 'WA', time_ms: 1, memory_kb: 1,
                     actual: '2'}]}));
          const c = e.cases.find((x) => x.verdict !== 'AC');
          return [c.actual, c.stdout, 'message' in c, e.compile.log, JSON.stringify(e)];
        }""")
        assert undeclared_reads(page) == ["judge_result.cases[].stdout",
                                          "judge_result.cases[].message"]
    finally:
        browser.close()


def test_voice_room_streams_mic_and_obeys_barge_in(
        playwright_driver: Playwright, scripted: ScriptedServer, js_errors: JsErrors) -> None:
    browser = launch(playwright_driver)  # Chromium's fake microphone (a beep)
    try:
        page = browser.new_page()
        js_errors.watch(page)
        start_from_lobby(page, scripted.url, "voice")
        expect(page.get_by_test_id("mic-status")).to_have_attribute("data-state", "live")
        wait_for(lambda: scripted.script.binary_frames >= 10, what="microphone frames")
        assert scripted.script.violations == []
        kinds = scripted.script.kinds()
        assert "audio_config" in kinds
        config = next(m for m in scripted.script.received if m["type"] == "audio_config")
        assert config == {"type": "audio_config", "sample_rate": 16000, "encoding": "pcm_s16le"}
        # 40 ms frames of 16 kHz PCM16: 1280 bytes each, about 32 kB/s.
        assert scripted.script.binary_bytes == scripted.script.binary_frames * 1280
        before = scripted.script.binary_bytes
        time.sleep(1.0)
        rate = scripted.script.binary_bytes - before
        assert 24000 <= rate <= 40000, f"{rate} bytes/s of audio"

        # Barge-in: long interviewer speech, then tts_stop silences it at once.
        audio = page.get_by_test_id("interviewer-audio")
        expect(audio).to_have_attribute("data-state", "idle", timeout=5000)
        scripted.speak("t9", 4.0)
        expect(audio).to_have_attribute("data-state", "speaking")
        scripted.push({"type": "tts_stop", "turn_id": "t9"})
        expect(audio).to_have_attribute("data-state", "idle", timeout=500)
        assert page.evaluate(
            "Array.from(document.querySelectorAll('[data-testid=interviewer-text]')).length") == 1

        # Mute keeps the frames flowing (silence), so the server's turn timing stays live.
        page.get_by_test_id("mute").click()
        expect(page.get_by_test_id("mute")).to_have_attribute("aria-pressed", "true")
        muted_from = scripted.script.binary_frames
        wait_for(lambda: scripted.script.binary_frames > muted_from + 5, what="muted frames")
        page.get_by_test_id("end-turn").click()
        wait_for(lambda: "end_turn" in scripted.script.kinds(), what="end_turn")
        # After a dropped connection the new socket is configured again before audio.
        scripted.drop_connection()
        wait_for(lambda: scripted.script.connections == 2, what="reconnect")
        frames = scripted.script.binary_frames
        wait_for(lambda: scripted.script.binary_frames > frames + 5, what="frames after reconnect")
        assert scripted.script.kinds().count("audio_config") == 2
        assert scripted.script.violations == []
        screenshot(page, "scripted-voice-room")
    finally:
        browser.close()


def test_refused_microphone_is_explained_and_typing_still_works(
        playwright_driver: Playwright, scripted: ScriptedServer, js_errors: JsErrors) -> None:
    browser = launch(playwright_driver, grant_microphone=False)
    try:
        context = browser.new_context(permissions=[])
        page = context.new_page()
        js_errors.watch(page)
        start_from_lobby(page, scripted.url, "voice")
        status = page.get_by_test_id("mic-status")
        expect(status).to_have_attribute("data-state", "error")
        expect(status).to_have_attribute("data-problem", re.compile("denied|absent"))
        expect(status).to_contain_text("type your answers")
        expect(page.get_by_test_id("interviewer-text")).to_have_text("Tell me about a hash table.")
        page.get_by_test_id("answer-input").fill("Typed because the mic is blocked.")
        page.get_by_test_id("answer-input").press("Enter")
        expect(page.get_by_test_id("transcript")).to_contain_text("mic is blocked")
        screenshot(page, "scripted-mic-refused")
    finally:
        browser.close()


