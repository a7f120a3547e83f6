// A tiny element builder. Text always goes in as text nodes, never as HTML, so nothing the
// server or a candidate sends can inject markup.

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === 'class') {
      el.className = String(value);
    } else if (value === true) {
      el.setAttribute(name, '');
    } else {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

export function replaceChildren(el: Element, ...children: (Child | Child[])[]): void {
  clear(el);
  append(el, children);
}

/**
 * Renders a problem statement: paragraphs split on blank lines, ``` fenced blocks as <pre>,
 * and `inline code`. Plain text in, DOM out; no HTML is interpreted.
 */
export function renderRichText(text: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  const parts = text.split(/^```[^\n]*\n?/m);
  parts.forEach((part, index) => {
    if (index % 2 === 1) {
      fragment.appendChild(h('pre', { class: 'code-block' }, h('code', {}, part.replace(/\n$/, ''))));
      return;
    }
    for (const para of part.split(/\n{2,}/)) {
      const trimmed = para.trim();
      if (!trimmed) continue;
      const p = h('p');
      trimmed.split(/(`[^`\n]+`)/).forEach((bit) => {
        if (bit.startsWith('`') && bit.endsWith('`') && bit.length > 1) {
          p.appendChild(h('code', {}, bit.slice(1, -1)));
        } else if (bit) {
          p.appendChild(document.createTextNode(bit));
        }
      });
      fragment.appendChild(p);
    }
  });
  return fragment;
}

export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return `${minutes}:${seconds.toString().padStart(2, '0')}`;
}
