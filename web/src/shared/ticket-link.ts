// Links to pages the server guards (the HTML report, the WebVTT file) carry no token: a
// click buys a one-time ticket over `Authorization` and follows the link with `?ticket=`;
// the server turns it into an HttpOnly cookie and redirects to the clean URL, so the
// address bar, history and access logs never hold a credential.
import { postJson } from './api';
import { h } from './dom';
import type { TicketIssued } from './protocol';

type LinkAttrs = Record<string, string | boolean>;

export async function withTicket(path: string, sessionId: string, token: string): Promise<string> {
  const { ticket } = await postJson<TicketIssued>(`/api/sessions/${encodeURIComponent(sessionId)}/ticket`, {}, token);
  const url = new URL(path, location.href);
  url.searchParams.set('ticket', ticket);
  return url.pathname + url.search + url.hash;
}

export function ticketLink(path: string, sessionId: string, token: string | null, attrs: LinkAttrs, text: string): HTMLAnchorElement {
  const link = h('a', { ...attrs, href: path }, text);
  if (!token) return link; // the browser may already hold the page's cookie
  link.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    withTicket(path, sessionId, token).then(
      (target) => location.assign(target),
      // No ticket (server down, token refused): the page itself says what is missing.
      () => location.assign(path),
    );
  });
  return link;
}
