// Single-page app: one HTML shell for every route; each page is a lazily loaded module.
// Navigating inside the app keeps the browser's record of the user's click, which the
// interview room needs to start audio playback without an extra "enable sound" step.
import './styles/app.css';
import { h, replaceChildren } from './shared/dom';
import type { Page, PageContext } from './pages/page';

type PageLoader = () => Promise<{ default: Page }>;

const ROUTES: [RegExp, PageLoader][] = [
  [/^\/$/, () => import('./pages/lobby/lobby-page')],
  [/^\/interview\/([^/]+)\/?$/, () => import('./pages/interview/interview-page')],
  [/^\/playback\/([^/]+)\/?$/, () => import('./pages/playback/playback-page')],
  [/^\/review\/?$/, () => import('./pages/review/review-page')],
  [/^\/practice\/([^/]+)\/?$/, () => import('./pages/practice/practice-page')],
  [/^\/candidates\/([^/]+)\/?$/, () => import('./pages/progress/progress-page')],
];

const root = document.getElementById('app')!;
let unmount: (() => void) | null = null;
let renderCount = 0;

export function navigate(path: string): void {
  history.pushState({}, '', path);
  void render();
}

async function render(): Promise<void> {
  const ticket = ++renderCount;
  unmount?.();
  unmount = null;
  const path = location.pathname;
  const route = ROUTES.find(([pattern]) => pattern.test(path));
  root.setAttribute('aria-busy', 'true');
  if (!route) {
    replaceChildren(root, notFound(path));
    root.setAttribute('aria-busy', 'false');
    return;
  }
  const params = route[0].exec(path)!.slice(1).map(decodeURIComponent);
  const module = await route[1]();
  if (ticket !== renderCount) return; // the user navigated again while this loaded
  const context: PageContext = { params, navigate, query: new URLSearchParams(location.search) };
  replaceChildren(root);
  unmount = module.default(root, context);
  root.setAttribute('aria-busy', 'false');
}

function notFound(path: string): HTMLElement {
  return h(
    'main',
    { id: 'main', class: 'page page-narrow' },
    h('h1', {}, 'Page not found'),
    h('p', {}, `There is nothing at ${path}.`),
    h('p', {}, h('a', { href: '/' }, 'Go to the lobby')),
  );
}

// Same-origin links marked data-nav stay inside the app.
document.addEventListener('click', (event) => {
  const link = (event.target as Element | null)?.closest?.('a[data-nav]');
  if (!(link instanceof HTMLAnchorElement) || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  navigate(link.pathname + link.search);
});
window.addEventListener('popstate', () => void render());
void render();
