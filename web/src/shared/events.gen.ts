// Generated from the server's event models (core/events.py) by
// `viva schema events --typescript`; do not edit. A test fails when this file
// and the schema differ: regenerate it with
//   .venv/bin/viva schema events --typescript > web/src/shared/events.gen.ts

/** An answer continued after a pause: the events in `supersedes` were taken back. */
export interface AnswerAmendedEvent {
  type: "answer_amended";
  seq: number;
  t_ms?: number;
  turn_id: string;
  text: string;
  supersedes: number[];
}

/** One judged case as a session token sees it. Only a sample case carries `input`, `expected`, `actual` (the candidate's stdout), `stderr`, `error` (why it failed), `checker_message` and `fault`; hidden and performance cases are verdict, figures and `input_size`. */
export interface CaseView {
  id: string;
  kind: "sample" | "hidden" | "performance";
  verdict: "AC" | "WA" | "TLE" | "MLE" | "RE" | "CE" | "OLE" | "IE" | null;
  time_ms: number | null;
  memory_kb: number | null;
  exit_code?: number | null;
  signal?: number | null;
  input?: string | null;
  expected?: string | null;
  actual?: string | null;
  stderr?: string | null;
  error?: string | null;
  checker_message?: string | null;
  fault?: FaultView | null;
  input_size?: InputSizeView | null;
}

/** The editor state the client sent, recorded for the timeline (and echoed). */
export interface CodeChangeEvent {
  type: "code_change";
  seq: number;
  t_ms?: number;
  problem_id: string;
  language: "python" | "c" | "cpp" | "java" | "go" | "javascript";
  code: string;
}

export interface CodingTaskEvent {
  type: "coding_task";
  seq: number;
  t_ms?: number;
  problem_id: string;
  title: string;
  statement: string;
  templates: Record<string, string>;
  samples: SampleTest[];
  difficulty?: string | null;
  limits?: ProblemLimits | null;
  input_format?: string | null;
  output_format?: string | null;
}

export interface CompileInfo {
  ok: boolean;
  log: string;
  line?: number | null;
  message?: string | null;
  time_ms?: number | null;
}

/** The judge timed an accepted submission on the problem's generator at growing n (after its verdict): the fitted growth exponent, the time ratio when n doubles, and the reference solution's class (the bank's), for the complexity talk. */
export interface ComplexityMeasuredEvent {
  type: "complexity_measured";
  seq: number;
  t_ms?: number;
  submission_id: string;
  status: "measured" | "too_fast" | "unavailable" | "failed";
  exponent?: number | null;
  ratio?: number | null;
  points?: ComplexityPoint[];
  sandbox_ms?: number;
  reason?: string | null;
  reference_class?: string | null;
  var?: string | null;
}

export interface ComplexityPoint {
  n: number;
  ms: number;
}

export interface ErrorEvent {
  type: "error";
  seq: number;
  t_ms?: number;
  code: string;
  message: string;
}

/** A runtime error: what it was and the candidate's line (a sample case only). */
export interface FaultView {
  kind: "exception" | "panic" | "signal" | "sanitizer" | "exit";
  name: string;
  message?: string | null;
  line?: number | null;
}

export interface FeedbackEvent {
  type: "feedback";
  seq: number;
  t_ms?: number;
  kind: "correction" | "guidance" | "comment";
  text: string;
  turn_id?: string | null;
  score?: number | null;
  /** the closing words of the interview */
  final?: boolean | null;
  /** feedback about this submission */
  submission_id?: string | null;
}

/** A case's input size without its content: the first line's first integer (rounded to two significant digits on a hidden or performance case, `rounded` then) and bytes. */
export interface InputSizeView {
  n?: number | null;
  bytes?: number;
  rounded?: boolean;
}

/** One case finished: verdict and figures only, whatever the kind. */
export interface JudgeCaseEvent {
  type: "judge_case";
  seq: number;
  t_ms?: number;
  submission_id: string;
  case_id: string;
  kind: "sample" | "hidden" | "performance";
  verdict: "AC" | "WA" | "TLE" | "MLE" | "RE" | "CE" | "OLE" | "IE" | null;
  time_ms: number | null;
  memory_kb: number | null;
}

/** The contract's submission result (public view). */
export interface JudgeResultEvent {
  type: "judge_result";
  seq: number;
  t_ms?: number;
  submission_id: string;
  status: "queued" | "running" | "done";
  verdict: "AC" | "WA" | "TLE" | "MLE" | "RE" | "CE" | "OLE" | "IE" | null;
  passed: number;
  total: number;
  revision: number;
  compile: CompileInfo;
  cases: CaseView[];
  evidence_text: string;
  diff: string | null;
  image?: string | null;
  kind?: "run" | "submit" | null;
  language?: string | null;
  problem_id?: string | null;
  session_id?: string | null;
  diff_summary?: string | null;
  /** why the judge itself failed (verdict IE) */
  error?: string | null;
  backend?: string | null;
  code?: string | null;
  created_ms?: number | null;
  finished_ms?: number | null;
  execution?: string | null;
}

/** Moments of one spoken turn in ms after the candidate's voice ended. */
export interface LatencyEvent {
  type: "latency";
  seq: number;
  t_ms?: number;
  turn_id: string;
  silence_window_ms: number;
  marks_ms: Record<string, number | null>;
  stt_decode_ms?: number | null;
  speculative_hit?: boolean;
  end_of_turn?: Record<string, unknown> | null;
}

export interface ProblemLimits {
  time_ms?: number | null;
  memory_mb?: number | null;
}

export interface QuestionEvent {
  type: "question";
  seq: number;
  t_ms?: number;
  text: string;
  question_id: string;
  phase: "warmup" | "initial" | "followup" | "coding";
  turn_id: string;
}

/** A human reviewer overrode the score. */
export interface ReviewEvent {
  type: "review";
  seq: number;
  t_ms?: number;
  overall_score: number;
  note: string;
  reviewer?: string | null;
  at?: string | null;
  original_score?: number | null;
}

export interface SampleTest {
  id?: string | null;
  input: string;
  output: string;
  explanation?: string | null;
}

export interface SessionEndEvent {
  type: "session_end";
  seq: number;
  t_ms?: number;
  report_url: string;
}

export interface StateEvent {
  type: "state";
  seq: number;
  t_ms?: number;
  phase: "init" | "warmup" | "initial" | "followup" | "coding" | "final_feedback" | "ended";
  difficulty?: string | null;
  questions_asked?: number | null;
  answered?: number | null;
  max_questions?: number | null;
}

export interface SubmissionQueuedEvent {
  type: "submission_queued";
  seq: number;
  t_ms?: number;
  submission_id: string;
  kind: "run" | "submit";
  problem_id: string;
  language: "python" | "c" | "cpp" | "java" | "go" | "javascript";
}

export interface TranscriptFinalEvent {
  type: "transcript_final";
  seq: number;
  t_ms?: number;
  text: string;
  turn_id: string;
  /** the whole answer again, after a false end of turn */
  amended?: boolean | null;
  /** speech only: the recogniser's mean word probability for this text */
  confidence?: number | null;
}

export interface TranscriptPartialEvent {
  type: "transcript_partial";
  seq: number;
  t_ms?: number;
  text: string;
  turn_id?: string | null;
  /** words two decodes agreed on (final) */
  stable?: string | null;
  /** the rest, which may still change */
  tentative?: string | null;
}

export interface TtsEndEvent {
  type: "tts_end";
  seq: number;
  t_ms?: number;
  turn_id: string;
}

export interface TtsStartEvent {
  type: "tts_start";
  seq: number;
  t_ms?: number;
  turn_id: string;
  sample_rate: number;
  text?: string | null;
}

/** Barge-in: drop the audio of `turn_id` that is still buffered. */
export interface TtsStopEvent {
  type: "tts_stop";
  seq: number;
  t_ms?: number;
  turn_id?: string | null;
}

export type ServerEvent =
  | QuestionEvent
  | TranscriptPartialEvent
  | TranscriptFinalEvent
  | AnswerAmendedEvent
  | FeedbackEvent
  | TtsStartEvent
  | TtsEndEvent
  | TtsStopEvent
  | CodingTaskEvent
  | JudgeCaseEvent
  | SubmissionQueuedEvent
  | JudgeResultEvent
  | StateEvent
  | ErrorEvent
  | SessionEndEvent
  | CodeChangeEvent
  | LatencyEvent
  | ReviewEvent
  | ComplexityMeasuredEvent;

/** Every `type` the server sends. */
export const SERVER_EVENT_TYPES: ReadonlySet<string> = new Set<string>([
  "question",
  "transcript_partial",
  "transcript_final",
  "answer_amended",
  "feedback",
  "tts_start",
  "tts_end",
  "tts_stop",
  "coding_task",
  "judge_case",
  "submission_queued",
  "judge_result",
  "state",
  "error",
  "session_end",
  "code_change",
  "latency",
  "review",
  "complexity_measured",
]);
