// Connection state, always visible: connected, reconnecting (with "retry now"), or closed.
import type { ConnectionState } from '../../connection/session-connection';
import { h } from '../../shared/dom';

const LABELS: Record<ConnectionState, string> = {
  connecting: 'Connecting',
  open: 'Connected',
  reconnecting: 'Reconnecting',
  closed: 'Disconnected',
};

export class ConnectionBadge {
  readonly element: HTMLElement;
  private readonly label = h('span', { class: 'label' });
  private readonly retry = h('button', { type: 'button', class: 'link', hidden: true }, 'Retry now');

  constructor(onRetry: () => void) {
    this.retry.addEventListener('click', onRetry);
    this.element = h(
      'div',
      { class: 'connection', 'data-testid': 'connection-state', 'data-state': 'connecting', role: 'status' },
      h('span', { class: 'dot', 'aria-hidden': 'true' }),
      this.label,
      this.retry,
    );
    this.set('connecting', 'Connecting…');
  }

  set(state: ConnectionState, detail: string): void {
    this.element.dataset.state = state;
    this.label.textContent = LABELS[state];
    this.element.title = detail;
    this.label.setAttribute('aria-label', `${LABELS[state]}. ${detail}`);
    this.retry.hidden = state !== 'reconnecting';
  }

  /** The interview ended normally: the closed socket is not a lost connection. */
  finished(): void {
    this.element.dataset.state = 'finished';
    this.label.textContent = 'Finished';
    this.element.title = 'The interview is over.';
    this.label.setAttribute('aria-label', 'Finished. The interview is over.');
    this.retry.hidden = true;
  }
}
