// Playback: the recorded event timeline (NDJSON) with a scrubber. At time t it shows what was
// said up to t, the code as it stood at t, and the latest test evidence.
import { ApiError, describeError, getNdjson } from '../../shared/api';
import { formatDuration, h, replaceChildren } from '../../shared/dom';
import { NoticeArea } from '../../shared/notices';
import type { CaseResult, Verdict } from '../../shared/protocol';
import { VERDICT_NAMES } from '../../shared/protocol';
import { loadReviewerToken, loadSession } from '../../shared/session-store';
import type { Page } from '../page';
import { codeAt, evidenceAt, saidUpTo, timelineLabel, type TimelineEvent } from './timeline';

const playbackPage: Page = (root, context) => {
  const sessionId = context.params[0];
  const notices = new NoticeArea();
  const main = h('main', { id: 'main', class: 'page playback' }, h('h1', {}, 'Interview playback'), notices.element);
  root.append(main);
  let disposed = false;
  let cleanup = () => undefined as void;

  const token = context.query.get('token') ?? loadSession(sessionId)?.token ?? loadReviewerToken();
  const load = async (bearer: string | null) => {
    try {
      const events = await getNdjson<TimelineEvent>(`/api/sessions/${encodeURIComponent(sessionId)}/events`, bearer);
      if (disposed) return;
      cleanup = showTimeline(main, sessionId, events, bearer);
    } catch (error) {
      notices.show(describeError(error), 'error', { code: error instanceof ApiError ? error.code : undefined });
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) askToken(main, load);
    }
  };
  void load(token);
  return () => {
    disposed = true;
    cleanup();
  };
};

function askToken(main: HTMLElement, load: (token: string) => Promise<void>): void {
  const input = h('input', { id: 'playback-token', autocomplete: 'off', required: true });
  const form = h(
    'form',
    { class: 'card' },
    h('div', { class: 'field' }, h('label', { for: 'playback-token' }, 'Session or reviewer token'), input),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Open')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    form.remove();
    void load(input.value.trim());
  });
  main.append(form);
}

function showTimeline(main: HTMLElement, sessionId: string, events: TimelineEvent[], token: string | null): () => void {
  const ordered = [...events].sort((a, b) => (a.t_ms ?? 0) - (b.t_ms ?? 0) || (a.seq ?? 0) - (b.seq ?? 0));
  // The list shows moments worth jumping to; streaming detail (partials, audio marks) is not.
  const listed = ordered.filter((e) => !QUIET_TYPES.has(e.type));
  const end = ordered.length ? (ordered[ordered.length - 1].t_ms ?? 0) : 0;
  let t = 0;
  let playing: number | null = null;
  let lastTick = 0;

  const slider = h('input', {
    type: 'range',
    min: 0,
    max: Math.max(1, end),
    step: 100,
    value: 0,
    id: 'playback-slider',
    'data-testid': 'playback-slider',
    'aria-valuetext': '0:00',
  });
  const clock = h('span', { class: 'clock', 'data-testid': 'playback-time' }, `0:00 / ${formatDuration(end)}`);
  const playButton = h('button', { type: 'button', class: 'primary', 'data-testid': 'playback-play' }, 'Play');
  const speed = h('select', { 'aria-label': 'Playback speed' }, [1, 2, 4, 8].map((s) => h('option', { value: s }, `${s}×`)));
  const said = h('ol', { class: 'log', 'data-testid': 'playback-transcript' });
  const codeLabel = h('p', { class: 'hint' });
  const code = h('pre', { class: 'code-block playback-code', 'data-testid': 'playback-code' });
  const evidence = h('div', { 'data-testid': 'playback-evidence' });
  const list = h(
    'ol',
    { class: 'event-list', 'data-testid': 'playback-events' },
    listed.map((event) =>
      h(
        'li',
        {},
        h(
          'button',
          { type: 'button', class: 'link', onclick: () => seek(event.t_ms ?? 0) },
          h('span', { class: 'clock' }, formatDuration(event.t_ms ?? 0)),
          ` ${timelineLabel(event)}`,
        ),
      ),
    ),
  );

  function seek(ms: number): void {
    t = Math.max(0, Math.min(end, ms));
    slider.value = String(t);
    render();
  }

  function render(): void {
    slider.setAttribute('aria-valuetext', formatDuration(t));
    clock.textContent = `${formatDuration(t)} / ${formatDuration(end)}`;
    replaceChildren(
      said,
      saidUpTo(ordered, t).map((line) =>
        h('li', { class: `log-${line.who}` }, h('span', { class: 'who' }, line.who === 'interviewer' ? 'Interviewer' : 'Candidate'), h('span', { class: 'clock' }, formatDuration(line.t_ms)), h('span', { class: 'said' }, line.text)),
      ),
    );
    const state = codeAt(ordered, t);
    codeLabel.textContent = state ? `${state.problem_id} · ${state.language} · at ${formatDuration(state.t_ms)}` : 'No code yet at this point.';
    code.textContent = state?.code ?? '';
    const result = evidenceAt(ordered, t);
    replaceChildren(evidence, result ? evidenceTable(result.verdict, result.cases, result.passed, result.total) : h('p', { class: 'hint' }, 'No tests run yet at this point.'));
    list.querySelectorAll('li').forEach((li, index) => li.classList.toggle('past', (listed[index].t_ms ?? 0) <= t));
  }

  function tick(now: number): void {
    if (playing === null) return;
    t += (now - lastTick) * Number(speed.value);
    lastTick = now;
    if (t >= end) {
      t = end;
      stop();
    }
    slider.value = String(t);
    render();
    if (playing !== null) playing = requestAnimationFrame(tick);
  }

  function stop(): void {
    if (playing !== null) cancelAnimationFrame(playing);
    playing = null;
    playButton.textContent = 'Play';
  }

  playButton.addEventListener('click', () => {
    if (playing !== null) return stop();
    if (t >= end) t = 0;
    lastTick = performance.now();
    playButton.textContent = 'Pause';
    playing = requestAnimationFrame(tick);
  });
  slider.addEventListener('input', () => {
    t = Number(slider.value);
    render();
  });

  const q = token ? `?token=${encodeURIComponent(token)}` : '';
  const base = `/api/sessions/${encodeURIComponent(sessionId)}`;
  main.append(
    h('p', { class: 'hint' }, `Session ${sessionId} · ${ordered.length} recorded events · `, h('a', { href: `${base}/transcript.vtt${q}` }, 'WebVTT transcript'), ' · ', h('a', { href: `/sessions/${encodeURIComponent(sessionId)}/report${q}` }, 'Report')),
    h('div', { class: 'card playback-controls' }, playButton, h('label', { for: 'playback-slider', class: 'visually-hidden' }, 'Position in the interview'), slider, clock, speed),
    h(
      'div',
      { class: 'playback-grid' },
      h('section', { class: 'card' }, h('h2', {}, 'Conversation'), said),
      h('section', { class: 'card' }, h('h2', {}, 'Code'), codeLabel, code, h('h3', {}, 'Tests'), evidence),
      h('section', { class: 'card' }, h('h2', {}, 'Timeline'), list),
    ),
  );
  render();
  return stop;
}

const QUIET_TYPES = new Set(['transcript_partial', 'tts_start', 'tts_end', 'tts_stop', 'latency', 'latency_marks']);

function evidenceTable(verdict: Verdict | null, cases: CaseResult[], passed: number, total: number): HTMLElement {
  return h(
    'div',
    {},
    h('p', {}, h('span', { class: `verdict verdict-${verdict ?? 'pending'}` }, verdict ?? '…'), ` ${verdict ? VERDICT_NAMES[verdict] : ''} · ${passed}/${total} passed`),
    h(
      'div',
      { class: 'cases' },
      h(
      'table',
      { class: 'case-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Test'), h('th', {}, 'Kind'), h('th', {}, 'Verdict'), h('th', {}, 'Time'), h('th', {}, 'Memory'))),
      h(
        'tbody',
        {},
        cases.map((c) =>
          h('tr', {}, h('td', {}, c.id), h('td', {}, c.kind), h('td', {}, c.verdict ?? '…'), h('td', { class: 'num' }, c.time_ms === null ? '—' : `${c.time_ms} ms`), h('td', { class: 'num' }, c.memory_kb === null ? '—' : `${c.memory_kb} KB`)),
        ),
      ),
      ),
    ),
  );
}

export default playbackPage;
