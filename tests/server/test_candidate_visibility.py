"""What a candidate can fetch never carries the interview's secrets.

A full text interview with a concepts and a coding round (real Redis, real bubblewrap judge):
every HTTP response the candidate's token can get and every websocket event is kept, then
scanned for the secrets of the questions actually asked (reference answers and their
sentences, forbidden hints) and of the problem actually set (hidden and performance tests'
inputs and expected outputs, the reference solution). A control scan of the reviewer's view
of the same submission must find hidden test data, so the scanner is known to see it.
Reviewer endpoints need the reviewer token; another session's token opens nothing here.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agents.hints import parent_question_id
from agents.question_bank import load_question_bank
from judge.problems import ProblemRegistry, resolve_tests
from tests.conftest import ROOT
from tests.server.support import client, create_session, send

pytestmark = pytest.mark.slow
REVIEWER = "reviewer-secret-xyz"  # tests.server.support.make_settings
MIN_SECRET = 12  # shorter strings ("3\n") occur anywhere by chance


def norm(text: str) -> str:
    return " ".join(text.split())


def strings_of(payload: str) -> str:
    """A payload's text as a reader gets it: JSON string values, NDJSON, unescaped HTML."""
    def walk(value: Any) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [s for k, v in value.items() for s in (str(k), *walk(v))]
        if isinstance(value, list):
            return [s for v in value for s in walk(v)]
        return [str(value)]

    parts: list[str] = []
    for line in payload.splitlines() or [payload]:
        try:
            parts += walk(json.loads(line))
        except ValueError:
            parts.append(html.unescape(re.sub(r"<[^>]+>", " ", line)))
    try:
        parts += walk(json.loads(payload))
    except ValueError:
        pass
    return norm("\n".join(parts))


class Recorder:
    """Every payload the candidate received, by where it came from."""

    def __init__(self, c: TestClient, token: str):
        self.c, self.auth = c, {"Authorization": f"Bearer {token}"}
        self.payloads: list[tuple[str, str]] = []
        self.events: list[dict[str, Any]] = []

    def get(self, url: str) -> Any:
        r = self.c.get(url, headers=self.auth)
        assert r.status_code < 500, (url, r.status_code, r.text[:300])
        self.payloads.append((f"GET {url}", r.text))
        return r

    def receive(self, ws: Any, until: str, limit: int = 300) -> list[dict[str, Any]]:
        got = []
        for _ in range(limit):
            text = ws.receive_text()
            self.payloads.append(("ws", text))
            event = json.loads(text)
            got.append(event)
            self.events.append(event)
            if event["type"] == until:
                return got
        raise AssertionError(f"no {until}: {[e['type'] for e in got]}")


def secrets_for(events: list[dict[str, Any]], problem_id: str,
                public: str) -> list[tuple[str, str]]:
    """(what, text) of everything the candidate must not see, for what was asked."""
    bank = load_question_bank()
    parent = {f.id: q for q in bank.questions.values() for f in q.followups}
    out: list[tuple[str, str]] = []
    asked = {e["question_id"] for e in events if e["type"] == "question"}
    for qid in asked:
        # A smaller question after a hint (agents.hints) names its question in its id.
        q = bank.questions.get(qid) or parent.get(qid) or bank.questions.get(
            parent_question_id(qid) or "")
        if q is None:  # a coding-phase question is about the problem, not the bank
            continue
        said = norm(" ".join([q.text, *(f.text for f in q.followups), *q.hints,
                              q.feedback.correction, q.feedback.guidance, q.feedback.comment]))
        out.append((f"{q.id} reference answer", norm(q.reference_answer)))
        for sentence in re.split(r"(?<=[.!?])\s+", q.reference_answer):
            # A sentence the interviewer may say anyway (in the question, a hint) is public.
            if len(norm(sentence)) >= 40 and norm(sentence) not in said:
                out.append((f"{q.id} reference sentence", norm(sentence)))
        out += [(f"{q.id} forbidden hint", norm(h)) for h in q.forbidden_hints
                if len(norm(h)) >= MIN_SECRET]
    registry = ProblemRegistry.from_bank(ROOT / "bank")
    problem = registry.get(problem_id)
    assert problem is not None
    for case in resolve_tests(problem):
        if case.kind == "sample":
            continue
        for what, text in (("input", case.input), ("expected output", case.output)):
            t = norm(text)[:200]  # a prefix is enough (performance inputs are large)
            if len(t) >= MIN_SECRET and t not in public:
                out.append((f"{problem_id} {case.kind} {case.id} {what}", t))
    # The assessment points the talk is graded against (agents/approach.py) are the rubric.
    out += [(f"{problem_id} assessment point {p.id}", norm(p.text))
            for p in problem.assessment_points
            if len(norm(p.text)) >= MIN_SECRET and norm(p.text) not in public]
    reference = ROOT / "bank" / "problems" / problem_id / "solutions" / "reference.py"
    for line in reference.read_text().splitlines():
        if len(line.strip()) >= 30 and norm(line) not in public:
            out.append((f"{problem_id} reference solution line", norm(line)))
    return out


def hidden_values(problem_id: str, public: str) -> list[tuple[str, str]]:
    """Short hidden-test data the spoken words could carry ("expected 4000000000"): each
    expected output line and each input line after the first (the first is the size, which
    may be said), of four or more characters and not in the public text."""
    problem = ProblemRegistry.from_bank(ROOT / "bank").get(problem_id)
    assert problem is not None
    out = []
    for case in resolve_tests(problem):
        if case.kind == "sample":
            continue
        lines = [*case.output.splitlines()[:50], *case.input.splitlines()[1:50]]
        out += [(f"{problem_id} {case.kind} {case.id} value", norm(v)[:200]) for v in lines
                if len(norm(v)) >= 4 and norm(v) not in public]
    return out


def spoken_leaks(events: list[dict[str, Any]], values: list[tuple[str, str]]) -> list[str]:
    """What the interviewer said or showed (feedback, questions) naming a hidden value as a
    whole word."""
    said = [e["text"] for e in events if e.get("type") in ("feedback", "question")]
    return [f"{what} said: {text[:120]!r}" for text in said for what, value in values
            if re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", norm(text))]


def leaks(payloads: list[tuple[str, str]], secrets: list[tuple[str, str]]) -> list[str]:
    found = []
    for where, payload in payloads:
        text = strings_of(payload)
        found += [f"{what} in {where}: {secret[:80]!r}" for what, secret in secrets
                  if secret in text]
    return found


@pytest.mark.timeout(150)
def test_no_candidate_payload_carries_a_secret(redis_url: str, tmp_path: Path) -> None:
    with client(redis_url, tmp_path, judge_enabled=True, judge_backend="bwrap",
                judge_in_process_worker=True) as c:
        s = create_session(c, rounds=["concepts", "coding"], max_questions=2)
        sid = s["session_id"]
        rec = Recorder(c, s["token"])
        rec.payloads.append(("POST /api/sessions", json.dumps(s)))
        with c.websocket_connect(f"/ws/sessions/{sid}?token={s['token']}") as ws:
            send(ws, {"type": "start"})
            rec.receive(ws, "question")
            # Concepts: a vague answer, then "not sure" twice (guidance, then a correction).
            answers = iter(["It depends on the workload and the data, I think.",
                            "I am not sure.", "I don't know."] + ["I don't know."] * 6)
            while not any(e["type"] == "coding_task" for e in rec.events):
                send(ws, {"type": "answer", "text": next(answers)})
                rec.receive(ws, "state")
                rec.get(f"/api/sessions/{sid}")
            task = next(e for e in rec.events if e["type"] == "coding_task")
            pid = task["problem_id"]
            rec.get("/api/problems")
            rec.get(f"/api/problems/{pid}")
            # A hint (the problem's first) is said and shown: it is scanned like the rest.
            send(ws, {"type": "answer", "text": "Can I get a hint?"})
            said = [rec.receive(ws, "feedback")[-1]["text"]]
            # The loop above may have sent one more "I don't know." into the coding round
            # ("Noted."), before the hint request; the hint is the last thing said.
            if said[-1].startswith("Noted."):
                said.append(rec.receive(ws, "feedback")[-1]["text"])
            assert said[-1].startswith("Here is a hint. "), said
            wrong = (ROOT / "bank" / "problems" / pid / "solutions" / "wrong.py").read_text()
            send(ws, {"type": "code_change", "problem_id": pid, "language": "python",
                      "code": wrong})
            submissions = []
            for kind in ("run", "submit"):
                send(ws, {"type": "submit", "problem_id": pid, "language": "python",
                          "code": wrong, "kind": kind})
                result = rec.receive(ws, "judge_result")[-1]
                submissions.append(result["submission_id"])
                rec.get(f"/api/submissions/{result['submission_id']}")
            assert result["verdict"] == "WA" and result["total"] > result["passed"]
            rec.receive(ws, "feedback")  # the interviewer on the evidence
            # Samples right, hidden tests wrong: the interviewer talks about a hidden test.
            lookup = ("import sys\nSAMPLES = " + repr({t["input"]: t["output"]
                                                       for t in task["samples"]})
                      + "\nsys.stdout.write(SAMPLES.get(sys.stdin.read(), '0\\n'))\n")
            send(ws, {"type": "submit", "problem_id": pid, "language": "python",
                      "code": lookup, "kind": "submit"})
            result = rec.receive(ws, "judge_result")[-1]
            assert result["verdict"] == "WA", result["cases"][:3]
            rec.receive(ws, "feedback")
            # Then a correct solution, so every hidden and performance case runs too. From
            # here on the reference solution is the candidate's own code (not a secret).
            cut = len(rec.payloads)
            reference = (ROOT / "bank" / "problems" / pid / "solutions" / "reference.py")
            send(ws, {"type": "submit", "problem_id": pid, "language": "python",
                      "code": reference.read_text(), "kind": "submit"})
            result = rec.receive(ws, "judge_result")[-1]
            assert result["verdict"] == "AC"
            assert {k["kind"] for k in result["cases"]} >= {"sample", "hidden"}
            submissions.append(result["submission_id"])
            rec.get(f"/api/submissions/{result['submission_id']}")
            everything = (f"/api/sessions/{sid}", f"/api/sessions/{sid}/events",
                          f"/api/sessions/{sid}/transcript.vtt", f"/api/sessions/{sid}/report",
                          f"/sessions/{sid}/report", f"/interview/{sid}", "/api/schema/events")
            for url in everything:  # while the interview is live
                rec.get(url)
            send(ws, {"type": "end"})
            rec.receive(ws, "session_end")
        ended = len(rec.payloads)
        for url in everything:
            rec.get(url)

        # Public: the problem as published, and what the candidate wrote (their own code).
        public = " ".join([strings_of(rec.c.get(f"/api/problems/{pid}").text), norm(wrong),
                           norm(lookup)])
        secrets = secrets_for(rec.events, pid, public)
        kinds = {what.split(" ", 1)[1] for what, _ in secrets}
        # The scan has something to look for: answers and hidden tests of what was asked.
        assert any("reference answer" in k for k in kinds), kinds
        assert any(k.startswith(("hidden", "performance")) for k in kinds), kinds
        found = leaks(rec.payloads[:cut], secrets) + leaks(
            rec.payloads[cut:ended], [x for x in secrets if "reference solution" not in x[0]])
        # Once the interview has ended the report teaches: the bank's model answers and the
        # problem's assessment points are in it then (and only then, and only in the
        # report); hidden tests never are.
        after = [x for x in secrets if "reference" not in x[0]]
        found += leaks(rec.payloads[ended:], [x for x in after if "assessment point" not in x[0]])
        found += leaks([p for p in rec.payloads[ended:] if "/report" not in p[0]], after)
        assert not found, "\n".join(found[:20])
        # The spoken words, to the short values a prefix scan misses; the interviewer did
        # talk about a hidden failure. Control: the old wording ("the expected output was
        # ...") on a hidden case would be caught.
        values = hidden_values(pid, public)
        assert values
        feedback = [e["text"] for e in rec.events if e["type"] == "feedback"]
        assert any(re.search(r"A (hidden|performance) test", t) for t in feedback), feedback
        assert not spoken_leaks(rec.events, values), spoken_leaks(rec.events, values)[:5]
        assert spoken_leaks([{"type": "feedback", "text": f"The expected output was "
                              f"{values[0][1]} but yours was 3."}], values)
        model_answers = [x for x in secrets if x[0].endswith("reference answer")]
        assert leaks([p for p in rec.payloads[ended:] if "/report" in p[0]], model_answers)

        # Control: the reviewer's view of the same submission does show hidden test data,
        # so the scanner would have caught it in the candidate's.
        reviewer_view = c.get(f"/api/submissions/{submissions[-1]}",
                              headers={"Authorization": f"Bearer {REVIEWER}"})
        assert reviewer_view.status_code == 200
        assert leaks([("reviewer", reviewer_view.text)], secrets)

        check_reviewer_endpoints(c, sid, s["token"])
        check_other_sessions_token(c, sid, submissions)


def check_reviewer_endpoints(c: TestClient, sid: str, token: str) -> None:
    review = {"overall_score": 0.5, "note": "checked", "reviewer": "r1"}
    for method, url, body in (("GET", "/api/review/sessions", None),
                              ("POST", f"/api/sessions/{sid}/review", review)):
        for headers, status in (({}, 401), ({"Authorization": f"Bearer {token}"}, 403),
                                ({"Authorization": "Bearer not-the-reviewer"}, 403)):
            r = c.request(method, url, json=body, headers=headers)
            assert r.status_code in (status, 401), (method, url, headers, r.status_code)
            assert r.status_code in (401, 403), (method, url, r.text)
            assert set(r.json()) == {"error"} and r.json()["error"]["code"]
        r = c.request(method, url, json=body, headers={"Authorization": f"Bearer {REVIEWER}"})
        assert r.status_code == 200, (method, url, r.text)


def check_other_sessions_token(c: TestClient, sid: str, submissions: list[str]) -> None:
    other = create_session(c, candidate_id="cand-2")
    auth = {"Authorization": f"Bearer {other['token']}"}
    for url in (f"/api/sessions/{sid}", f"/api/sessions/{sid}/events",
                f"/api/sessions/{sid}/transcript.vtt", f"/api/sessions/{sid}/report",
                *(f"/api/submissions/{x}" for x in submissions)):
        r = c.get(url, headers=auth)
        assert r.status_code in (401, 403, 404), (url, r.status_code)
        assert set(r.json()) == {"error"}
    r = c.post(f"/api/sessions/{sid}/submissions", headers=auth,
               json={"problem_id": "a", "language": "python", "code": "x", "kind": "run"})
    assert r.status_code in (401, 403, 404, 422), r.text
    with c.websocket_connect(f"/ws/sessions/{sid}?token={other['token']}") as ws:
        assert ws.receive_json()["type"] == "error"
