"""Learning from an interview, in real Chromium against the real server (real Redis, the
bank, the grader): the report's "Try this one again" starts a practice session with the same
question; answered better, its report shows both attempts side by side with both scores, and
links the first attempt, which stays as it was."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, Playwright, expect

from agents.question_bank import load_question_bank
from tests.web.harness import JsErrors, launch, open_app, screenshot, viva_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WEAK = "It is something to do with data, I think."  # weak; not "I don't know" (a hint)


def score_of(text: str) -> int:
    found = re.search(r"(\d+)/100", text)
    assert found, text
    return int(found.group(1))


def test_try_this_one_again_shows_both_attempts(
        web_dist: Path, redis_url: str, tmp_path: Path, playwright_driver: Playwright,
        js_errors: JsErrors) -> None:
    bank = load_question_bank()
    by_text = {q.text: q for q in bank.questions.values()}
    with viva_server(redis_url, tmp_path / "data", "practice") as server:
        browser = launch(playwright_driver, grant_microphone=False)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            open_app(page, server.url + "/", js_errors)
            page.get_by_test_id("candidate-id").fill("learner-1")
            page.get_by_test_id("mode-text").check()
            page.get_by_test_id("round-coding").uncheck()  # on by default; one question only
            page.locator("details.more summary").click()
            page.get_by_test_id("max-questions").fill("1")
            page.get_by_test_id("start-interview").click()
            page.wait_for_url(re.compile(r"/interview/[^/]+$"))
            first_id = page.url.rsplit("/", 1)[1]
            caption = page.get_by_test_id("interviewer-text")
            expect(caption).not_to_have_text(re.compile("Connecting"), timeout=30_000)
            asked = caption.inner_text().strip()
            question = by_text[asked]
            page.get_by_test_id("answer-input").fill(WEAK)
            page.get_by_test_id("answer-send").click()
            report_link = page.get_by_test_id("report-link")  # one question: it ends itself
            expect(report_link).to_be_visible(timeout=60_000)
            open_report(page, report_link)
            page.get_by_test_id("try-again").first.click()

            expect(page.get_by_test_id("practice-question")).to_have_text(asked)
            page.get_by_test_id("practice-text").click()
            page.wait_for_url(re.compile(r"/interview/[^/]+$"))
            assert page.url.rsplit("/", 1)[1] != first_id
            expect(caption).to_have_text(asked, timeout=30_000)  # the same question again
            page.get_by_test_id("answer-input").fill(question.reference_answer)
            page.get_by_test_id("answer-send").click()
            report_link = page.get_by_test_id("report-link")
            expect(report_link).to_be_visible(timeout=60_000)
            open_report(page, report_link)

            before = page.get_by_test_id("practice-before")
            after = page.get_by_test_id("practice-after")
            expect(before).to_contain_text(WEAK)
            # This attempt's answer is quoted once: in its question, with its moment.
            said = question.reference_answer[:40]
            expect(after).to_contain_text("Quoted below")
            expect(after).not_to_contain_text(said)
            expect(page.get_by_test_id("report-answer").filter(has_text=said)).to_have_count(1)
            before_score = score_of(before.inner_text())
            assert score_of(after.inner_text()) > before_score
            assert page.get_by_test_id("first-attempt").get_attribute("href") == \
                f"/playback/{first_id}"
            screenshot(page, "try-again")
            practice_id = page.url.split("/sessions/", 1)[1].split("/", 1)[0]

            # The practice session plays back, and links the first attempt, which still has
            # the weak answer and its own score (the practice did not touch it).
            page.goto(f"{server.url}/playback/{practice_id}")
            transcript = page.get_by_test_id("playback-transcript")
            expect(transcript).to_contain_text(asked)
            expect(transcript).to_contain_text(question.reference_answer[:40])
            page.get_by_test_id("playback-practice-of").get_by_test_id("first-attempt").click()
            page.wait_for_url(re.compile(rf"/playback/{first_id}$"))
            expect(transcript).to_contain_text(WEAK)
            expect(transcript).not_to_contain_text(question.reference_answer[:40])
            expect(page.get_by_test_id("playback-report")).to_contain_text(
                f"Report · {before_score}/100")
        finally:
            browser.close()


def open_report(page: Page, link: Locator) -> None:
    """Click the report link as a person would: it buys a one-time ticket, the server turns
    it into the page's cookie and redirects to the clean URL (no token in any URL)."""
    href = link.get_attribute("href") or ""
    assert "token" not in href and "ticket" not in href, href
    link.click()
    page.wait_for_url(re.compile(r"/sessions/[^/?]+/report$"))
