// Reviewer dashboard: asks for the reviewer token (kept in this tab only), lists sessions when
// the server offers the list, and opens any session's report, playback and transcript.
import { ApiError, describeError, getJson, postJson } from '../../shared/api';
import { codingSummary, type CodingSummary } from '../../shared/coding-summary';
import { ticketLink } from '../../shared/ticket-link';
import { formatDuration, h, replaceChildren } from '../../shared/dom';
import { NoticeArea } from '../../shared/notices';
import { loadReviewerToken, saveReviewerToken } from '../../shared/session-store';
import type { ReportQuestion } from '../../shared/report';
import type { Page } from '../page';

interface SessionSummary {
  session_id: string;
  candidate_id?: string;
  role?: string;
  /** finished, abandoned or in progress */
  status?: string;
  /** The score that stands: the reviewer's override when there is one. */
  overall_score?: number | null;
  graded_score?: number | null;
  reviewed?: boolean;
  flags?: unknown[];
  archived?: boolean;
}

interface RevisionRow {
  n: number;
  t_ms: number;
  language: string;
  lines: number;
  verdicts: { verdict: string; code: string | null; passed: number | null; total: number | null }[];
}

interface ReviewReport {
  candidate_id: string;
  role: string;
  progress?: string;
  difficulty?: string;
  overall_score: number | null;
  final_score?: number | null;
  review?: { overall_score?: string; note?: string; reviewer?: string; at?: string } | null;
  reviewer_flags?: string[];
  questions?: ReportQuestion[];
  coding?: (CodingSummary & { revisions?: RevisionRow[] }) | null;
  compared_with_earlier?: { label?: string; point?: string; status: string }[];
}

const percent = (score: number | null | undefined): string => (typeof score === 'number' ? `${Math.round(score * 100)}/100` : '—');

const reviewPage: Page = (root) => {
  const notices = new NoticeArea();
  const body = h('div', { class: 'review-body' });
  const main = h('main', { id: 'main', class: 'page review' }, h('h1', {}, 'Reviewer dashboard'), notices.element, body);
  root.append(main);

  const render = () => {
    notices.clear();
    const token = loadReviewerToken();
    if (!token) replaceChildren(body, tokenForm(render));
    else replaceChildren(body, dashboard(token, notices, render));
  };
  render();
  return () => undefined;
};

function tokenForm(done: () => void): HTMLElement {
  const input = h('input', { id: 'reviewer-token', type: 'password', autocomplete: 'off', required: true, 'data-testid': 'reviewer-token' });
  const form = h(
    'form',
    { class: 'card page-narrow' },
    h('p', {}, 'Reviewing needs the reviewer token from the server’s settings (VIVA_REVIEWER_TOKEN). It stays in this browser tab only.'),
    h('div', { class: 'field' }, h('label', { for: 'reviewer-token' }, 'Reviewer token'), input),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary', 'data-testid': 'reviewer-token-submit' }, 'Continue')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!input.value.trim()) return;
    saveReviewerToken(input.value.trim());
    done();
  });
  queueMicrotask(() => input.focus());
  return form;
}

function dashboard(token: string, notices: NoticeArea, rerender: () => void): HTMLElement {
  const list = h('div', { class: 'session-list', 'data-testid': 'session-list' }, h('p', { class: 'hint' }, 'Loading sessions…'));
  const detail = h('section', { class: 'card', 'data-testid': 'review-detail', hidden: true });
  const idInput = h('input', { id: 'review-session-id', required: true, autocomplete: 'off', 'data-testid': 'review-session-id' });
  const open = h(
    'form',
    { class: 'inline-form' },
    h('label', { for: 'review-session-id' }, 'Session id'),
    idInput,
    h('button', { type: 'submit', class: 'primary' }, 'Open'),
  );
  const signOut = h('button', { type: 'button', class: 'link' }, 'Forget token');
  signOut.addEventListener('click', () => {
    saveReviewerToken(null);
    rerender();
  });

  const openSession = async (sessionId: string) => {
    detail.hidden = false;
    replaceChildren(detail, h('p', { class: 'hint' }, `Loading ${sessionId}…`));
    try {
      const report = await getJson<ReviewReport>(`/api/sessions/${encodeURIComponent(sessionId)}/report`, token);
      // After an override the detail and the list are drawn again: the new score everywhere.
      replaceChildren(detail, sessionDetail(sessionId, token, report, () => {
        void openSession(sessionId);
        void loadList();
      }));
    } catch (error) {
      replaceChildren(detail, h('p', { role: 'alert' }, describeError(error)));
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
        notices.show('The reviewer token was refused. Enter it again.', 'error', { code: error.code });
        saveReviewerToken(null);
        rerender();
      }
    }
  };
  open.addEventListener('submit', (event) => {
    event.preventDefault();
    const id = idInput.value.trim();
    if (id) void openSession(id);
  });

  const loadList = async () => {
    try {
      const sessions = await getJson<SessionSummary[] | { sessions: SessionSummary[] }>('/api/review/sessions', token);
      const rows = Array.isArray(sessions) ? sessions : sessions.sessions;
      replaceChildren(list, sessionTable(rows, (id) => void openSession(id)));
    } catch (error) {
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
        notices.show('The reviewer token was refused. Enter it again.', 'error', { code: error.code });
        saveReviewerToken(null);
        rerender();
        return;
      }
      const unavailable = error instanceof ApiError && (error.status === 404 || error.status === 405);
      replaceChildren(list, h('p', { class: 'hint' }, unavailable ? 'This server does not list sessions; open one by its id.' : describeError(error)));
    }
  };
  void loadList();

  return h('div', {}, h('div', { class: 'review-toolbar' }, open, signOut), h('section', { class: 'card' }, h('h2', {}, 'Sessions'), list), detail);
}

/** The sessions, filtered as the reviewer types (id, candidate, role, status) or by flags. */
function sessionTable(rows: SessionSummary[], open: (id: string) => void): HTMLElement {
  if (!rows.length) return h('p', { class: 'hint' }, 'No sessions yet.');
  const query = h('input', { id: 'review-filter', type: 'search', placeholder: 'candidate, role, status, id', 'data-testid': 'review-filter' });
  const flagged = h('input', { id: 'review-flagged', type: 'checkbox', 'data-testid': 'review-flagged' });
  const body = h('tbody', {});
  const count = h('p', { class: 'hint', role: 'status' });
  const draw = () => {
    const words = query.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const shown = rows.filter((row) => {
      const text = [row.session_id, row.candidate_id, row.role, row.status].join(' ').toLowerCase();
      return words.every((w) => text.includes(w)) && (!flagged.checked || (Array.isArray(row.flags) && row.flags.length > 0));
    });
    count.textContent = `${shown.length} of ${rows.length} sessions`;
    replaceChildren(
      body,
      shown.map((row) =>
        h(
          'tr',
          { 'data-testid': 'review-session-row' },
          h('td', {}, h('button', { type: 'button', class: 'link', onclick: () => open(row.session_id) }, row.session_id)),
          h('td', {}, row.candidate_id ?? ''),
          h('td', {}, row.role ?? ''),
          h('td', { 'data-testid': 'review-status' }, row.status ?? '', row.archived ? ' · archived' : ''),
          h('td', { class: 'num', 'data-testid': 'review-score' }, percent(row.overall_score), row.reviewed ? h('span', { class: 'hint', title: `graded ${percent(row.graded_score)}` }, ' (reviewed)') : null),
          h('td', {}, Array.isArray(row.flags) ? String(row.flags.length) : ''),
          h('td', {}, h('a', { href: `/playback/${encodeURIComponent(row.session_id)}`, 'data-nav': true }, 'Playback')),
        ),
      ),
    );
  };
  query.addEventListener('input', draw);
  flagged.addEventListener('change', draw);
  draw();
  return h(
    'div',
    {},
    h('div', { class: 'inline-form' }, h('label', { for: 'review-filter' }, 'Filter'), query, h('label', { for: 'review-flagged' }, flagged, ' flagged only')),
    count,
    h(
      'table',
      { class: 'case-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Session'), h('th', {}, 'Candidate'), h('th', {}, 'Role'), h('th', {}, 'Status'), h('th', {}, 'Score'), h('th', {}, 'Flags'), h('th', {}, ''))),
      body,
    ),
  );
}

function sessionDetail(sessionId: string, token: string, report: ReviewReport, changed: () => void): HTMLElement {
  const id = encodeURIComponent(sessionId);
  const reviewed = report.review && typeof report.final_score === 'number';
  const who = report.review?.reviewer ? ` by ${report.review.reviewer}` : '';
  return h(
    'div',
    {},
    h('h2', {}, `${report.candidate_id} · ${report.role}`),
    h(
      'p',
      { class: 'review-summary', 'data-testid': 'review-summary' },
      `Interview ${report.progress ?? ''} · ${report.difficulty ?? ''} questions · `,
      h('b', { 'data-testid': 'review-overall' }, `Overall ${percent(report.final_score ?? report.overall_score)}`),
      reviewed ? ` after review${who} (graded ${percent(report.overall_score)})` : '',
    ),
    h(
      'p',
      { class: 'actions' },
      h('a', { href: `/playback/${id}`, 'data-nav': true, class: 'button secondary' }, 'Playback'),
      ticketLink(`/sessions/${id}/report`, sessionId, token, { class: 'button secondary' }, 'HTML report'),
      ticketLink(`/api/sessions/${id}/transcript.vtt`, sessionId, token, { class: 'button secondary' }, 'Transcript (WebVTT)'),
    ),
    report.review?.note ? h('p', { class: 'hint' }, `Reviewer’s note: ${report.review.note}`) : null,
    flagList(report.reviewer_flags),
    questionList(report.questions ?? []),
    codingSection(report.coding),
    earlierList(report.compared_with_earlier ?? []),
    overrideForm(sessionId, token, report, changed),
  );
}

function questionList(questions: ReportQuestion[]): HTMLElement | null {
  if (!questions.length) return null;
  return h(
    'section',
    { 'data-testid': 'review-questions' },
    h('h3', {}, 'Questions'),
    h(
      'ol',
      { class: 'review-questions' },
      questions.map((q) =>
        h(
          'li',
          {},
          h('p', {}, h('b', {}, q.question), ` · ${q.topic} · ${percent(q.score)}`),
          q.exchanges.map((ex) =>
            h('p', { class: 'review-answer' }, ex.follow_up ? h('i', {}, `Follow-up: ${ex.question} `) : null, ex.answer ? `“${ex.answer}” (at ${formatDuration(ex.answer_t_ms ?? 0)}, ${percent(ex.score)})` : 'No answer.'),
          ),
          q.covered.length ? h('ul', { class: 'covered' }, q.covered.map((c) => h('li', {}, c))) : null,
          q.missed.length ? h('ul', { class: 'missed' }, q.missed.map((m) => h('li', {}, m))) : null,
        ),
      ),
    ),
  );
}

/** The coding round: the problem by its title, and each revision with what the tests said. */
function codingSection(coding: ReviewReport['coding']): HTMLElement | null {
  if (!coding) return null;
  const rows = coding.revisions ?? [];
  return h(
    'section',
    { 'data-testid': 'review-coding' },
    h('h3', {}, 'Coding'),
    h('p', {}, `${coding.title ?? 'The coding problem'}: ${coding.attempts ?? 0} runs and submissions; the last submission: ${coding.final_verdict_name ?? 'not submitted'}.`),
    codingSummary(coding, 'review'),
    rows.length
      ? h(
          'table',
          { class: 'case-table' },
          h('thead', {}, h('tr', {}, h('th', {}, 'Revision'), h('th', {}, 'At'), h('th', {}, 'Language'), h('th', {}, 'Lines'), h('th', {}, 'Tests after it'))),
          h(
            'tbody',
            {},
            rows.map((r) =>
              h(
                'tr',
                { 'data-testid': 'review-revision' },
                h('td', {}, String(r.n)),
                h('td', {}, formatDuration(r.t_ms)),
                h('td', {}, r.language),
                h('td', { class: 'num' }, String(r.lines)),
                h('td', {}, r.verdicts.length ? r.verdicts.map((v) => `${v.verdict} (${v.passed ?? 0}/${v.total ?? 0} passed)`).join('; ') : 'not run'),
              ),
            ),
          ),
        )
      : h('p', { class: 'hint' }, 'No code was recorded.'),
  );
}

function earlierList(items: { label?: string; point?: string; status: string }[]): HTMLElement | null {
  if (!items.length) return null;
  return h('section', {}, h('h3', {}, 'Weak points from earlier interviews'), h('ul', {}, items.map((c) => h('li', {}, `${c.label || c.point || 'A point from an earlier interview'}: ${c.status}`))));
}

function flagList(flags: unknown): HTMLElement | null {
  if (!Array.isArray(flags) || !flags.length) return null;
  return h('section', {}, h('h3', {}, 'Flags for review'), h('ul', { 'data-testid': 'review-flags' }, flags.map((f) => h('li', {}, String(f)))));
}

/** A reviewer overrides the overall score with a note; the report keeps both. */
function overrideForm(sessionId: string, token: string, report: ReviewReport, changed: () => void): HTMLElement {
  const standing = report.final_score ?? report.overall_score;
  const current = typeof standing === 'number' ? standing : 0.5;
  const score = h('input', { id: 'override-score', type: 'number', min: 0, max: 1, step: 0.05, value: current.toFixed(2), required: true });
  const note = h('textarea', { id: 'override-note', rows: 3, required: true, maxlength: 5000 });
  const name = h('input', { id: 'override-reviewer', maxlength: 100, value: 'reviewer' });
  const status = h('p', { role: 'status', class: 'hint' });
  const form = h(
    'form',
    { class: 'override', 'data-testid': 'review-override' },
    h('h3', {}, 'Override the score'),
    h('div', { class: 'field field-inline' }, h('label', { for: 'override-score' }, 'Overall score (0–1)'), score),
    h('div', { class: 'field' }, h('label', { for: 'override-note' }, 'Note (why)'), note),
    h('div', { class: 'field' }, h('label', { for: 'override-reviewer' }, 'Reviewer'), name),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Save override')),
    status,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    status.textContent = 'Saving…';
    try {
      await postJson(`/api/sessions/${encodeURIComponent(sessionId)}/review`, { overall_score: Number(score.value), note: note.value.trim(), reviewer: name.value.trim() || 'reviewer' }, token);
      status.textContent = 'Saved. The report now shows the override next to the computed score.';
      changed();
    } catch (error) {
      status.textContent = describeError(error);
    }
  });
  return form;
}

export default reviewPage;
