// Test evidence as it arrives: one row per case (verdict, time, memory), the overall verdict,
// the compile log, the first failing sample in full, and the diff against the last revision.
import { h, replaceChildren } from '../../shared/dom';
import type { CaseResult, JudgeCaseEvent, SubmissionQueuedEvent, SubmissionResult, Verdict } from '../../shared/protocol';
import { VERDICT_NAMES } from '../../shared/protocol';

interface SubmissionView {
  id: string;
  rows: Map<string, HTMLTableRowElement>;
  body: HTMLTableSectionElement;
}

function verdictBadge(verdict: Verdict | null, testid?: string): HTMLElement {
  return h(
    'span',
    {
      class: `verdict verdict-${verdict ?? 'pending'}`,
      'data-testid': testid,
      title: verdict ? VERDICT_NAMES[verdict] : 'Running',
    },
    verdict ?? '…',
  );
}

function figure(value: number | null | undefined, unit: string): string {
  return value === null || value === undefined ? '—' : `${Math.round(value)} ${unit}`;
}

const MAX_SHOWN_CHARS = 4000; // the judge caps too; this keeps a long traceback readable

function capText(text: string, max: number): string {
  return text.length <= max ? text : `… (${text.length - max} characters cut)\n${text.slice(-max)}`;
}

/** The checker ignores trailing whitespace at line ends and at the end; so does the mark. */
function outputLines(text: string): string[] {
  const lines = text.replace(/\s+$/, '').split('\n').map((l) => l.replace(/\s+$/, ''));
  return lines.length === 1 && lines[0] === '' ? [] : lines;
}

/** Expected and actual output side by side, each line that differs from its counterpart marked. */
function outputComparison(expected: string, actual: string): HTMLElement {
  const want = outputLines(expected);
  const got = outputLines(actual);
  const column = (title: string, lines: string[], other: string[], testid: string) =>
    h(
      'div',
      { class: 'output-column' },
      h('h4', {}, title),
      h(
        'pre',
        { 'data-testid': testid },
        lines.length === 0
          ? h('span', { class: 'output-empty' }, '(no output)')
          : lines.map((line, i) => h('span', { class: line === other[i] ? 'output-line' : 'output-line output-line-differs', 'data-line': String(i + 1) }, `${line}\n`)),
      ),
    );
  return h('div', { class: 'io-grid output-comparison' }, column('Expected', want, got, 'expected-output'), column('Your output', got, want, 'actual-output'));
}

export class EvidenceView {
  readonly element: HTMLElement;
  private readonly status = h('p', { class: 'evidence-status', 'data-testid': 'judge-status', role: 'status' }, 'Run the samples or submit to see results here.');
  private readonly summary = h('div', { class: 'evidence-summary', 'aria-live': 'polite' });
  private readonly tableHost = h('div', { class: 'cases' });
  private readonly detail = h('div', { class: 'evidence-detail' });
  private readonly history = h('ol', { class: 'history-list', 'data-testid': 'submission-history' });
  private current: SubmissionView | null = null;
  private readonly finished = new Set<string>();
  // What the interviewer said about each submission, in order: it may come before or after the
  // result, so it is kept here and drawn beside the result's evidence whenever either arrives.
  private readonly said = new Map<string, string[]>();
  private shownId: string | null = null;
  private readonly saidSlot = h('div', { class: 'interviewer-said', 'data-testid': 'interviewer-explanation', hidden: true });

  constructor() {
    this.element = h(
      'section',
      { class: 'evidence card', 'aria-labelledby': 'evidence-heading', 'data-testid': 'evidence' },
      h('h2', { id: 'evidence-heading' }, 'Test results'),
      this.status,
      this.summary,
      this.tableHost,
      this.detail,
      h('details', { class: 'history' }, h('summary', {}, 'Earlier runs'), this.history),
    );
  }

  /** The candidate pressed run or submit; results will follow. */
  pending(kind: 'run' | 'submit'): void {
    this.status.textContent = kind === 'run' ? 'Running the sample tests…' : 'Judging: compile, samples, hidden and performance tests…';
    this.status.dataset.state = 'running';
    replaceChildren(this.summary);
    replaceChildren(this.detail);
    replaceChildren(this.tableHost);
    this.current = null;
  }

  /** The server accepted a submission: its rows will fill this table. */
  queued(event: SubmissionQueuedEvent): void {
    if (this.finished.has(event.submission_id)) return;
    if (this.status.dataset.state !== 'running') this.pending(event.kind);
    this.viewFor(event.submission_id);
  }

  caseResult(event: JudgeCaseEvent): void {
    if (this.finished.has(event.submission_id)) return;
    const view = this.viewFor(event.submission_id);
    this.upsertRow(view, {
      id: event.case_id,
      kind: event.kind,
      verdict: event.verdict,
      time_ms: event.time_ms,
      memory_kb: event.memory_kb,
    });
    this.status.textContent = `Running… ${view.rows.size} test${view.rows.size === 1 ? '' : 's'} done.`;
  }

  result(result: SubmissionResult): void {
    const view = this.viewFor(result.submission_id);
    for (const c of result.cases) this.upsertRow(view, c);
    this.finished.add(result.submission_id);
    const verdict = result.verdict;
    this.status.dataset.state = 'done';
    this.status.textContent = `${result.kind === 'run' ? 'Sample run' : 'Submission'} finished (revision ${result.revision}).`;
    replaceChildren(
      this.summary,
      h(
        'div',
        { class: 'verdict-line' },
        verdictBadge(verdict, 'verdict'),
        h('span', { class: 'verdict-name' }, verdict ? VERDICT_NAMES[verdict] : 'No verdict'),
        h('span', { class: 'passed', 'data-testid': 'passed-count' }, `${result.passed}/${result.total} tests passed`),
      ),
    );
    const parts: (HTMLElement | null)[] = [];
    if (!result.compile.ok) {
      parts.push(h('h3', {}, 'Compiler output'), h('pre', { class: 'compile-log', 'data-testid': 'compile-log' }, result.compile.log || '(no output)'));
    }
    this.shownId = result.submission_id;
    this.drawSaid();
    const failing = result.cases.find((c) => c.verdict && c.verdict !== 'AC');
    if (failing) parts.push(this.failingCase(failing));
    else parts.push(this.saidSlot);
    if (result.diff) parts.push(this.diffView(result.diff, result.revision));
    replaceChildren(this.detail, parts);
    this.history.prepend(
      h(
        'li',
        {},
        verdictBadge(verdict),
        ` revision ${result.revision} · ${result.kind === 'run' ? 'samples' : 'submit'} · ${result.passed}/${result.total}`,
      ),
    );
  }

  /** The interviewer's words about a submission, shown beside its evidence (next to the
   * failing case when there is one). */
  interviewerSaid(submissionId: string, text: string): void {
    const texts = this.said.get(submissionId) ?? [];
    texts.push(text);
    this.said.set(submissionId, texts);
    if (submissionId === this.shownId) this.drawSaid();
  }

  private drawSaid(): void {
    const texts = (this.shownId && this.said.get(this.shownId)) || [];
    replaceChildren(this.saidSlot, texts.length ? [h('h4', {}, 'The interviewer says'), ...texts.map((t) => h('p', {}, t))] : []);
    this.saidSlot.hidden = texts.length === 0;
  }

  private viewFor(submissionId: string): SubmissionView {
    if (this.current?.id === submissionId) return this.current;
    const body = h('tbody');
    const table = h(
      'table',
      { class: 'case-table', 'data-submission': submissionId },
      h('caption', { class: 'visually-hidden' }, 'One row per test case'),
      h(
        'thead',
        {},
        h('tr', {}, h('th', { scope: 'col' }, 'Test'), h('th', { scope: 'col' }, 'Kind'), h('th', { scope: 'col' }, 'Verdict'), h('th', { scope: 'col' }, 'Time'), h('th', { scope: 'col' }, 'Memory')),
      ),
      body,
    );
    replaceChildren(this.tableHost, table);
    this.current = { id: submissionId, rows: new Map(), body };
    return this.current;
  }

  private upsertRow(view: SubmissionView, c: CaseResult): void {
    const row = h(
      'tr',
      { 'data-testid': 'case-row', 'data-case': c.id, 'data-kind': c.kind, 'data-verdict': c.verdict ?? 'pending', class: c.verdict && c.verdict !== 'AC' ? 'failed' : '' },
      h('th', { scope: 'row' }, c.id),
      h('td', {}, c.kind),
      h('td', {}, verdictBadge(c.verdict)),
      h('td', { class: 'num' }, figure(c.time_ms, 'ms')),
      h('td', { class: 'num' }, figure(c.memory_kb, 'KB')),
    );
    const existing = view.rows.get(c.id);
    if (existing) existing.replaceWith(row);
    else view.body.appendChild(row);
    view.rows.set(c.id, row);
  }

  /** What the candidate needs to fix their code: for a visible (sample) case the input,
   * their output beside the expected one with the differing lines marked, the error output
   * (a traceback) and the checker's message; a hidden case only says that it failed. */
  private failingCase(c: CaseResult): HTMLElement {
    const title = h('h3', {}, `First failing test: ${c.id} (${c.kind}) — ${c.verdict ? VERDICT_NAMES[c.verdict] : ''}`);
    const attrs = { class: 'failing-case', 'data-testid': 'failing-case', 'data-case': c.id, 'data-kind': c.kind };
    if (c.kind !== 'sample') {
      return h('div', attrs, title, this.saidSlot, h('p', { class: 'hint' }, 'This test is hidden: its input is not shown. Check edge cases and limits.'));
    }
    const stderr = c.stderr ? capText(c.stderr, MAX_SHOWN_CHARS) : null;
    // The reason repeats the stderr tail for a crash; show it only when it adds something.
    const reason = c.error && !(c.stderr ?? '').includes(c.error.trim()) ? c.error : null;
    return h(
      'div',
      attrs,
      title,
      this.saidSlot,
      reason ? h('p', { class: 'failure-reason', 'data-testid': 'failure-reason' }, reason) : null,
      c.checker_message ? h('p', { class: 'checker-message', 'data-testid': 'checker-message' }, `Checker: ${c.checker_message}`) : null,
      h('div', {}, h('h4', {}, 'Input'), h('pre', { 'data-testid': 'case-input' }, c.input || '(empty)')),
      outputComparison(c.expected ?? '', c.actual ?? ''),
      stderr !== null
        ? h('div', { class: 'case-stderr' }, h('h4', {}, c.verdict === 'RE' ? 'Error output (traceback)' : 'Error output'), h('pre', { 'data-testid': 'case-stderr' }, stderr))
        : null,
    );
  }

  private diffView(diff: string, revision: number): HTMLElement {
    const lines = diff.split('\n').map((line) => {
      const kind = line.startsWith('+++') || line.startsWith('---') ? 'meta' : line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx';
      return h('span', { class: `diff-${kind}` }, `${line}\n`);
    });
    return h(
      'details',
      { class: 'diff', 'data-testid': 'diff' },
      h('summary', {}, `Changes since revision ${Math.max(0, revision - 1)}`),
      h('pre', {}, lines),
    );
  }
}
