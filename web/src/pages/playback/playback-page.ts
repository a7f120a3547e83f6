// Playback: one scrubber over the recorded session. At time t it plays both sides' audio from
// t, highlights the transcript cue being said, shows the code as it stood (read-only Monaco)
// and the latest test evidence; report items jump to their moment. Space plays/pauses,
// ←/→ move 5 s (with Shift 30 s); /playback/ID?t=MS opens at a moment.
import { ApiError, describeError, getJson, getNdjson, getText } from '../../shared/api';
import { codingSummary, type CodingSummary } from '../../shared/coding-summary';
import { ticketLink } from '../../shared/ticket-link';
import { formatDuration, h, replaceChildren } from '../../shared/dom';
import { NoticeArea } from '../../shared/notices';
import type { CaseResult, Verdict } from '../../shared/protocol';
import { VERDICT_NAMES } from '../../shared/protocol';
import { loadReviewerToken, loadSession } from '../../shared/session-store';
import type { ReportQuestion } from '../../shared/report';
import type { Page } from '../page';
import { AudioTrack } from './audio-track';
import type { MonacoEditor } from './code-view';
import { type AudioClip, type CodeState, type Cue, codeAt, cueAt, evidenceAt, momentOf, parseVtt, saidUpTo, timelineLabel, type TimelineEvent } from './timeline';

const playbackPage: Page = (root, context) => {
  const sessionId = context.params[0];
  const notices = new NoticeArea();
  const main = h('main', { id: 'main', class: 'page playback' }, h('h1', {}, 'Interview playback'), notices.element);
  root.append(main);
  let disposed = false;
  let cleanup = () => undefined as void;

  // No token from the URL, ever: this tab's own, a reviewer's, or (null) the link cookie.
  const token = loadSession(sessionId)?.token ?? loadReviewerToken();
  const load = async (bearer: string | null) => {
    try {
      const recorded = await loadRecorded(sessionId, bearer);
      if (disposed) return;
      // ?t=MS opens at a moment; with &turn=ID (a report's link) at the start of that answer.
      const at = Number(context.query.get('t'));
      const turn = context.query.get('turn');
      const start = Number.isFinite(at) && at > 0 ? (turn ? momentOf(turn, at, recorded.clips) : at) : null;
      cleanup = showTimeline(main, sessionId, recorded, bearer, start);
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

interface ReportNote {
  sentence: string;
  quote?: string | null;
  turn_id?: string | null;
  t_ms?: number | null;
}

interface PlaybackReport {
  overall_score?: number | null;
  final_score?: number | null;
  questions?: ReportQuestion[];
  strength_notes?: ReportNote[];
  weak_notes?: ReportNote[];
  /** A practice session ("try this one again"): the session of the first attempt. */
  practice_of?: string | null;
  coding?: CodingSummary | null;
}

interface Recorded {
  events: TimelineEvent[];
  clips: AudioClip[];
  cues: Cue[];
  report: PlaybackReport | null;
}

/** Everything playback shows; audio, transcript and report are optional (a text interview
 * has no audio; an old server has no audio endpoint). */
async function loadRecorded(sessionId: string, token: string | null): Promise<Recorded> {
  const base = `/api/sessions/${encodeURIComponent(sessionId)}`;
  const events = await getNdjson<TimelineEvent>(`${base}/events`, token);
  const optional = async <T>(load: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await load();
    } catch {
      return fallback;
    }
  };
  const [clips, cues, report] = await Promise.all([
    optional(() => getJson<AudioClip[]>(`${base}/audio`, token), []),
    optional(async () => parseVtt(await getText(`${base}/transcript.vtt`, token)), []),
    optional(() => getJson<PlaybackReport>(`${base}/report`, token), null),
  ]);
  return { events, clips, cues, report };
}

function showTimeline(main: HTMLElement, sessionId: string, recorded: Recorded, token: string | null, startAt: number | null): () => void {
  const { events, clips, cues, report } = recorded;
  const ordered = [...events].sort((a, b) => (a.t_ms ?? 0) - (b.t_ms ?? 0) || (a.seq ?? 0) - (b.seq ?? 0));
  // The list shows moments worth jumping to; streaming detail (partials, audio marks) is not.
  const listed = ordered.filter((e) => !QUIET_TYPES.has(e.type));
  const lastEvent = ordered.length ? (ordered[ordered.length - 1].t_ms ?? 0) : 0;
  const end = Math.max(lastEvent, ...clips.map((c) => c.t_ms + c.duration_ms), ...cues.map((c) => c.end));
  const track = new AudioTrack(clips, token);
  let t = 0;
  let playing: number | null = null;
  let lastTick = 0;
  let shownCue = -2;
  let shownCode: CodeState | null | undefined;
  let editor: MonacoEditor | null = null;

  const slider = h('input', {
    type: 'range',
    min: 0,
    max: Math.max(1, end),
    step: 'any', // a seek lands on the exact ms (a report's moment, a code change)
    value: 0,
    id: 'playback-slider',
    'data-testid': 'playback-slider',
    'aria-valuetext': '0:00',
    'aria-keyshortcuts': 'Space ArrowLeft ArrowRight',
  });
  const clock = h('span', { class: 'clock', 'data-testid': 'playback-time' }, `0:00 / ${formatDuration(end)}`);
  const playButton = h('button', { type: 'button', class: 'primary', 'data-testid': 'playback-play', 'aria-keyshortcuts': 'Space' }, 'Play');
  const speed = h('select', { 'aria-label': 'Playback speed' }, [1, 1.5, 2, 4].map((s) => h('option', { value: s }, `${s}×`)));
  const audioState = h('span', { class: 'hint', 'data-testid': 'playback-audio-state', 'aria-live': 'polite' }, clips.length ? `${clips.length} recordings` : 'no audio recorded');
  const marks = h(
    'div',
    { class: 'playback-marks', 'aria-hidden': 'true' },
    clips.map((c) => h('span', { class: `mark mark-${c.speaker}`, style: `left:${(100 * c.t_ms) / Math.max(1, end)}%;width:${(100 * c.duration_ms) / Math.max(1, end)}%` })),
    ordered.filter((e) => e.type === 'judge_result').map((e) => h('span', { class: 'mark mark-result', style: `left:${(100 * (e.t_ms ?? 0)) / Math.max(1, end)}%` })),
  );
  const said = h(
    'ol',
    { class: 'log transcript', 'data-testid': 'playback-transcript' },
    cues.length
      ? cues.map((cue) =>
          h(
            'li',
            { class: `log-${cue.who} future${cue.superseded ? ' superseded' : ''}`, 'data-testid': 'playback-cue', 'data-start': cue.start, 'data-marks': [cue.superseded && 'superseded', cue.cut && 'cut', cue.typed && 'typed'].filter(Boolean).join(' ') },
            h('span', { class: 'who' }, cue.who === 'interviewer' ? 'Interviewer' : 'Candidate'),
            h('button', { type: 'button', class: 'link clock', onclick: () => seek(cue.start, true) }, formatDuration(cue.start)),
            cue.typed ? h('span', { class: 'note' }, 'typed') : null,
            cue.superseded ? h('span', { class: 'note mark-note', title: 'The candidate went on after a pause; this reply was taken back and the whole answer assessed again.' }, 'answer continued') : null,
            cue.cut ? h('span', { class: 'note mark-note', title: 'The candidate spoke over it; the rest was not heard.' }, 'cut off') : null,
            h('span', { class: 'said' }, cue.superseded ? h('s', {}, cue.text) : cue.text, cue.cut ? ' —' : ''),
          ),
        )
      : [],
  );
  const codeLabel = h('p', { class: 'hint', 'data-testid': 'playback-code-label' });
  const code = h('div', { class: 'playback-code', 'data-testid': 'playback-code' });
  const evidence = h('div', { 'data-testid': 'playback-evidence' });
  const list = h(
    'ol',
    { class: 'event-list', 'data-testid': 'playback-events' },
    listed.map((event) =>
      h('li', { 'data-t': event.t_ms ?? 0 }, h('button', { type: 'button', class: 'link', onclick: () => seek(event.t_ms ?? 0, true) }, h('span', { class: 'clock' }, formatDuration(event.t_ms ?? 0)), ` ${timelineLabel(event)}`)),
    ),
  );

  function seek(ms: number, keepPlaying = false): void {
    t = Math.max(0, Math.min(end, ms));
    slider.value = String(t);
    if (playing !== null && keepPlaying) track.play(t, Number(speed.value));
    else if (playing !== null) stop();
    render();
  }

  function renderTranscript(): void {
    if (!cues.length) {
      // No transcript export (an older session): what had been said, from the events.
      replaceChildren(
        said,
        saidUpTo(ordered, t).map((line) =>
          h('li', { class: `log-${line.who}` }, h('span', { class: 'who' }, line.who === 'interviewer' ? 'Interviewer' : 'Candidate'), h('span', { class: 'clock' }, formatDuration(line.t_ms)), h('span', { class: 'said' }, line.text)),
        ),
      );
      return;
    }
    const current = cueAt(cues, t);
    if (current === shownCue) return;
    shownCue = current;
    said.querySelectorAll('li').forEach((li, i) => {
      li.classList.toggle('future', i > current);
      li.classList.toggle('current', i === current);
      if (i === current) li.setAttribute('aria-current', 'true');
      else li.removeAttribute('aria-current');
    });
    const li = said.children[current] as HTMLElement | undefined;
    if (li) scrollWithin(said, li);
  }

  let shownEvent = -2;
  function renderEvents(): void {
    // The timeline follows playback: the latest event at t is marked and kept in view.
    let current = -1;
    list.querySelectorAll('li').forEach((li, index) => {
      const past = (listed[index].t_ms ?? 0) <= t;
      li.classList.toggle('past', past);
      if (past) current = index;
    });
    if (current === shownEvent) return;
    shownEvent = current;
    list.querySelectorAll('li').forEach((li, index) => {
      li.classList.toggle('current', index === current);
      if (index === current) li.setAttribute('aria-current', 'true');
      else li.removeAttribute('aria-current');
    });
    const li = list.children[current] as HTMLElement | undefined;
    if (li) scrollWithin(list, li);
  }

  function renderCode(): void {
    const state = codeAt(ordered, t);
    if (shownCode !== undefined && state?.t_ms === shownCode?.t_ms && state?.code === shownCode?.code) return;
    shownCode = state;
    codeLabel.textContent = state ? `${state.problem_id} · ${state.language} · as it was at ${formatDuration(state.t_ms)}` : 'No code yet at this point.';
    code.dataset.codeAt = state ? String(state.t_ms) : '';
    editor?.show(state?.code ?? '', state?.language ?? 'plaintext');
  }

  function render(): void {
    slider.setAttribute('aria-valuetext', formatDuration(t));
    clock.textContent = `${formatDuration(t)} / ${formatDuration(end)}`;
    renderTranscript();
    renderCode();
    const result = evidenceAt(ordered, t);
    replaceChildren(evidence, result ? evidenceTable(result.verdict, result.cases, result.passed, result.total) : h('p', { class: 'hint' }, 'No tests run yet at this point.'));
    renderEvents();
    const state = playing === null ? (track.state === 'failed' ? 'audio could not be loaded' : 'paused') : track.audibleAt(t) ? 'playing' : 'between recordings';
    if (clips.length) {
      audioState.textContent = state;
      audioState.dataset.state = state;
    }
  }

  function tick(now: number): void {
    if (playing === null) return;
    if (track.playing) t = Math.min(end, track.position());
    else t += (now - lastTick) * Number(speed.value);
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
    track.stop();
    playButton.textContent = 'Play';
    render();
  }

  async function play(): Promise<void> {
    if (t >= end) t = 0;
    playButton.textContent = 'Pause';
    playing = requestAnimationFrame(tick);
    lastTick = performance.now();
    if (clips.length) {
      audioState.textContent = 'loading audio…';
      await track.prepare();
      if (playing === null) return; // paused while loading
      track.play(t, Number(speed.value));
    }
  }

  const toggle = () => (playing !== null ? stop() : void play());
  playButton.addEventListener('click', toggle);
  speed.addEventListener('change', () => {
    if (playing !== null) track.play(t, Number(speed.value));
  });
  slider.addEventListener('input', () => seek(Number(slider.value), true));
  const onKey = (event: KeyboardEvent) => {
    const target = event.target as HTMLElement | null;
    if (target?.closest('input:not([type=range]), textarea, select, .monaco-editor') || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === ' ' || event.code === 'Space') {
      event.preventDefault();
      toggle();
    } else if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
      event.preventDefault();
      seek(t + (event.key === 'ArrowLeft' ? -5000 : 5000) * (event.shiftKey ? 6 : 1), true);
    }
  };
  document.addEventListener('keydown', onKey);

  const base = `/api/sessions/${encodeURIComponent(sessionId)}`;
  main.append(
    h('p', { class: 'hint' }, `Session ${sessionId} · ${ordered.length} recorded events · `, ticketLink(`${base}/transcript.vtt`, sessionId, token, {}, 'WebVTT transcript'), ' · ', ticketLink(`/sessions/${encodeURIComponent(sessionId)}/report`, sessionId, token, {}, 'Report'), ' · Space plays or pauses, ← → move 5 s'),
    h('div', { class: 'card playback-controls' }, playButton, h('div', { class: 'scrubber' }, h('label', { for: 'playback-slider', class: 'visually-hidden' }, 'Position in the interview'), slider, marks), clock, speed, audioState),
    h(
      'div',
      { class: 'playback-grid' },
      h('section', { class: 'card' }, h('h2', {}, 'Conversation'), said),
      h('section', { class: 'card' }, h('h2', {}, 'Code'), codeLabel, code, h('h3', {}, 'Tests'), evidence),
      h('section', { class: 'card' }, h('h2', {}, 'Timeline'), list),
    ),
  );
  const reportCard = reportSection(sessionId, report, clips, (ms) => seek(ms, true));
  if (reportCard) main.append(reportCard);
  let disposed = false;
  void import('./code-view').then(({ MonacoEditor: Editor }) => {
    if (disposed) return;
    editor = new Editor(code);
    shownCode = undefined;
    renderCode();
  });
  seek(startAt ?? 0);
  return () => {
    disposed = true;
    stop();
    track.dispose();
    editor?.dispose();
    document.removeEventListener('keydown', onKey);
  };
}

/** The report as the HTML page has it: each question with its answer quoted once and a
 * button to where that answer begins (the same moment the page links to). */
function reportSection(sessionId: string, report: PlaybackReport | null, clips: AudioClip[], jump: (ms: number) => void): HTMLElement | null {
  if (!report) return null;
  const moment = (tMs: number, quote: string | null | undefined) =>
    h('button', { type: 'button', class: 'link', 'data-testid': 'report-moment', 'data-t': tMs, onclick: () => jump(tMs) }, h('span', { class: 'clock' }, formatDuration(tMs)), quote ? ` “${quote}”` : ' listen');
  const score = typeof report.final_score === 'number' ? report.final_score : report.overall_score;
  const reviewed = typeof report.final_score === 'number' && report.final_score !== report.overall_score;
  const heading = h('h2', {}, 'Report', typeof score === 'number' ? ` · ${Math.round(score * 100)}/100` : '', reviewed ? ' (after review)' : '');
  const questions = report.questions ?? [];
  if (!questions.length) {
    // An archive from before the question-by-question report: its notes, timed on the clips.
    const at = (turnId: string | null | undefined, tMs: number) => momentOf(turnId ?? null, tMs, clips);
    const notes = (title: string, items: ReportNote[] | undefined) =>
      items?.length ? [h('h3', {}, title), h('ul', {}, items.map((n) => h('li', {}, n.sentence, ' ', typeof n.t_ms === 'number' ? moment(at(n.turn_id, n.t_ms), null) : null)))] : [];
    return h('section', { class: 'card playback-report', 'data-testid': 'playback-report' }, heading, notes('Strengths', report.strength_notes), notes('Weak points', report.weak_notes));
  }
  const practice = report.practice_of
    ? h('p', { 'data-testid': 'playback-practice-of' }, 'A practice of one question; ', h('a', { href: `/playback/${encodeURIComponent(report.practice_of)}`, 'data-nav': true, 'data-testid': 'first-attempt' }, 'the first attempt'), ' stays as it was.')
    : null;
  return h(
    'section',
    { class: 'card playback-report', 'data-testid': 'playback-report' },
    heading,
    practice,
    questions.map((q) =>
      h(
        'article',
        { class: 'report-question' },
        h('h3', {}, q.question),
        h('p', { class: 'hint' }, q.topic, typeof q.score === 'number' ? ` · ${Math.round(q.score * 100)}/100` : ''),
        q.exchanges.flatMap((ex) => [
          ex.follow_up ? h('p', {}, h('b', {}, 'Follow-up: '), ex.question) : null,
          ex.answer ? h('p', {}, moment(ex.answer_t_ms ?? 0, ex.answer)) : h('p', { class: 'hint' }, 'No answer was given.'),
        ]),
        q.covered.length ? h('ul', { class: 'covered' }, q.covered.map((c) => h('li', {}, c))) : null,
        q.missed.length ? h('ul', { class: 'missed' }, q.missed.map((m) => h('li', {}, m))) : null,
        h('p', { class: 'next-step' }, h('b', {}, 'Next step: '), q.next_step),
        q.reference_answer ? h('p', {}, h('a', { href: `/practice/${encodeURIComponent(sessionId)}?question=${encodeURIComponent(q.question_id)}`, 'data-nav': true, 'data-testid': 'try-again' }, 'Try this one again')) : null,
        q.reference_answer ? h('details', {}, h('summary', {}, 'Model answer'), h('p', {}, q.reference_answer)) : null,
      ),
    ),
    report.coding
      ? h('section', { class: 'report-coding', 'data-testid': 'playback-coding' }, h('h3', {}, `Coding: ${report.coding.title ?? 'the problem'}`), codingSummary(report.coding, 'playback', (tMs) => moment(tMs, null)))
      : null,
  );
}

/** Scrolls `container` (not the page) so that `item` is in view. */
function scrollWithin(container: HTMLElement, item: HTMLElement): void {
  const top = item.getBoundingClientRect().top - container.getBoundingClientRect().top + container.scrollTop;
  const bottom = top + item.offsetHeight;
  if (top < container.scrollTop || bottom > container.scrollTop + container.clientHeight) {
    container.scrollTop = Math.max(0, top - container.clientHeight / 3);
  }
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
