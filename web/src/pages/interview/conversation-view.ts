// What is said: the interviewer's current words (the caption of what is spoken), the
// candidate's live and final transcript, feedback, and the running conversation log.
import { h, replaceChildren } from '../../shared/dom';
import type {
  AnswerAmendedEvent,
  FeedbackEvent,
  QuestionEvent,
  TranscriptFinalEvent,
  TranscriptPartialEvent,
} from '../../shared/protocol';

const PHASE_LABELS: Record<string, string> = {
  warmup: 'Warm-up',
  initial: 'Question',
  followup: 'Follow-up',
  coding: 'Coding',
};

const FEEDBACK_LABELS: Record<string, string> = {
  correction: 'Correction',
  guidance: 'Guidance',
  comment: 'Comment',
};

export class ConversationView {
  readonly interviewerPanel: HTMLElement;
  readonly transcriptPanel: HTMLElement;
  readonly logPanel: HTMLElement;
  private readonly caption = h('p', { class: 'caption', 'data-testid': 'interviewer-text', 'aria-live': 'polite' });
  private readonly captionKind = h('span', { class: 'badge', 'data-testid': 'question-phase' });
  private readonly speaking = h(
    'span',
    { class: 'speaking', 'data-testid': 'interviewer-audio', 'data-state': 'idle', 'data-bytes': '0', 'aria-hidden': 'true' },
    h('span', { class: 'bar' }),
    h('span', { class: 'bar' }),
    h('span', { class: 'bar' }),
  );
  private readonly feedback = h('div', { class: 'feedback', 'data-testid': 'feedback', hidden: true });
  private readonly finals = h('div', { class: 'finals' });
  private readonly partial = h('p', { class: 'partial', 'data-testid': 'transcript-partial' });
  private readonly transcript = h(
    'div',
    { class: 'transcript', 'data-testid': 'transcript', 'aria-live': 'polite', 'aria-label': 'What you said' },
    this.finals,
    this.partial,
  );
  private readonly log = h('ol', { class: 'log', 'data-testid': 'conversation-log' });
  private readonly pendingTyped: string[] = [];
  private readonly spoken = new Map<string, { final: HTMLElement; said: HTMLElement }>();
  private audioBytes = 0;

  constructor() {
    this.interviewerPanel = h(
      'section',
      { class: 'card interviewer', 'aria-labelledby': 'interviewer-heading' },
      h('div', { class: 'card-head' }, h('h2', { id: 'interviewer-heading' }, 'Interviewer'), this.captionKind, this.speaking),
      this.feedback,
      this.caption,
    );
    this.caption.textContent = 'Connecting to your interviewer…';
    this.transcriptPanel = h(
      'section',
      { class: 'card you', 'aria-labelledby': 'you-heading' },
      h('div', { class: 'card-head' }, h('h2', { id: 'you-heading' }, 'You')),
      this.transcript,
    );
    this.logPanel = h(
      'section',
      { class: 'card history', 'aria-labelledby': 'log-heading' },
      h('h2', { id: 'log-heading' }, 'Conversation'),
      this.log,
    );
  }

  question(event: QuestionEvent): void {
    this.caption.textContent = event.text;
    this.captionKind.textContent = PHASE_LABELS[event.phase] ?? event.phase;
    this.addLog('interviewer', event.text, PHASE_LABELS[event.phase]);
  }

  feedbackGiven(event: FeedbackEvent): void {
    replaceChildren(
      this.feedback,
      h('strong', {}, `${FEEDBACK_LABELS[event.kind] ?? 'Feedback'}: `),
      event.text,
    );
    this.feedback.className = `feedback feedback-${event.kind}`;
    this.feedback.hidden = false;
    this.addLog('interviewer', event.text, FEEDBACK_LABELS[event.kind]);
  }

  partialTranscript(event: TranscriptPartialEvent): void {
    if (event.stable === undefined || event.tentative === undefined) {
      this.partial.textContent = event.text;
      return;
    }
    // Settled words plainly; the tail that may still change, dimmed.
    replaceChildren(
      this.partial,
      event.stable,
      event.tentative ? h('span', { class: 'tentative' }, `${event.stable ? ' ' : ''}${event.tentative}`) : null,
    );
  }

  finalTranscript(event: TranscriptFinalEvent): void {
    this.partial.textContent = '';
    this.feedback.hidden = true; // feedback on the previous answer stays until the next one
    const typedIndex = this.pendingTyped.indexOf(event.text.trim());
    if (typedIndex >= 0) {
      // Our own typed answer coming back from the server: already shown.
      this.pendingTyped.splice(typedIndex, 1);
      return;
    }
    const earlier = event.amended ? this.spoken.get(event.turn_id) : undefined;
    if (earlier) {
      // The candidate went on after a pause: one answer, shown whole.
      earlier.final.textContent = event.text;
      earlier.said.textContent = event.text;
      return;
    }
    this.spoken.set(event.turn_id, this.addFinal(event.text));
  }

  answerAmended(_event: AnswerAmendedEvent): void {
    this.addLog('interviewer', 'You went on after a pause: your whole answer is assessed again.', 'note');
  }

  typedAnswer(text: string): void {
    this.feedback.hidden = true;
    this.pendingTyped.push(text.trim());
    this.addFinal(text, 'typed');
  }

  interviewerAudio(bytes: number): void {
    this.audioBytes += bytes;
    this.speaking.dataset.bytes = String(this.audioBytes);
  }

  setSpeaking(speaking: boolean): void {
    this.speaking.dataset.state = speaking ? 'speaking' : 'idle';
    this.speaking.classList.toggle('on', speaking);
  }

  ended(message: string): void {
    this.caption.textContent = message;
    this.partial.textContent = '';
  }

  private addFinal(text: string, how?: string): { final: HTMLElement; said: HTMLElement } {
    const final = h('p', { class: 'final' }, text);
    this.finals.appendChild(final);
    const said = this.addLog('candidate', text, how === 'typed' ? 'typed' : undefined);
    this.transcript.scrollTop = this.transcript.scrollHeight;
    return { final, said };
  }

  private addLog(who: 'interviewer' | 'candidate', text: string, note?: string): HTMLElement {
    const said = h('span', { class: 'said' }, text);
    this.log.appendChild(
      h(
        'li',
        { class: `log-${who}` },
        h('span', { class: 'who' }, who === 'interviewer' ? 'Interviewer' : 'You'),
        note ? h('span', { class: 'note' }, note) : null,
        said,
      ),
    );
    this.log.scrollTop = this.log.scrollHeight;
    return said;
  }
}
