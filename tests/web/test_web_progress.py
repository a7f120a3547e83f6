"""The candidate page and the lobby's rejoin list, in real Chromium against the real server
(real Redis, the bank, the grader): two interviews and one practice are answered over the real
websocket, their credentials stored as the lobby stores them; the page draws the per-topic
chart (inline SVG) with a point per graded session, and the lobby lists the interviews."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Playwright, expect
from websockets.sync.client import connect

from agents.question_bank import load_question_bank
from tests.web.harness import JsErrors, launch, open_app, screenshot, viva_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WEAK = "It is something to do with data, I think."  # weak; not "I don't know" (a hint)
RATINGS = {"algorithms": 3, "engineering": 3, "projects": 3}


def answer_once(base: str, s: dict[str, Any], answer: str | None) -> str:
    bank = load_question_bank()
    ws_url = base.replace("http", "ws", 1) + f"/ws/sessions/{s['session_id']}?token={s['token']}"
    with connect(ws_url, origin=base) as ws:  # type: ignore[arg-type]
        ws.send(json.dumps({"type": "start"}))
        qid = ""
        while True:
            event = json.loads(ws.recv(timeout=60))
            if event["type"] == "question":  # a hint's smaller question is answered too
                text = (answer or bank.get(event["question_id"]).reference_answer) if not qid \
                    else "I would have to look that up."
                qid = qid or event["question_id"]
                ws.send(json.dumps({"type": "answer", "text": text}))
            if event["type"] == "session_end":
                return qid


def test_candidate_page_charts_two_interviews_and_a_practice(
        web_dist: Path, redis_url: str, tmp_path: Path, playwright_driver: Playwright,
        js_errors: JsErrors) -> None:
    with viva_server(redis_url, tmp_path / "data", "progress") as server:
        body = {"candidate_id": "ada", "role": "backend engineer", "mode": "text",
                "self_ratings": RATINGS, "rounds": ["concepts"], "max_questions": 1}
        made = [httpx.post(server.url + "/api/sessions", json=body).json()]
        key = made[0]["candidate_key"]  # the second joins ada's progress with ada's key
        made.append(httpx.post(server.url + "/api/sessions",
                               json={**body, "candidate_key": key}).json())
        assert made[1]["joins_progress"] is True
        qid = answer_once(server.url, made[0], WEAK)
        answer_once(server.url, made[1], WEAK)
        r = httpx.post(f"{server.url}/api/sessions/{made[0]['session_id']}/practice",
                       json={"question_id": qid},
                       headers={"Authorization": f"Bearer {made[0]['token']}"})
        assert r.status_code == 201, r.text
        made.append(r.json())
        answer_once(server.url, made[2], None)

        browser = launch(playwright_driver, grant_microphone=False)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 1000})
            open_app(page, server.url + "/", js_errors)
            stored = [{"session_id": s["session_id"], "token": s["token"], "ws_url": "",
                       "mode": "text", "started": True, "candidate_id": "ada",
                       "created_at": f"2026-01-0{i + 1}T10:00:00Z"}
                      for i, s in enumerate(made)]
            page.evaluate("""(all) => { for (const s of all)
                localStorage.setItem('viva.session.' + s.session_id, JSON.stringify(s)); }""",
                          stored)
            page.reload()
            # The lobby lists the stored interviews with rejoin and progress links.
            listed = page.get_by_test_id("stored-sessions")
            for s in made:
                expect(listed.locator(f"[data-session='{s['session_id']}']")).to_be_visible()
            page.get_by_test_id("candidate-id").fill("ada")
            page.get_by_test_id("candidate-id").dispatch_event("change")
            expect(page.get_by_test_id("lobby-focus")).to_contain_text("Suggested focus")
            listed.get_by_test_id("progress-link").first.click()
            page.wait_for_url(server.url + "/candidates/ada")

            chart = page.get_by_test_id("progress-chart")
            expect(chart).to_be_visible(timeout=30_000)
            assert chart.locator("circle.point").count() >= 3  # one per graded session
            items = page.get_by_test_id("progress-sessions").locator("li")
            expect(items).to_have_count(3)
            assert [items.nth(i).get_attribute("data-kind") for i in range(3)] == [
                "interview", "interview", "practice"]
            expect(page.get_by_test_id("weak-points")).to_contain_text("improved")
            expect(page.get_by_test_id("suggested-focus")).to_be_visible()
            screenshot(page, "progress")

            # The printable page opens by a click (ticket, cookie, clean URL), and a browser
            # without the cookie gets a page that says so, not raw JSON.
            printable = f"{server.url}/api/candidates/ada/progress.html"
            page.get_by_test_id("progress-printable").click()
            page.wait_for_url(printable)
            expect(page.locator("h1")).to_have_text("Progress of ada")
            expect(page.locator("body")).not_to_contain_text("unauthorized")
            fresh = browser.new_page()
            try:
                refused = fresh.goto(printable)
                assert refused is not None and refused.status == 401
                expect(fresh.get_by_test_id("no-access-reason")).to_be_visible()
                expect(fresh.get_by_test_id("back-to-lobby")).to_be_visible()
            finally:
                fresh.close()
            page.go_back()
            expect(page.get_by_test_id("progress-chart")).to_be_visible(timeout=30_000)

            js_errors.assert_none()
            # The browser logs the refusal below itself; that one is expected.
            sid = made[0]["session_id"]
            js_errors.allowed = (
                "status of 403 (Forbidden) @ " + server.url + "/api/candidates/ada/progress",
                "status of 403 (Forbidden) @ " + server.url + f"/api/sessions/{sid}/ticket")
            # A credential the server refuses stays on a friendly page with a way back.
            page.evaluate("""() => { for (const k of Object.keys(localStorage))
                if (k.startsWith('viva.session.')) localStorage.setItem(k, JSON.stringify(
                  {...JSON.parse(localStorage.getItem(k)), token: 'wrong-token'})); }""")
            page.reload()
            expect(page.get_by_test_id("progress-error")).to_contain_text("refused")
            expect(page.get_by_role("link", name="Back to the lobby")).to_be_visible()

            # The interview page too: no room that never connects beside an open answer box,
            # but a page that says the key was refused, and the key is not offered again.
            page.goto(f"{server.url}/interview/{sid}")
            expect(page.get_by_test_id("access-refused")).to_contain_text("refused")
            expect(page.get_by_test_id("answer-input")).to_have_count(0)
            expect(page.get_by_test_id("back-to-lobby")).to_be_visible()
            assert page.evaluate(f"localStorage.getItem('viva.session.{sid}')") is None
            page.get_by_test_id("back-to-lobby").click()
            page.wait_for_url(server.url + "/")

            # The lobby offers the suggested focus, ticked: the next interview is created
            # with it (the server then asks that topic first; tests/server/test_progress.py).
            page.evaluate("""([all, key]) => { for (const s of all)
                localStorage.setItem('viva.session.' + s.session_id, JSON.stringify(s));
                localStorage.setItem('viva.candidate-key.ada', key); }""", [stored, key])
            page.reload()
            page.get_by_test_id("candidate-id").fill("ada")
            page.get_by_test_id("candidate-id").dispatch_event("change")
            expect(page.get_by_test_id("lobby-focus")).to_contain_text("Focus this interview on")
            expect(page.get_by_test_id("use-focus")).to_be_checked()
            with page.expect_request(lambda req: req.method == "POST"
                                     and req.url.endswith("/api/sessions")) as created:
                page.get_by_test_id("start-interview").click()
            focus_topic = created.value.post_data_json["focus_topic"]
            # ... with ada's key from this browser, so it joins her progress.
            assert created.value.post_data_json["candidate_key"] == key
            progress = httpx.get(f"{server.url}/api/candidates/ada/progress",
                                 headers={"Authorization": f"Bearer {made[1]['token']}"}).json()
            assert focus_topic == progress["suggested_focus"]["topic_key"] is not None
        finally:
            browser.close()
