// The coding round in words, for the reviewer page and playback (the HTML report has its
// own, server-side): the round's score by part, each of the problem's assessment points
// explained (with the quote and its moment) or not, the complexity claim against the
// measured growth and the reference, and the hints used.
import { formatDuration, h } from './dom';

export interface CodingSummary {
  title?: string;
  attempts?: number;
  final_verdict_name?: string;
  score?: number | null;
  score_parts?: { correctness?: number | null; approach?: number | null; complexity?: number | null };
  approach_points?: { id: string; text: string | null; covered: boolean; quote?: string; t_ms?: number }[];
  complexity?: { claim?: string | null; claimed?: string | null; measured?: { class?: string | null } | null; reference?: string | null };
  hints_used?: number;
}

const CLASS_WORDS: Record<string, string> = { '1': 'constant', 'log n': 'logarithmic', 'sqrt n': 'square root of n', n: 'linear', 'n log n': 'n log n', 'n^2': 'quadratic', 'n^3': 'cubic', '2^n': 'exponential' };
const classWords = (c: string | null | undefined): string => (c ? (CLASS_WORDS[c] ?? c) : '—');
const percent = (v: number): string => `${Math.round(v * 100)}`;

/** `moment`: how to show a point's time (a link or a button that seeks); plain text if absent. */
export function codingSummary(coding: CodingSummary, prefix: string, moment?: (tMs: number) => HTMLElement): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (typeof coding.score === 'number') {
    const parts = coding.score_parts ?? {};
    const named = (['correctness', 'approach', 'complexity'] as const).filter((k) => typeof parts[k] === 'number').map((k) => `${k} ${percent(parts[k] as number)}`);
    out.push(h('p', { 'data-testid': `${prefix}-coding-score` }, `Coding round ${percent(coding.score)}/100${named.length ? ` (${named.join(', ')})` : ''}.`));
  }
  const points = coding.approach_points ?? [];
  if (points.length) {
    out.push(
      h(
        'ul',
        { 'data-testid': `${prefix}-approach` },
        points.map((p) => {
          const text = p.text ?? 'a point of the problem (named once the interview has ended)';
          if (!p.covered) return h('li', { class: 'missed' }, `Not explained: ${text}`);
          const when = typeof p.t_ms === 'number' ? (moment ? [' ', moment(p.t_ms)] : ` (${formatDuration(p.t_ms)})`) : '';
          return h('li', {}, `Explained: ${text}`, p.quote ? ` — “${p.quote}”` : '', when);
        }),
      ),
    );
  }
  const c = coding.complexity;
  if (c && (c.claimed || c.measured?.class)) {
    const said = c.claimed ? `said “${c.claim ?? ''}” (${classWords(c.claimed)})` : 'gave no complexity';
    out.push(h('p', { 'data-testid': `${prefix}-complexity` }, `Complexity: ${said}; measured ${classWords(c.measured?.class)}; reference ${classWords(c.reference)}.`));
  }
  out.push(h('p', { 'data-testid': `${prefix}-hints` }, coding.hints_used ? `Hints used: ${coding.hints_used}.` : 'No hints used.'));
  return out;
}
