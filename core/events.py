"""Every server → client event as a typed model: one pydantic class per ``type``.

The producers (engine, websocket, voice stages, judge worker) build these models; the store
records their wire form (:func:`wire`) and the websocket sends only what :func:`to_client`
lets through. The JSON Schema of the union (:func:`events_json_schema`) is published at
``GET /api/schema/events`` and by ``viva schema events``; the web app's types
(``web/src/shared/events.gen.ts``) are generated from it, and a test fails when they drift.

On the wire a field the producer did not set is absent (``exclude_unset``), so an optional
field in the schema means "may be missing", exactly as the TypeScript ``field?:`` reads.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

Phase = Literal["init", "warmup", "initial", "followup", "coding", "final_feedback", "ended"]
QuestionPhase = Literal["warmup", "initial", "followup", "coding"]
FeedbackKind = Literal["correction", "guidance", "comment"]
CaseKind = Literal["sample", "hidden", "performance"]
SubmissionKind = Literal["run", "submit"]
Verdict = Literal["AC", "WA", "TLE", "MLE", "RE", "CE", "OLE", "IE"]
Language = Literal["python", "c", "cpp", "java", "go", "javascript"]

# Always on the wire even though producers leave them to the store: ``type`` is fixed per
# class, ``seq`` is added when the event is recorded (0 marks an unrecorded error).
_ALWAYS_SENT = ("type", "seq")


def _require_always_sent(schema: dict[str, Any], model: type[BaseModel]) -> None:
    props = schema.get("properties", {})
    required = schema.setdefault("required", [])
    for name in _ALWAYS_SENT:
        if name in props and name not in required:
            required.insert(0, name)


class Part(BaseModel):
    """A nested record inside an event; unknown keys are refused."""

    model_config = ConfigDict(extra="forbid")


class Event(BaseModel):
    """Base of every server event: ``type`` picks the schema, ``seq``/``t_ms`` come from the
    session's event stream."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_require_always_sent)

    type: str
    seq: int = 0
    t_ms: int = 0

    def model_post_init(self, context: Any, /) -> None:
        # ``type`` has a default per class; mark it set so exclude_unset keeps it.
        self.__pydantic_fields_set__.add("type")


class QuestionEvent(Event):
    type: Literal["question"] = "question"
    text: str
    question_id: str
    phase: QuestionPhase
    turn_id: str


class TranscriptPartialEvent(Event):
    type: Literal["transcript_partial"] = "transcript_partial"
    text: str
    turn_id: str | None = None
    stable: str | None = Field(default=None, description="words two decodes agreed on (final)")
    tentative: str | None = Field(default=None, description="the rest, which may still change")


class TranscriptFinalEvent(Event):
    type: Literal["transcript_final"] = "transcript_final"
    text: str
    turn_id: str
    amended: bool | None = Field(
        default=None, description="the whole answer again, after a false end of turn")
    confidence: float | None = Field(
        default=None, ge=0, le=1,
        description="speech only: the recogniser's mean word probability for this text")


class AnswerAmendedEvent(Event):
    """An answer continued after a pause: the events in ``supersedes`` were taken back."""

    type: Literal["answer_amended"] = "answer_amended"
    turn_id: str
    text: str
    supersedes: list[int]


class FeedbackEvent(Event):
    type: Literal["feedback"] = "feedback"
    kind: FeedbackKind
    text: str
    turn_id: str | None = None
    score: float | None = None
    final: bool | None = Field(default=None, description="the closing words of the interview")
    submission_id: str | None = Field(default=None, description="feedback about this submission")


class TtsStartEvent(Event):
    type: Literal["tts_start"] = "tts_start"
    turn_id: str
    sample_rate: int
    text: str | None = None


class TtsEndEvent(Event):
    type: Literal["tts_end"] = "tts_end"
    turn_id: str


class TtsStopEvent(Event):
    """Barge-in: drop the audio of ``turn_id`` that is still buffered."""

    type: Literal["tts_stop"] = "tts_stop"
    turn_id: str | None = None


class SampleTest(Part):
    id: str | None = None
    input: str
    output: str
    explanation: str | None = None


class ProblemLimits(Part):
    time_ms: int | None = None
    memory_mb: int | None = None


class CodingTaskEvent(Event):
    type: Literal["coding_task"] = "coding_task"
    problem_id: str
    title: str
    statement: str
    templates: dict[str, str]
    samples: list[SampleTest]
    difficulty: str | None = None
    limits: ProblemLimits | None = None
    input_format: str | None = None
    output_format: str | None = None


class JudgeCaseEvent(Event):
    """One case finished: verdict and figures only, whatever the kind."""

    type: Literal["judge_case"] = "judge_case"
    submission_id: str
    case_id: str
    kind: CaseKind
    verdict: Verdict | None
    time_ms: int | None
    memory_kb: int | None


class SubmissionQueuedEvent(Event):
    type: Literal["submission_queued"] = "submission_queued"
    submission_id: str
    kind: SubmissionKind
    problem_id: str
    language: Language


class CompileInfo(Part):
    ok: bool
    log: str
    line: int | None = None
    message: str | None = None
    time_ms: int | None = None


class FaultView(Part):
    """A runtime error: what it was and the candidate's line (a sample case only)."""

    kind: Literal["exception", "panic", "signal", "sanitizer", "exit"]
    name: str
    message: str | None = None
    line: int | None = None


class InputSizeView(Part):
    """A case's input size without its content: the first line's first integer (rounded
    to two significant digits on a hidden or performance case, ``rounded`` then) and bytes."""

    n: int | None = None
    bytes: int = 0
    rounded: bool = False


class CaseView(Part):
    """One judged case as a session token sees it. Only a sample case carries ``input``,
    ``expected``, ``actual`` (the candidate's stdout), ``stderr``, ``error`` (why it
    failed), ``checker_message`` and ``fault``; hidden and performance cases are verdict,
    figures and ``input_size``."""

    id: str
    kind: CaseKind
    verdict: Verdict | None
    time_ms: int | None
    memory_kb: int | None
    exit_code: int | None = None
    signal: int | None = None
    input: str | None = None
    expected: str | None = None
    actual: str | None = None
    stderr: str | None = None
    error: str | None = None
    checker_message: str | None = None
    fault: FaultView | None = None
    input_size: InputSizeView | None = None


class JudgeResultEvent(Event):
    """The contract's submission result (public view)."""

    type: Literal["judge_result"] = "judge_result"
    submission_id: str
    status: Literal["queued", "running", "done"]
    verdict: Verdict | None
    passed: int
    total: int
    revision: int
    compile: CompileInfo
    cases: list[CaseView]
    evidence_text: str
    diff: str | None
    image: str | None = None
    kind: SubmissionKind | None = None
    language: str | None = None
    problem_id: str | None = None
    session_id: str | None = None
    diff_summary: str | None = None
    error: str | None = Field(default=None, description="why the judge itself failed (verdict IE)")
    backend: str | None = None
    code: str | None = None
    created_ms: int | None = None
    finished_ms: int | None = None
    execution: str | None = None


class ComplexityPoint(Part):
    n: int
    ms: int  # CPU time of one run at this n


class ComplexityMeasuredEvent(Event):
    """The judge timed an accepted submission on the problem's generator at growing n
    (after its verdict): the fitted growth exponent, the time ratio when n doubles, and the
    reference solution's class (the bank's), for the complexity talk."""

    type: Literal["complexity_measured"] = "complexity_measured"
    submission_id: str
    status: Literal["measured", "too_fast", "unavailable", "failed"]
    exponent: float | None = None
    ratio: float | None = None
    points: list[ComplexityPoint] = []
    sandbox_ms: int = 0
    reason: str | None = None
    reference_class: str | None = None
    var: str | None = None  # what n is called when it is said ("n", "the length")


class StateEvent(Event):
    type: Literal["state"] = "state"
    phase: Phase
    difficulty: str | None = None
    questions_asked: int | None = None
    answered: int | None = None
    max_questions: int | None = None


class ErrorEvent(Event):
    type: Literal["error"] = "error"
    code: str
    message: str


class SessionEndEvent(Event):
    type: Literal["session_end"] = "session_end"
    report_url: str


class CodeChangeEvent(Event):
    """The editor state the client sent, recorded for the timeline (and echoed)."""

    type: Literal["code_change"] = "code_change"
    problem_id: str
    language: Language
    code: str


class LatencyEvent(Event):
    """Moments of one spoken turn in ms after the candidate's voice ended."""

    type: Literal["latency"] = "latency"
    turn_id: str
    silence_window_ms: int
    marks_ms: dict[str, int | None]
    stt_decode_ms: int | None = None
    speculative_hit: bool = False
    end_of_turn: dict[str, Any] | None = None


class ReviewEvent(Event):
    """A human reviewer overrode the score."""

    type: Literal["review"] = "review"
    overall_score: float
    note: str
    # Who overrode, when (ISO 8601), and the grader's score it replaced (kept, never lost).
    reviewer: str | None = None
    at: str | None = None
    original_score: float | None = None


ServerEvent = Annotated[
    QuestionEvent | TranscriptPartialEvent | TranscriptFinalEvent | AnswerAmendedEvent
    | FeedbackEvent | TtsStartEvent | TtsEndEvent | TtsStopEvent | CodingTaskEvent
    | JudgeCaseEvent | SubmissionQueuedEvent | JudgeResultEvent | StateEvent | ErrorEvent
    | SessionEndEvent | CodeChangeEvent | LatencyEvent | ReviewEvent
    | ComplexityMeasuredEvent,
    Field(discriminator="type"),
]
server_event: TypeAdapter[ServerEvent] = TypeAdapter(ServerEvent)
EVENT_TYPES: frozenset[str] = frozenset(
    m.model_fields["type"].default for m in Event.__subclasses__())


def wire(event: Event) -> dict[str, Any]:
    """The JSON-ready form: what the producer set, plus ``type``."""
    return event.model_dump(mode="json", exclude_unset=True)


def parse_event(data: dict[str, Any]) -> ServerEvent:
    """Validate a recorded or received event; raises ``pydantic.ValidationError``."""
    return server_event.validate_python(data)


def to_client(data: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """What goes on the wire for a recorded event, and why it failed validation (or None).

    A recording made by an older version may not match today's schema; it is still replayed
    as recorded (losing a timeline is worse), and the caller logs the reason."""
    try:
        return wire(parse_event(data)), None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        return data, f"{data.get('type')!r}: {where}: {first.get('msg')}"


def events_json_schema() -> dict[str, Any]:
    """The JSON Schema of every server event (one ``$defs`` entry per ``type``)."""
    schema = server_event.json_schema(mode="serialization", ref_template="#/$defs/{model}")
    schema["title"] = "ServerEvent"
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["description"] = ("A server → client websocket event (also a line of the "
                             "NDJSON timeline). The `type` field picks the definition.")
    return schema
