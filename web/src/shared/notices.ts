// One place that shows problems to the user: a live region read out by screen readers.
import { h } from './dom';

export type NoticeTone = 'error' | 'warning' | 'info';

export class NoticeArea {
  readonly element = h('div', { class: 'notices', role: 'region', 'aria-label': 'Messages' });

  show(message: string, tone: NoticeTone = 'error', options: { code?: string; timeoutMs?: number } = {}): void {
    const item = h(
      'div',
      {
        class: `notice notice-${tone}`,
        role: tone === 'error' ? 'alert' : 'status',
        'data-testid': tone === 'error' ? 'error-message' : 'notice',
        'data-code': options.code,
      },
      h('span', { class: 'notice-text' }, message),
      h('button', { type: 'button', class: 'notice-close', 'aria-label': 'Dismiss message', onclick: () => item.remove() }, '×'),
    );
    this.element.appendChild(item);
    // Keep at most a handful so a burst of errors cannot push the page around.
    while (this.element.childElementCount > 4) this.element.firstElementChild?.remove();
    if (options.timeoutMs) window.setTimeout(() => item.remove(), options.timeoutMs);
  }

  clear(): void {
    this.element.replaceChildren();
  }
}
