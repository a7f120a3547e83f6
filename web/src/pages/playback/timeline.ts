// Pure functions over the recorded timeline: what had been said, the code, and the latest
// test evidence at time t. No DOM (unit-tested under node).
import type { CaseResult, Verdict } from '../../shared/protocol';

export interface TimelineEvent {
  seq?: number;
  t_ms?: number;
  type: string;
  [key: string]: unknown;
}

export interface SaidLine {
  who: 'interviewer' | 'candidate';
  text: string;
  t_ms: number;
}

export interface CodeState {
  problem_id: string;
  language: string;
  code: string;
  t_ms: number;
}

export interface EvidenceState {
  verdict: Verdict | null;
  passed: number;
  total: number;
  cases: CaseResult[];
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const upTo = (events: TimelineEvent[], t: number) => events.filter((e) => (e.t_ms ?? 0) <= t);

/** Seqs taken back by an amended answer (a false end of turn) recorded at or before t. */
export function supersededUpTo(events: TimelineEvent[], t: number): Set<number> {
  const out = new Set<number>();
  for (const event of upTo(events, t)) {
    if (event.type !== 'answer_amended' || !Array.isArray(event.supersedes)) continue;
    for (const seq of event.supersedes) if (typeof seq === 'number') out.add(seq);
  }
  return out;
}

export function saidUpTo(events: TimelineEvent[], t: number): SaidLine[] {
  const out: SaidLine[] = [];
  const superseded = supersededUpTo(events, t);
  const answerLine = new Map<string, SaidLine>(); // turn_id -> its (last) candidate line
  for (const event of upTo(events, t)) {
    const text = str(event.text);
    if (!text || (event.seq !== undefined && superseded.has(event.seq))) continue;
    if (event.type === 'question' || event.type === 'feedback') out.push({ who: 'interviewer', text, t_ms: event.t_ms ?? 0 });
    else if (event.type === 'transcript_final' || event.type === 'answer') {
      const turn = str(event.turn_id);
      const earlier = turn && event.amended ? answerLine.get(turn) : undefined;
      if (earlier) {
        earlier.text = text; // the whole answer, joined after a pause
        continue;
      }
      const line: SaidLine = { who: 'candidate', text, t_ms: event.t_ms ?? 0 };
      if (turn) answerLine.set(turn, line);
      out.push(line);
    }
  }
  return out;
}

/** The last editor state recorded at or before t (`code_change` or a `submit`). */
export function codeAt(events: TimelineEvent[], t: number): CodeState | null {
  let state: CodeState | null = null;
  for (const event of upTo(events, t)) {
    if (event.type !== 'code_change' && event.type !== 'submit' && event.type !== 'submission') continue;
    const code = str(event.code);
    if (code === null) continue;
    state = { problem_id: str(event.problem_id) ?? '', language: str(event.language) ?? '', code, t_ms: event.t_ms ?? 0 };
  }
  return state;
}

/** The newest submission's results at t: its final result if it finished, else its cases so far. */
export function evidenceAt(events: TimelineEvent[], t: number): EvidenceState | null {
  let latestId: string | null = null;
  const cases = new Map<string, Map<string, CaseResult>>();
  const results = new Map<string, EvidenceState>();
  for (const event of upTo(events, t)) {
    const id = str(event.submission_id);
    if (!id) continue;
    if (event.type === 'judge_case') {
      latestId = id;
      const perSubmission = cases.get(id) ?? new Map<string, CaseResult>();
      const caseId = str(event.case_id) ?? String(perSubmission.size + 1);
      perSubmission.set(caseId, {
        id: caseId,
        kind: (str(event.kind) ?? 'sample') as CaseResult['kind'],
        verdict: (str(event.verdict) as Verdict | null) ?? null,
        time_ms: typeof event.time_ms === 'number' ? event.time_ms : null,
        memory_kb: typeof event.memory_kb === 'number' ? event.memory_kb : null,
      });
      cases.set(id, perSubmission);
    } else if (event.type === 'judge_result') {
      latestId = id;
      results.set(id, {
        verdict: (str(event.verdict) as Verdict | null) ?? null,
        passed: typeof event.passed === 'number' ? event.passed : 0,
        total: typeof event.total === 'number' ? event.total : 0,
        cases: Array.isArray(event.cases) ? (event.cases as CaseResult[]) : [],
      });
    }
  }
  if (latestId === null) return null;
  const done = results.get(latestId);
  if (done) return done;
  const partial = [...(cases.get(latestId)?.values() ?? [])];
  return { verdict: null, passed: partial.filter((c) => c.verdict === 'AC').length, total: partial.length, cases: partial };
}

const PHASE_NAMES: Record<string, string> = {
  init: 'getting ready',
  warmup: 'warm-up',
  initial: 'questions',
  followup: 'follow-up',
  coding: 'coding round',
  final_feedback: 'wrapping up',
  ended: 'finished',
};
const LANGUAGE_NAMES: Record<string, string> = { python: 'Python', c: 'C', cpp: 'C++', java: 'Java', go: 'Go', javascript: 'JavaScript' };
const languageName = (value: unknown): string => LANGUAGE_NAMES[str(value) ?? ''] ?? str(value) ?? '';

export function timelineLabel(event: TimelineEvent): string {
  const text = str(event.text);
  const clip = (s: string) => (s.length > 90 ? `${s.slice(0, 87)}…` : s);
  switch (event.type) {
    case 'question':
      return `Question: ${clip(text ?? '')}`;
    case 'feedback':
      return `Feedback: ${clip(text ?? '')}`;
    case 'transcript_final':
    case 'answer':
      return `Candidate: ${clip(text ?? '')}`;
    case 'code_change':
      return `Code edited (${languageName(event.language)})`;
    case 'submit':
      return `${event.kind === 'run' ? 'Ran samples' : 'Submitted'} (${languageName(event.language)})`;
    case 'judge_case':
      return `Test ${str(event.case_id) ?? ''}: ${str(event.verdict) ?? ''}`;
    case 'judge_result':
      return `Result: ${str(event.verdict) ?? ''} ${String(event.passed ?? '')}/${String(event.total ?? '')}`;
    case 'coding_task':
      return `Coding task: ${str(event.title) ?? str(event.problem_id) ?? ''}`;
    case 'state':
      return `Phase: ${PHASE_NAMES[str(event.phase) ?? ''] ?? str(event.phase) ?? ''}`;
    case 'answer_amended':
      return `Answer continued after a pause: ${clip(text ?? '')}`;
    default:
      return event.type.replace(/_/g, ' ');
  }
}

/** One recorded audio file (GET /api/sessions/{id}/audio). */
export interface AudioClip {
  turn_id: string;
  speaker: 'candidate' | 'interviewer';
  t_ms: number;
  duration_ms: number;
  url: string;
  content_type?: string;
}

/** One WebVTT cue, in ms on the session clock. */
export interface Cue {
  start: number;
  end: number;
  who: 'interviewer' | 'candidate';
  text: string;
  /** Taken back: the candidate went on after a pause and the answer was assessed again. */
  superseded?: boolean;
  /** The candidate spoke over it: the rest was not heard. */
  cut?: boolean;
  /** A typed answer (no recording). */
  typed?: boolean;
}

// The words the server adds after a marked cue for plain readers; the page shows its own.
const MARK_WORDS = /\s*\[(answer continued|cut off)\]/g;

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&nbsp;': '\u00a0' };

function vttTime(value: string): number {
  const parts = value.trim().split(':').map(Number);
  const [h, m, s] = parts.length === 3 ? parts : [0, parts[0], parts[1]];
  return Math.round(((h * 60 + m) * 60 + s) * 1000);
}

/** The transcript the server exports (cue times on the saved audio) as cues. */
export function parseVtt(text: string): Cue[] {
  const cues: Cue[] = [];
  for (const block of text.replace(/\r\n/g, '\n').split(/\n{2,}/)) {
    const lines = block.split('\n').filter((l) => l.trim() !== '');
    const timing = lines.findIndex((l) => l.includes('-->'));
    if (timing < 0) continue;
    const [a, b] = lines[timing].split('-->');
    const body = lines.slice(timing + 1).join(' ');
    const voice = /^<v\s+([^>]+)>/.exec(body);
    const classes = new Set([...body.matchAll(/<c\.([\w.-]+)>/g)].flatMap((m) => m[1].split('.')));
    const raw = body.replace(/<[^>]*>/g, '').replace(MARK_WORDS, '');
    const cue: Cue = {
      start: vttTime(a),
      end: vttTime(b.trim().split(/\s+/)[0]),
      who: voice && voice[1].trim().toLowerCase() === 'candidate' ? 'candidate' : 'interviewer',
      text: raw.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (e) => ENTITIES[e] ?? e).trim(),
    };
    if (classes.has('superseded')) cue.superseded = true;
    if (classes.has('cut')) cue.cut = true;
    if (classes.has('typed')) cue.typed = true;
    cues.push(cue);
  }
  return cues.sort((x, y) => x.start - y.start);
}

/** Index of the cue being said at t: the one spanning t, else the last one begun (-1: none). */
export function cueAt(cues: Cue[], t: number): number {
  let last = -1;
  for (let i = 0; i < cues.length; i++) {
    if (cues[i].start > t) break;
    last = i;
    if (t < cues[i].end) return i;
  }
  return last;
}

/** Where a report item's moment starts: the start of the candidate's answer it quotes
 * (a report stamps an answer when it was finished), else its own time. */
export function momentOf(turnId: string | null, tMs: number, clips: AudioClip[]): number {
  let best: number | null = null;
  for (const clip of clips) {
    if (clip.speaker !== 'candidate' || (turnId !== null && clip.turn_id !== turnId)) continue;
    if (clip.t_ms + clip.duration_ms <= tMs + 100) best = clip.t_ms;
  }
  return best ?? tMs;
}

/** Clips sounding at t, with how far into each t is (ms). */
export function clipsAt(clips: AudioClip[], t: number): { clip: AudioClip; offset: number }[] {
  return clips.filter((c) => c.t_ms <= t && t < c.t_ms + c.duration_ms).map((clip) => ({ clip, offset: t - clip.t_ms }));
}
