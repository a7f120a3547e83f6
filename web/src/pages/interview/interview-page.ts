// The interview room: connects the websocket, routes server events to the views (what is
// said, the interviewer's voice, the coding room), and sends the candidate's voice or text.
import { StreamPlayer } from '../../audio/stream-player';
import { SessionConnection, ticketedSocketUrl } from '../../connection/session-connection';
import { ticketLink } from '../../shared/ticket-link';
import { h, replaceChildren } from '../../shared/dom';
import { NoticeArea } from '../../shared/notices';
import type { ClientMessage, CodingTask, ServerEvent, StateEvent } from '../../shared/protocol';
import { forgetSession, loadSession, markStarted, saveSession, type StoredSession } from '../../shared/session-store';
import type { CodingRoom } from '../coding/coding-room';
import type { Page } from '../page';
import { AnswerForm } from './answer-form';
import { ConnectionBadge } from './connection-badge';
import { ConversationView } from './conversation-view';
import { VoicePanel } from './voice-panel';

const PHASE_NAMES: Record<string, string> = {
  init: 'Getting ready',
  created: 'Getting ready',
  warmup: 'Warm-up',
  initial: 'Concepts',
  followup: 'Concepts',
  concepts: 'Concepts',
  coding: 'Coding round',
  final_feedback: 'Wrapping up',
  ended: 'Finished',
};

const interviewPage: Page = (root, context) => {
  const sessionId = context.params[0];
  const stored = loadSession(sessionId);
  if (!stored) return tokenPrompt(root, sessionId, context.navigate);
  return interviewRoom(root, stored, (detail) => {
    // A refused credential is never offered again; the room gives way to a page that says
    // what happened and how to go on, instead of "Connecting…" beside an open answer box.
    forgetSession(sessionId);
    root.replaceChildren();
    tokenPrompt(root, sessionId, context.navigate, detail);
  });
};

function tokenPrompt(root: HTMLElement, sessionId: string, navigate: (path: string) => void, refused?: string): () => void {
  const token = h('input', { id: 'session-token', required: true, autocomplete: 'off', 'data-testid': 'session-token' });
  const why = refused
    ? h(
        'p',
        { role: 'alert', 'data-testid': 'access-refused' },
        `This browser’s key to this interview was refused (${refused.replace(/[.\s]+$/, '')}). It may belong to another interview, or the interview has expired.`,
      )
    : h('p', {}, 'This browser holds no key to this interview: it was started in another browser, or its key was cleared.');
  const form = h(
    'form',
    { class: 'card' },
    why,
    h('p', {}, 'Your interviews in this browser are listed in the lobby. If you kept the token shown when this one was created, paste it to rejoin.'),
    h('div', { class: 'field' }, h('label', { for: 'session-token' }, 'Session token'), token),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Rejoin'),
      h('a', { href: '/', 'data-nav': true, class: 'button secondary', 'data-testid': 'back-to-lobby' }, 'Back to the lobby'),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = token.value.trim();
    if (!value) return;
    saveSession({ session_id: sessionId, token: value, ws_url: '', mode: 'text', started: true });
    navigate(`/interview/${encodeURIComponent(sessionId)}`);
  });
  root.append(h('main', { id: 'main', class: 'page page-narrow' }, h('h1', {}, refused ? 'No access to this interview' : 'Rejoin interview'), form));
  return () => undefined;
}

function interviewRoom(root: HTMLElement, stored: StoredSession, onRefused: (detail: string) => void): () => void {
  const notices = new NoticeArea();
  const conversation = new ConversationView();
  let audioContext: AudioContext | null = null;
  let player: StreamPlayer | null = null;
  let coding: CodingRoom | null = null;
  let codingLoad: Promise<CodingRoom> | null = null;
  let pendingTask: CodingTask | null = null;
  let ended = false;
  let ending = false; // the candidate confirmed "end"; waiting for the server's session_end
  // Audio still to hear: scheduled on a running context (a suspended one plays nothing).
  const closing = closingSpeech(() => audioContext?.state === 'running' && (player?.isSpeaking ?? false), stored.mode, (state) => (endPanel.dataset.closing = state));

  const getAudioContext = (): AudioContext => {
    if (!audioContext) {
      audioContext = new AudioContext({ latencyHint: 'interactive' });
      audioContext.addEventListener('statechange', updateSoundPrompt);
      player = new StreamPlayer(audioContext, (speaking) => {
        conversation.setSpeaking(speaking);
        if (!speaking) closing.idle();
      });
    }
    return audioContext;
  };

  const phase = h('span', { class: 'phase', 'data-testid': 'phase' }, 'Getting ready');
  const badge = new ConnectionBadge(() => connection.reconnectNow());
  const endButton = h('button', { type: 'button', class: 'danger', 'data-testid': 'end-interview' }, 'End interview');
  const soundButton = h(
    'button',
    { type: 'button', class: 'secondary sound-prompt', 'data-testid': 'enable-audio', hidden: true },
    'Turn on interviewer sound',
  );
  const endPanel = h('section', { class: 'card end-panel', hidden: true, 'data-testid': 'end-panel', 'aria-live': 'polite' });
  const codingHost = h('div', { class: 'coding-host', hidden: true });

  const voice =
    stored.mode === 'voice'
      ? new VoicePanel({
          audioContext: getAudioContext,
          onFrame: (pcm) => connection.sendAudio(pcm),
          onStopped: () => connection.discardQueuedAudio(),
          onEndTurn: () => connection.send({ type: 'end_turn' }),
        })
      : null;
  const answers = new AnswerForm(
    (text) => {
      connection.send({ type: 'answer', text });
      conversation.typedAnswer(text);
    },
    stored.mode === 'voice' ? 'Or type your answer' : 'Your answer',
  );

  const connection = new SessionConnection(ticketedSocketUrl(stored.session_id, stored.token, stored.ws_url), {
    onOpen(socket) {
      if (!loadSession(stored.session_id)?.started) {
        socket.send({ type: 'start' });
        markStarted(stored.session_id);
      }
    },
    onState(state, detail) {
      // After a normal end the socket closes on purpose: that is "finished", not a lost link.
      if (ended) badge.finished();
      else badge.set(state, detail);
      if (state === 'closed' && !ended) notices.show(detail, 'warning');
    },
    onSessionEnd: () => closing.heard(),
    onRefused: (detail) => {
      dispose();
      onRefused(detail);
    },
    onAudio(chunk) {
      conversation.interviewerAudio(chunk.byteLength);
      player?.push(chunk);
    },
    onEvent: (event) => handle(event),
  });

  function handle(event: ServerEvent): void {
    switch (event.type) {
      case 'question':
        conversation.question(event);
        break;
      case 'feedback':
        conversation.feedbackGiven(event);
        // What the interviewer said about a run or submission also sits beside its evidence.
        if (event.submission_id) void room().then((r) => r.interviewerSaid(event));
        break;
      case 'transcript_partial':
        conversation.partialTranscript(event);
        break;
      case 'transcript_final':
        conversation.finalTranscript(event);
        break;
      case 'answer_amended':
        conversation.answerAmended(event);
        break;
      case 'tts_start':
        getAudioContext();
        player?.begin(event.turn_id, event.sample_rate);
        if (ended) closing.started(event.turn_id);
        break;
      case 'tts_end':
        player?.end(event.turn_id);
        if (ended) closing.sent(event.turn_id);
        break;
      case 'tts_stop':
        player?.stop();
        break;
      case 'coding_task':
        void showCoding(event);
        break;
      case 'submission_queued':
        void room().then((r) => r.queued(event));
        break;
      case 'judge_case':
        void room().then((r) => r.caseResult(event));
        break;
      case 'judge_result':
        void room().then((r) => r.result(event));
        break;
      case 'state':
        showState(event);
        break;
      case 'error':
        notices.show(event.message, 'error', { code: event.code });
        coding?.submissionRefused();
        if (ending && !ended) {
          // The end was refused (e.g. the server is busy): the button works again.
          ending = false;
          endButton.disabled = false;
          endButton.textContent = 'End interview';
        }
        break;
      case 'session_end':
        finish(event.report_url);
        break;
    }
  }

  function room(): Promise<CodingRoom> {
    codingLoad ??= import('../coding/coding-room').then(({ CodingRoom }) => {
      const created = new CodingRoom(
        (message) => connection.send(message),
        (message) => notices.show(message),
      );
      replaceChildren(codingHost, created.element);
      codingHost.hidden = false;
      layout.classList.add('with-coding');
      coding = created;
      if (ended) created.disable();
      return created;
    });
    return codingLoad;
  }

  async function showCoding(task: CodingTask): Promise<void> {
    pendingTask = task;
    codingHost.hidden = false;
    layout.classList.add('with-coding');
    if (!coding) replaceChildren(codingHost, h('p', { class: 'loading-editor' }, 'Loading the editor…'));
    const r = await room();
    if (pendingTask === task) r.setTask(task);
    if (!ended) phase.textContent = PHASE_NAMES.coding;
  }

  function showState(event: StateEvent): void {
    phase.textContent = PHASE_NAMES[event.phase] ?? event.phase.replace(/_/g, ' ');
    phase.dataset.phase = event.phase;
  }

  function finish(reportUrl: string): void {
    ended = true;
    // The closing words are streamed after session_end: the player keeps playing them.
    voice?.disable();
    answers.disable();
    coding?.disable();
    confirmBar.hidden = true;
    endButton.disabled = true;
    endButton.textContent = 'Interview ended';
    phase.textContent = PHASE_NAMES.ended;
    badge.finished();
    conversation.ended('The interview is over. Thank you!');
    replaceChildren(
      endPanel,
      h('h2', {}, 'Interview finished'),
      h('p', {}, 'Your report is ready: what you said to each question, what it covered and missed, and one next step.'),
      h(
        'p',
        { class: 'actions' },
        ticketLink(reportPath(reportUrl), stored.session_id, stored.token, { class: 'button primary', 'data-testid': 'report-link' }, 'Open your report'),
        h('a', { href: `/playback/${encodeURIComponent(stored.session_id)}`, 'data-nav': true, class: 'button secondary' }, 'Play back the interview'),
      ),
    );
    endPanel.hidden = false;
  }

  function updateSoundPrompt(): void {
    soundButton.hidden = !audioContext || audioContext.state === 'running' || ended;
  }
  soundButton.addEventListener('click', () => void audioContext?.resume());
  // Ending is final, so it is confirmed first (a stray click must not end an interview).
  const confirmYes = h('button', { type: 'button', class: 'danger', 'data-testid': 'end-confirm' }, 'Yes, end it');
  const confirmNo = h('button', { type: 'button', class: 'secondary', 'data-testid': 'end-cancel' }, 'Keep going');
  const confirmBar = h(
    'div',
    { class: 'card end-confirm', role: 'alertdialog', 'aria-labelledby': 'end-confirm-text', hidden: true, 'data-testid': 'end-confirm-dialog' },
    h('p', { id: 'end-confirm-text' }, 'End the interview now? Your report is made from the answers so far, and you cannot go back.'),
    h('div', { class: 'actions' }, confirmYes, confirmNo),
  );
  endButton.addEventListener('click', () => {
    confirmBar.hidden = false;
    confirmYes.focus();
  });
  confirmNo.addEventListener('click', () => {
    confirmBar.hidden = true;
    endButton.focus();
  });
  confirmYes.addEventListener('click', () => {
    confirmBar.hidden = true;
    ending = true;
    endButton.disabled = true;
    endButton.textContent = 'Ending…';
    connection.send({ type: 'end' });
  });

  const conversationColumn = h(
    'div',
    { class: 'conversation-column' },
    conversation.interviewerPanel,
    conversation.transcriptPanel,
    h('section', { class: 'card controls', 'aria-label': 'Answer' }, voice?.element ?? null, answers.element),
  );
  const layout = h('div', { class: 'room-layout' }, conversationColumn, codingHost, conversation.logPanel);
  root.append(
    h(
      'div',
      { class: 'room' },
      h(
        'header',
        { class: 'room-header' },
        h('a', { href: '/', 'data-nav': true, class: 'brand', 'aria-label': 'Viva lobby' }, 'Viva'),
        phase,
        badge.element,
        h('span', { class: 'spacer' }),
        soundButton,
        endButton,
      ),
      h('main', { id: 'main', class: 'room-main' }, notices.element, confirmBar, endPanel, layout),
    ),
  );

  // The connection sends audio_config ahead of the first frame on every socket.
  if (voice) connection.setAudioConfig(AUDIO_CONFIG);
  connection.connect();
  if (voice) {
    // Inside the lobby's click the page may start audio; the mic asks for permission itself.
    const ctx = getAudioContext();
    void ctx.resume().finally(updateSoundPrompt);
    void voice.start();
  } else {
    answers.focus();
  }

  function dispose(): void {
    connection.close();
    voice?.stop();
    player?.stop();
    coding?.dispose();
    if (audioContext?.state !== 'closed') void audioContext?.close();
  }
  return dispose;
}

/** How long the closing words may take to begin after session_end (synthesis on a busy
 * server), and the most a closing may hold the socket open. */
const CLOSING_START_MS = { voice: 10_000, text: 1_500 };
const CLOSING_MAX_MS = 90_000;

/**
 * The closing words after session_end: `heard()` settles once they have played to their end
 * (their tts_end arrived and the player drained), or when none begin in time. The socket stays
 * open until then, so the server's voice is not cut off.
 */
function closingSpeech(audible: () => boolean, mode: 'voice' | 'text', show: (state: 'waiting' | 'playing' | 'heard' | 'none') => void) {
  let turn: string | null = null;
  let allSent = false;
  let done: (() => void) | null = null;
  let timer = 0;
  const settle = () => {
    window.clearTimeout(timer);
    if (done) show(turn === null ? 'none' : 'heard');
    done?.();
    done = null;
  };
  return {
    heard(): Promise<void> {
      show('waiting');
      return new Promise<void>((resolve) => {
        done = resolve;
        timer = window.setTimeout(settle, turn === null ? CLOSING_START_MS[mode] : CLOSING_MAX_MS);
      });
    },
    started(turnId: string): void {
      if (turn !== null) return;
      turn = turnId;
      show('playing');
      window.clearTimeout(timer);
      timer = window.setTimeout(settle, CLOSING_MAX_MS);
    },
    sent(turnId: string): void {
      if (turnId !== turn) return;
      allSent = true;
      if (!audible()) settle();
    },
    idle(): void {
      if (allSent) settle();
    },
  };
}

/** The report's path on this origin (the server may name a host the browser did not use). */
function reportPath(url: string): string {
  const parsed = new URL(url, location.href);
  return parsed.origin === location.origin ? parsed.pathname + parsed.search + parsed.hash : parsed.href;
}

const AUDIO_CONFIG: ClientMessage = { type: 'audio_config', sample_rate: 16000, encoding: 'pcm_s16le' };

export default interviewPage;
