// Reviewer dashboard: asks for the reviewer token (kept in this tab only), lists sessions when
// the server offers the list, and opens any session's report, playback and transcript.
import { ApiError, describeError, getJson, postJson } from '../../shared/api';
import { h, replaceChildren } from '../../shared/dom';
import { NoticeArea } from '../../shared/notices';
import { loadReviewerToken, saveReviewerToken } from '../../shared/session-store';
import type { Page } from '../page';

interface SessionSummary {
  session_id: string;
  candidate_id?: string;
  role?: string;
  status?: string;
  overall_score?: number | null;
  flags?: unknown[];
  archived?: boolean;
}

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
      const report = await getJson<Record<string, unknown>>(`/api/sessions/${encodeURIComponent(sessionId)}/report`, token);
      replaceChildren(detail, sessionDetail(sessionId, token, report));
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

  void (async () => {
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
  })();

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
          h('td', {}, row.status ?? '', row.archived ? ' · archived' : ''),
          h('td', { class: 'num' }, typeof row.overall_score === 'number' ? row.overall_score.toFixed(2) : '—'),
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

function sessionDetail(sessionId: string, token: string, report: Record<string, unknown>): HTMLElement {
  const q = `?token=${encodeURIComponent(token)}`;
  const id = encodeURIComponent(sessionId);
  const scalars = Object.entries(report).filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v));
  const lists = Object.entries(report).filter(([, v]) => Array.isArray(v) && v.length && typeof v[0] === 'object');
  return h(
    'div',
    {},
    h('h2', {}, `Session ${sessionId}`),
    h(
      'p',
      { class: 'actions' },
      h('a', { href: `/playback/${id}${q}`, 'data-nav': true, class: 'button secondary' }, 'Playback'),
      h('a', { href: `/sessions/${id}/report${q}`, class: 'button secondary' }, 'HTML report'),
      h('a', { href: `/api/sessions/${id}/transcript.vtt${q}`, class: 'button secondary' }, 'Transcript (WebVTT)'),
    ),
    h('dl', { class: 'facts' }, scalars.flatMap(([k, v]) => [h('dt', {}, k.replace(/_/g, ' ')), h('dd', {}, String(v))])),
    flagList(report.reviewer_flags),
    lists.map(([k, v]) => objectTable(k, v as Record<string, unknown>[])),
    overrideForm(sessionId, token, report),
  );
}

function flagList(flags: unknown): HTMLElement | null {
  if (!Array.isArray(flags) || !flags.length) return null;
  return h('section', {}, h('h3', {}, 'Flags for review'), h('ul', { 'data-testid': 'review-flags' }, flags.map((f) => h('li', {}, String(f)))));
}

/** A reviewer overrides the overall score with a note; the report keeps both. */
function overrideForm(sessionId: string, token: string, report: Record<string, unknown>): HTMLElement {
  const current = typeof report.overall_score === 'number' ? report.overall_score : 0.5;
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
    } catch (error) {
      status.textContent = describeError(error);
    }
  });
  return form;
}

function objectTable(title: string, rows: Record<string, unknown>[]): HTMLElement {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((c) => rows.some((r) => typeof r[c] !== 'object' || r[c] === null)).slice(0, 6);
  return h(
    'section',
    {},
    h('h3', {}, title.replace(/_/g, ' ')),
    h(
      'table',
      { class: 'case-table' },
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', {}, c.replace(/_/g, ' '))))),
      h('tbody', {}, rows.map((r) => h('tr', {}, columns.map((c) => h('td', {}, r[c] === null || r[c] === undefined || typeof r[c] === 'object' ? '' : String(r[c])))))),
    ),
  );
}

export default reviewPage;
