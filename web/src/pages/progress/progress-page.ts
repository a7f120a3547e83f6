// Progress across interviews (issue 25, item 7): every interview and practice attempt of one
// candidate, scores per topic over time as an inline SVG chart (drawn here, nothing fetched),
// weak points with their status and the suggested focus. The API is called with a token this
// browser stored for one of the candidate's sessions (or the reviewer's); a refused or missing
// credential stays on a friendly page with a way back to the lobby.
import { ApiError, getJson } from '../../shared/api';
import { h } from '../../shared/dom';
import { loadReviewerToken, sessionOfCandidate, tokenForCandidate } from '../../shared/session-store';
import { ticketLink } from '../../shared/ticket-link';
import type { Page } from '../page';

export interface ProgressSession {
  session_id: string;
  started_at: string;
  kind: 'interview' | 'practice';
  overall_score: number | null;
  reviewed: boolean;
  topics: Record<string, number>;
}

export interface Progress {
  candidate_id: string;
  sessions: ProgressSession[];
  weak_points: { key: string; text: string; status: 'improved' | 'still weak' | 'new' }[];
  suggested_focus: { topic: string | null; topic_key: string | null; reason: string; points: string[] };
}

export const progressUrl = (candidateId: string) => `/api/candidates/${encodeURIComponent(candidateId)}/progress`;

export function fetchProgress(candidateId: string, token: string): Promise<Progress> {
  return getJson<Progress>(progressUrl(candidateId), token);
}

const SVG = 'http://www.w3.org/2000/svg';
const COLOURS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#ca8a04'];

function svg(tag: string, attrs: Record<string, string | number>, ...children: (Node | string)[]): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

const pct = (score: number | null) => (score === null ? '—' : `${Math.round(score * 100)}/100`);

/** One line per topic across the sessions (x: session order, y: score 0–100). */
export function topicChart(sessions: ProgressSession[]): SVGElement {
  const width = 640;
  const height = 260;
  const left = 40;
  const right = 160;
  const top = 16;
  const bottom = 40;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const x = (i: number) => left + (sessions.length <= 1 ? plotW / 2 : (plotW * i) / (sessions.length - 1));
  const y = (score: number) => top + plotH * (1 - score);
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', class: 'progress-chart', 'data-testid': 'progress-chart' });
  chart.append(svg('title', {}, 'Scores per topic over time'));
  for (const tick of [0, 0.5, 1]) {
    chart.append(svg('line', { x1: left, x2: left + plotW, y1: y(tick), y2: y(tick), stroke: '#ddd' }));
    chart.append(svg('text', { x: left - 6, y: y(tick) + 4, 'text-anchor': 'end', 'font-size': 11 }, String(tick * 100)));
  }
  sessions.forEach((s, i) => {
    chart.append(svg('text', { x: x(i), y: height - 20, 'text-anchor': 'middle', 'font-size': 11 }, `${i + 1}${s.kind === 'practice' ? ' (practice)' : ''}`));
  });
  const topics = [...new Set(sessions.flatMap((s) => Object.keys(s.topics)))];
  topics.forEach((topic, t) => {
    const colour = COLOURS[t % COLOURS.length];
    const points = sessions.flatMap((s, i) => (topic in s.topics ? [[x(i), y(s.topics[topic])] as const] : []));
    const series = svg('g', { class: 'series', 'data-topic': topic });
    if (points.length > 1) {
      series.append(svg('polyline', { points: points.map((p) => p.join(',')).join(' '), fill: 'none', stroke: colour, 'stroke-width': 2 }));
    }
    for (const [px, py] of points) series.append(svg('circle', { cx: px, cy: py, r: 4, fill: colour, class: 'point' }));
    series.append(svg('text', { x: left + plotW + 12, y: top + 14 + t * 18, fill: colour, 'font-size': 12 }, topic));
    chart.append(series);
  });
  return chart;
}

function friendly(main: HTMLElement, title: string, message: string): void {
  main.replaceChildren(
    h('h1', {}, title),
    h('p', { 'data-testid': 'progress-error' }, message),
    h('p', {}, h('a', { href: '/', 'data-nav': true }, 'Back to the lobby')),
  );
}

const progressPage: Page = (root, { params }) => {
  const candidateId = params[0];
  const main = h('main', { id: 'main', class: 'page progress' }, h('h1', {}, `Progress of ${candidateId}`), h('p', {}, 'Loading…'));
  root.append(main);
  const token = tokenForCandidate(candidateId) ?? loadReviewerToken();
  if (!token) {
    friendly(main, 'No interviews of yours here', `This browser holds no interview of ${candidateId}. Start one from the lobby, then come back.`);
    return () => undefined;
  }
  let live = true;
  fetchProgress(candidateId, token)
    .then((progress) => {
      if (!live) return;
      const focus = progress.suggested_focus;
      const linkSession = sessionOfCandidate(candidateId)?.session_id ?? progress.sessions.at(-1)?.session_id ?? '';
      main.replaceChildren(
        h('h1', {}, `Progress of ${progress.candidate_id}`),
        h('section', { class: 'card', 'data-testid': 'suggested-focus' },
          h('h2', {}, 'Suggested focus for your next interview'),
          h('p', {}, h('strong', {}, focus.topic ?? 'Any topic'), ` — ${focus.reason}`),
          focus.points.length ? h('ul', {}, focus.points.map((p) => h('li', {}, p))) : ''),
        h('section', { class: 'card' }, h('h2', {}, 'Scores per topic over time'), topicChart(progress.sessions)),
        h('section', { class: 'card' },
          h('h2', {}, 'Interviews and practice'),
          h('ol', { 'data-testid': 'progress-sessions' }, progress.sessions.map((s) =>
            h('li', { 'data-kind': s.kind },
              `${new Date(s.started_at).toLocaleString()} · ${s.kind === 'practice' ? 'Practice' : 'Interview'} · ${pct(s.overall_score)}${s.reviewed ? ' (reviewed)' : ''} · `,
              Object.entries(s.topics).map(([t, v]) => `${t} ${pct(v)}`).join(', '))))),
        h('section', { class: 'card' },
          h('h2', {}, 'Weak points over time'),
          progress.weak_points.length
            ? h('ul', { 'data-testid': 'weak-points' }, progress.weak_points.map((w) =>
                h('li', { 'data-status': w.status }, w.text, ' — ', h('strong', {}, w.status))))
            : h('p', {}, 'None recorded yet.')),
        // Plain links carry no token: a click buys a one-time ticket for one of the
        // candidate's sessions, which the server turns into a cookie (server/tickets.py).
        h('p', {}, ticketLink(`${progressUrl(candidateId)}.html`, linkSession, token, { 'data-testid': 'progress-printable' }, 'Printable version'),
          ' · ', ticketLink(progressUrl(candidateId), linkSession, token, { 'data-testid': 'progress-json' }, 'Export as JSON'),
          ' · ', h('a', { href: '/', 'data-nav': true }, 'Back to the lobby')),
      );
    })
    .catch((error: unknown) => {
      if (!live) return;
      const refused = error instanceof ApiError && [401, 403, 404].includes(error.status);
      friendly(main, refused ? 'This progress page is not yours to open' : 'Progress is unavailable',
        refused ? 'The credential this browser holds was refused or has expired.' : error instanceof Error ? error.message : String(error));
    });
  return () => { live = false; };
};

export default progressPage;
