"""End to end in real Chromium against the real server (`viva serve`, real Redis, real
speech models, real sandboxed judge): a spoken interview through the fake microphone, then
the coding round with a wrong and a correct solution, the report, playback and review."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, Playwright, WebSocket, expect

from tests.conftest import ROOT
from tests.web.event_probe import undeclared_reads
from tests.web.harness import (
    JsErrors,
    VivaServer,
    launch,
    open_app,
    screenshot,
    speech_wav,
    viva_server,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SPOKEN = "A dictionary is a hash table that maps keys to values with constant time lookups."
WRONG = "import sys\nsys.stdin.read()\nprint('definitely not the answer')\n"
CRASH = "import sys\nprint('partial output')\nsys.stdout.flush()\nprint(1 // 0)\n"
TYPED = ("I would explain the trade offs: time and memory, the common cases, and the failure "
         "modes, with an example from a project where I measured it.")


@pytest.fixture
def server(web_dist: Path, redis_url: str, tmp_path: Path,
           request: pytest.FixtureRequest) -> Iterator[VivaServer]:
    with viva_server(redis_url, tmp_path / "data", request.node.name) as running:
        yield running


@pytest.fixture(scope="module")
def spoken_answer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # The answer starts after the first question has been spoken (the voice models load on
    # first use, then the question is read out); barge-in has its own test.
    return speech_wav(SPOKEN, tmp_path_factory.mktemp("speech") / "answer.wav", lead_s=12)


def replace_code(page: Page, code: str, *, paste: bool = False) -> None:
    """Types `code` into Monaco. Chromium delivers the newlines of one `insert_text` as Enter
    presses, which Monaco auto-indents: indented code is pasted from the clipboard instead."""
    page.get_by_test_id("code-editor").locator(".view-lines").click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    if paste:
        page.evaluate("text => navigator.clipboard.writeText(text)", code)
        page.keyboard.press("Control+V")
    else:
        page.keyboard.insert_text(code)


class JudgeResults:
    """The ``judge_result`` events the page receives on its session socket: when a verdict is
    not the one expected, the failure says what the judge said (its ``error`` for an IE)."""

    def __init__(self, page: Page):
        self.events: list[dict[str, Any]] = []
        page.on("websocket", self._socket)

    def _socket(self, socket: WebSocket) -> None:
        socket.on("framereceived", self._frame)

    def _frame(self, payload: str | bytes) -> None:
        if isinstance(payload, bytes):
            return
        try:
            event = json.loads(payload)
        except ValueError:
            return
        if isinstance(event, dict) and event.get("type") == "judge_result":
            self.events.append(event)

    def describe(self) -> str:
        if not self.events:
            return "no judge_result event reached the page"
        last = self.events[-1]
        failing = [(c.get("id"), c.get("verdict"), c.get("error"))
                   for c in last.get("cases", []) if c.get("verdict") != "AC"]
        return (f"last judge_result: verdict={last.get('verdict')} "
                f"passed={last.get('passed')}/{last.get('total')} "
                f"backend={last.get('backend')} error={last.get('error')!r} "
                f"failing cases={failing[:5]}")


def expect_verdict(verdict: Locator, expected: str, results: JudgeResults) -> None:
    try:
        expect(verdict).to_have_text(expected, timeout=120_000)
    except AssertionError as exc:
        raise AssertionError(f"verdict is not {expected}: {results.describe()}") from exc


def reference_solution(problem_id: str) -> str:
    path = ROOT / "bank" / "problems" / problem_id / "solutions" / "reference.py"
    assert path.is_file(), f"the bank's problem {problem_id} has no reference solution at {path}"
    return path.read_text()


def answer_until_coding(page: Page, attempts: int = 8) -> None:
    """Types answers to whatever the interviewer asks until the coding round opens."""
    room = page.get_by_test_id("coding-room")
    caption = page.get_by_test_id("interviewer-text")
    for _ in range(attempts):
        if room.is_visible():
            return
        before = caption.inner_text()
        page.get_by_test_id("answer-input").fill(TYPED)
        page.get_by_test_id("answer-send").click()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and caption.inner_text() == before \
                and not room.is_visible():
            time.sleep(0.2)
    expect(room).to_be_visible(timeout=30_000)


def test_spoken_interview_then_coding_round(
        playwright_driver: Playwright, server: VivaServer, spoken_answer: Path,
        js_errors: JsErrors) -> None:
    browser = launch(playwright_driver, fake_audio=spoken_answer)
    try:
        context = browser.new_context(viewport={"width": 1366, "height": 900},
                                      permissions=["clipboard-read", "clipboard-write"])
        page = context.new_page()
        judge_results = JudgeResults(page)
        open_app(page, server.url + "/", js_errors)
        page.get_by_test_id("candidate-id").fill("web-e2e")
        page.get_by_test_id("mode-voice").check()
        page.get_by_test_id("round-coding").check()
        for key in ("algorithms", "engineering", "projects"):
            page.get_by_test_id(f"rating-{key}-1").check()  # easy: a short coding problem
        page.locator("details.more summary").click()
        page.get_by_test_id("max-questions").fill("1")
        screenshot(page, "e2e-lobby")
        page.get_by_test_id("start-interview").click()
        page.wait_for_url(re.compile(r"/interview/[^/]+$"))
        session_id = page.url.rsplit("/", 1)[1]

        caption = page.get_by_test_id("interviewer-text")
        expect(caption).not_to_have_text(re.compile("Connecting"), timeout=30_000)
        expect(caption).to_have_text(re.compile(r"\w+.*\?|\w{4,}"))
        expect(page.get_by_test_id("mic-status")).to_have_attribute("data-state", "live")
        # The fake microphone speaks after 12 s: our words come back as the transcript.
        transcript = page.get_by_test_id("transcript")
        expect(transcript).to_contain_text(re.compile("hash", re.I), timeout=90_000)
        expect(transcript.locator(".final")).to_contain_text(
            re.compile(r"hash table.*keys", re.I), timeout=60_000)
        # The interviewer's reply is spoken: streamed PCM reached the page's player.
        audio = page.get_by_test_id("interviewer-audio")
        expect(audio).not_to_have_attribute("data-bytes", "0", timeout=60_000)
        screenshot(page, "e2e-voice-interview")
        # The server refused nothing the page sent (e.g. audio ahead of audio_config).
        expect(page.get_by_test_id("error-message")).to_have_count(0)

        answer_until_coding(page)
        editor = page.get_by_test_id("code-editor")
        expect(editor.locator(".monaco-editor")).to_be_visible(timeout=30_000)
        page.get_by_test_id("language-select").select_option("python")
        problem_id = page.evaluate(
            "document.querySelector('[data-testid=problem]')?.dataset.problemId ?? ''")
        assert problem_id, "the coding room names its problem"

        # A wrong solution: the failing case is shown.
        replace_code(page, WRONG)
        page.get_by_test_id("submit-code").click()
        verdict = page.get_by_test_id("verdict")
        expect_verdict(verdict, "WA", judge_results)
        expect(page.locator("[data-testid=case-row][data-verdict=WA]").first).to_be_visible()
        expect(page.get_by_test_id("failing-case")).to_be_visible()
        screenshot(page, "e2e-coding-wrong")

        # The bank's reference solution: AC, one row per case.
        replace_code(page, reference_solution(problem_id), paste=True)
        page.get_by_test_id("submit-code").click()
        expect_verdict(verdict, "AC", judge_results)
        passed = page.get_by_test_id("passed-count").inner_text()
        done, total = (int(n) for n in re.findall(r"\d+", passed)[:2])
        assert done == total > 0
        expect(page.get_by_test_id("case-row")).to_have_count(total)
        expect(page.locator("[data-testid=case-row][data-verdict=AC]")).to_have_count(total)
        screenshot(page, "e2e-coding-accepted")
        expect(page.get_by_test_id("error-message")).to_have_count(0)

        page.get_by_test_id("end-interview").click()
        page.get_by_test_id("end-confirm").click()
        report_link = page.get_by_test_id("report-link")
        expect(report_link).to_be_visible(timeout=60_000)
        # The closing words are spoken (real Piper) and heard to their end, then it says so.
        expect(page.get_by_test_id("end-panel")).to_have_attribute(
            "data-closing", "heard", timeout=60_000)
        expect(page.get_by_test_id("connection-state")).to_have_attribute(
            "data-state", "finished")
        href = report_link.get_attribute("href")
        assert href and "token" not in href  # no credential in a URL
        # Without a credential the report is a page that says so, never raw JSON ...
        refused = page.request.get(server.url + href)
        assert refused.status == 401 and "html" in refused.headers["content-type"]
        # ... and the link itself opens it (a one-time ticket, then the page's cookie).
        report_link.click()
        page.wait_for_url(re.compile(r"/sessions/[^/?]+/report$"))
        expect(page.locator("h1")).to_have_text("Interview report")

        # Playback: the recorded timeline with the code as it stood at the end.
        page.goto(f"{server.url}/playback/{session_id}")
        expect(page.get_by_test_id("playback-events").locator("li").first).to_be_visible()
        slider = page.get_by_test_id("playback-slider")
        slider.evaluate("s => { s.value = s.max; s.dispatchEvent(new Event('input')); }")
        expect(page.get_by_test_id("playback-transcript")).to_contain_text(
            re.compile("hash table", re.I))
        expect(page.get_by_test_id("playback-code")).to_contain_text(
            reference_solution(problem_id).strip().splitlines()[0])
        # The coding round in words beside the timeline: score by part, each point.
        expect(page.get_by_test_id("playback-coding")).to_contain_text(re.compile("explained"))
        expect(page.get_by_test_id("playback-coding-score")).to_contain_text("correctness 100")
        screenshot(page, "e2e-playback")

        # Review: the reviewer token opens the dashboard with this session.
        page.goto(f"{server.url}/review")
        page.get_by_test_id("reviewer-token").fill(server.reviewer_token)
        page.get_by_test_id("reviewer-token-submit").click()
        row = page.get_by_test_id("review-session-row").filter(has_text=session_id)
        expect(row).to_be_visible(timeout=15_000)
        row.get_by_role("button").click()
        detail = page.get_by_test_id("review-detail")
        expect(detail).to_contain_text("web-e2e")
        # Readable: the coding round with its revisions and verdicts in words, no raw dump.
        coding = page.get_by_test_id("review-coding")
        expect(coding).to_be_visible()
        expect(coding).to_contain_text("wrong answer")
        expect(coding).to_contain_text("accepted")
        assert page.get_by_test_id("review-revision").count() >= 2
        # The round's score by part and each of the problem's points, explained or not.
        expect(page.get_by_test_id("review-coding-score")).to_contain_text("correctness 100")
        expect(page.get_by_test_id("review-approach")).to_contain_text(re.compile("explained"))
        expect(page.get_by_test_id("review-questions")).to_contain_text("“")
        for raw in ("turn id", "t ms", "question id", "weak point keys", "_"):
            assert raw not in detail.inner_text(), f"raw field {raw!r} in the reviewer detail"
        expect(row.get_by_test_id("review-status")).to_contain_text("finished")
        # An override shows in the detail's header and in the list.
        page.locator("#override-score").fill("0.8")
        page.locator("#override-note").fill("The design talk was better than graded.")
        page.get_by_test_id("review-override").get_by_role("button").click()
        expect(page.get_by_test_id("review-overall")).to_have_text("Overall 80/100")
        expect(page.get_by_test_id("review-summary")).to_contain_text("after review")
        expect(row.get_by_test_id("review-score")).to_contain_text("80/100")
        expect(row.get_by_test_id("review-score")).to_contain_text("reviewed")
        screenshot(page, "reviewer-detail")
        assert undeclared_reads(page) == [], "the UI read event fields the server never sends"
    finally:
        browser.close()


def test_a_crashing_python_sample_shows_its_traceback_and_output(
        playwright_driver: Playwright, server: VivaServer, js_errors: JsErrors) -> None:
    """The real judge, a Python runtime error on a sample: the candidate sees what their
    program printed beside the expected output, and the traceback."""
    browser = launch(playwright_driver)
    try:
        page = browser.new_page(viewport={"width": 1366, "height": 1000})
        open_app(page, server.url + "/", js_errors)
        page.get_by_test_id("candidate-id").fill("web-e2e-crash")
        page.get_by_test_id("mode-text").check()
        page.get_by_test_id("round-concepts").uncheck()
        page.get_by_test_id("round-coding").check()
        page.get_by_test_id("start-interview").click()
        page.wait_for_url(re.compile(r"/interview/[^/]+$"))
        editor = page.get_by_test_id("code-editor")
        expect(editor.locator(".monaco-editor")).to_be_visible(timeout=30_000)
        page.get_by_test_id("language-select").select_option("python")

        replace_code(page, CRASH)
        page.get_by_test_id("run-code").click()
        expect(page.get_by_test_id("verdict")).to_have_text("RE", timeout=120_000)
        failing = page.get_by_test_id("failing-case")
        expect(failing).to_have_attribute("data-kind", "sample")
        expect(page.get_by_test_id("actual-output")).to_have_text("partial output")
        expect(page.get_by_test_id("expected-output")).not_to_have_text("(no output)")
        expect(page.get_by_test_id("actual-output").locator(".output-line-differs")).to_have_count(1)
        stderr = page.get_by_test_id("case-stderr")
        expect(stderr).to_contain_text("Traceback (most recent call last)")
        expect(stderr).to_contain_text("ZeroDivisionError")
        # The interviewer's words about this run sit beside the failing case: the exception
        # and the candidate's own line.
        said = failing.get_by_test_id("interviewer-explanation")
        expect(said).to_be_visible(timeout=30_000)
        expect(said).to_contain_text(re.compile(r"ZeroDivisionError on line \d+"))
        path = screenshot(page, "e2e-coding-traceback")
        assert path.is_file()
        assert undeclared_reads(page) == [], "the UI read event fields the server never sends"
    finally:
        browser.close()
