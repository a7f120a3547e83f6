// One place that shows problems to the user: a live region read out by screen readers.
import { h } from './dom';

export type NoticeTone = 'error' | 'warning' | 'info';

export class NoticeArea {
  readonly element = h('div', { class: 'notices', role: 'region', 'aria-label': 'Messages' });

  show(message: string, tone: NoticeTone = 'error', options: { code?: string; timeoutMs?: number } = {}): void {
    // The same problem again (a burst of refusals): count it instead of stacking copies.
    const last = this.element.lastElementChild as HTMLElement | null;
    if (last?.dataset.message === message) {
      const count = Number(last.dataset.count ?? '1') + 1;
      last.dataset.count = String(count);
      last.querySelector('.notice-count')!.textContent = ` (×${count})`;
      return;
    }
    const item = h(
      'div',
      {
        class: `notice notice-${tone}`,
        role: tone === 'error' ? 'alert' : 'status',
        'data-testid': tone === 'error' ? 'error-message' : 'notice',
        'data-code': options.code,
        'data-message': message,
      },
      h('span', { class: 'notice-text' }, message, h('span', { class: 'notice-count' })),
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
