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

// Server events are generated from the server's models (core/events.py → events.gen.ts):
// the browser reads exactly the fields the server declares, and a test fails on drift.
import type * as Events from './events.gen';
import { SERVER_EVENT_TYPES } from './events.gen';

export type {
  AnswerAmendedEvent,
  CodeChangeEvent,
  CodingTaskEvent,
  ErrorEvent,
  FeedbackEvent,
  JudgeCaseEvent,
  JudgeResultEvent,
  LatencyEvent,
  QuestionEvent,
  ReviewEvent,
  SampleTest,
  ServerEvent,
  SessionEndEvent,
  StateEvent,
  SubmissionQueuedEvent,
  TranscriptFinalEvent,
  TranscriptPartialEvent,
  TtsEndEvent,
  TtsStartEvent,
  TtsStopEvent,
} from './events.gen';
export { SERVER_EVENT_TYPES };

type Unsequenced<T> = Omit<T, 'type' | 'seq' | 't_ms'>;

export type CaseKind = Events.CaseView['kind'];
export type QuestionPhase = Events.QuestionEvent['phase'];
export type FeedbackKind = Events.FeedbackEvent['kind'];
export type ProblemLimits = Events.ProblemLimits;
/** A coding problem as the candidate sees it (the `coding_task` event's payload). */
export type CodingTask = Unsequenced<Events.CodingTaskEvent>;
/** One judged case. Samples also carry input, expected, actual, stderr; hidden ones never do. */
export type CaseResult = Events.CaseView;
/** The contract's submission result (the `judge_result` event's payload). */
export type SubmissionResult = Unsequenced<Events.JudgeResultEvent>;

/** Returns the event when `raw` is a JSON object with a known `type`, else null. */
export function parseServerEvent(raw: string): Events.ServerEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !SERVER_EVENT_TYPES.has(type)) return null;
  return value as Events.ServerEvent;
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
  /** A bank topic to work on: asked first and twice as often (the progress page's focus). */
  focus_topic?: string | null;
  /** The key the candidate id's first session returned; without it a session stands alone. */
  candidate_key?: string | null;
}

export interface SessionCreated {
  session_id: string;
  token: string;
  ws_url: string;
  /** Part of the candidate's progress (the request carried the candidate key, or claimed the id). */
  joins_progress?: boolean;
  /** Issued once, when this request claimed the candidate id: keep it for later sessions. */
  candidate_key?: string | null;
}

/** `POST /api/sessions/{id}/ticket`: a one-time value for a socket URL or a page link. */
export interface TicketIssued {
  ticket: string;
  expires_in_s: number;
}
