// The wire protocol of contract.md, typed. The websocket layer only parses and routes these;
// pages never read ad-hoc keys off raw JSON.

export type Language = 'python' | 'c' | 'cpp' | 'java' | 'go' | 'javascript';

export const LANGUAGES: readonly { id: Language; label: string; monacoId: string }[] = [
  { id: 'python', label: 'Python 3', monacoId: 'python' },
  { id: 'c', label: 'C', monacoId: 'c' },
  { id: 'cpp', label: 'C++', monacoId: 'cpp' },
  { id: 'java', label: 'Java', monacoId: 'java' },
  { id: 'go', label: 'Go', monacoId: 'go' },
  { id: 'javascript', label: 'JavaScript', monacoId: 'javascript' },
];

export function isLanguage(value: string): value is Language {
  return LANGUAGES.some((l) => l.id === value);
}

export type Verdict = 'AC' | 'WA' | 'TLE' | 'MLE' | 'RE' | 'CE' | 'OLE' | 'IE';

export const VERDICT_NAMES: Record<Verdict, string> = {
  AC: 'Accepted',
  WA: 'Wrong answer',
  TLE: 'Time limit exceeded',
  MLE: 'Memory limit exceeded',
  RE: 'Runtime error',
  CE: 'Compilation error',
  OLE: 'Output limit exceeded',
  IE: 'Internal error',
};

export type CaseKind = 'sample' | 'hidden' | 'performance';
export type QuestionPhase = 'warmup' | 'initial' | 'followup' | 'coding';
export type FeedbackKind = 'correction' | 'guidance' | 'comment';

export interface SampleTest {
  input: string;
  output: string;
  explanation?: string;
}

export interface ProblemLimits {
  time_ms?: number;
  memory_mb?: number;
}

export interface CodingTask {
  problem_id: string;
  title: string;
  statement: string;
  templates: Partial<Record<Language, string>>;
  samples: SampleTest[];
  limits?: ProblemLimits;
}

/** One judged test case. Samples may also carry the input and outputs; hidden ones never do. */
export interface CaseResult {
  id: string;
  kind: CaseKind;
  verdict: Verdict | null;
  time_ms: number | null;
  memory_kb: number | null;
  input?: string;
  expected?: string;
  stdout?: string;
  stderr?: string;
  exit_code?: number | null;
  message?: string;
}

export interface SubmissionResult {
  submission_id: string;
  status: 'queued' | 'running' | 'done';
  verdict: Verdict | null;
  passed: number;
  total: number;
  revision: number;
  compile: { ok: boolean; log: string };
  cases: CaseResult[];
  evidence_text: string;
  diff: string | null;
  image?: string;
  kind?: 'run' | 'submit';
  language?: Language;
  problem_id?: string;
}

interface Sequenced {
  seq?: number;
  t_ms?: number;
}

export interface QuestionEvent extends Sequenced {
  type: 'question';
  text: string;
  question_id: string;
  phase: QuestionPhase;
  turn_id: string;
}
export interface TranscriptPartialEvent extends Sequenced {
  type: 'transcript_partial';
  text: string;
  turn_id?: string;
  /** Words two consecutive decodes agreed on (they will not change) … */
  stable?: string;
  /** … and the rest, which may still change. */
  tentative?: string;
}
export interface TranscriptFinalEvent extends Sequenced {
  type: 'transcript_final';
  text: string;
  turn_id: string;
  /** The whole answer again, after the candidate went on past a false end of turn. */
  amended?: boolean;
}
/** An answer continued after a pause: the events in `supersedes` were taken back. */
export interface AnswerAmendedEvent extends Sequenced {
  type: 'answer_amended';
  turn_id: string;
  text: string;
  supersedes: number[];
}
export interface FeedbackEvent extends Sequenced {
  type: 'feedback';
  kind: FeedbackKind;
  text: string;
}
export interface TtsStartEvent extends Sequenced {
  type: 'tts_start';
  turn_id: string;
  sample_rate: number;
  text?: string;
}
export interface TtsEndEvent extends Sequenced {
  type: 'tts_end';
  turn_id: string;
}
export interface TtsStopEvent extends Sequenced {
  type: 'tts_stop';
  turn_id?: string;
}
export interface CodingTaskEvent extends Sequenced, CodingTask {
  type: 'coding_task';
}
export interface JudgeCaseEvent extends Sequenced {
  type: 'judge_case';
  submission_id: string;
  case_id: string;
  kind: CaseKind;
  verdict: Verdict | null;
  time_ms: number | null;
  memory_kb: number | null;
}
export interface SubmissionQueuedEvent extends Sequenced {
  type: 'submission_queued';
  submission_id: string;
  kind: 'run' | 'submit';
  problem_id: string;
  language: Language;
}
export interface JudgeResultEvent extends Sequenced, SubmissionResult {
  type: 'judge_result';
}
export interface StateEvent extends Sequenced {
  type: 'state';
  phase: string;
  [key: string]: unknown;
}
export interface ErrorEvent extends Sequenced {
  type: 'error';
  code: string;
  message: string;
}
export interface SessionEndEvent extends Sequenced {
  type: 'session_end';
  report_url: string;
}
/** Recorded client messages and other server types appear in the playback timeline. */
export interface OtherEvent extends Sequenced {
  type: string;
  [key: string]: unknown;
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
  | SessionEndEvent;

export const SERVER_EVENT_TYPES = new Set<string>([
  'question',
  'transcript_partial',
  'transcript_final',
  'answer_amended',
  'feedback',
  'tts_start',
  'tts_end',
  'tts_stop',
  'coding_task',
  'judge_case',
  'submission_queued',
  'judge_result',
  'state',
  'error',
  'session_end',
]);

/** Returns the event when `raw` is a JSON object with a known `type`, else null. */
export function parseServerEvent(raw: string): ServerEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !SERVER_EVENT_TYPES.has(type)) return null;
  return value as ServerEvent;
}

export type ClientMessage =
  | { type: 'start' }
  | { type: 'end' }
  | { type: 'resume'; after_seq: number }
  | { type: 'answer'; text: string }
  | { type: 'end_turn' }
  | { type: 'audio_config'; sample_rate: 16000; encoding: 'pcm_s16le' }
  | { type: 'code_change'; problem_id: string; language: Language; code: string }
  | {
      type: 'submit';
      problem_id: string;
      language: Language;
      code: string;
      kind: 'run' | 'submit';
    };

export interface SessionCreate {
  candidate_id: string;
  role: string;
  mode: 'voice' | 'text';
  self_ratings: { algorithms: number; engineering: number; projects: number };
  resume_text: string | null;
  rounds: ('concepts' | 'coding')[];
  max_questions: number | null;
}

export interface SessionCreated {
  session_id: string;
  token: string;
  ws_url: string;
}
