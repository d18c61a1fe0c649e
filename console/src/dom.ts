/// <reference lib="dom" />
import { L, locale } from './i18n.js';
// A few DOM helpers. Every server-provided string goes in as text (textContent
// or attribute values), never as markup.

export type Child = Node | string | number | null | undefined | false | Child[];
type AttrValue = string | number | boolean | null | undefined | ((ev: any) => unknown);
export type Attrs = Record<string, AttrValue>;

/** Creates an element: `h('button', { type: 'button', onclick: fn }, 'Save')`. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') {
      el.addEventListener(key.replace(/^on/, ''), value as EventListener);
    } else if (key === 'value' || key === 'checked') {
      (el as unknown as Record<string, unknown>)[key] = value;
    } else if (key === 'class') {
      el.className = String(value);
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

let idCounter = 0;
/** A document-unique id for label/aria wiring. */
export function uid(prefix: string): string {
  return `${prefix}-${++idCounter}`;
}

/** Adds `id` to the element's aria-describedby list. */
export function describedBy(el: Element, id: string): void {
  const ids = new Set((el.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean));
  ids.add(id);
  el.setAttribute('aria-describedby', [...ids].join(' '));
}

export function undescribedBy(el: Element, id: string): void {
  const ids = (el.getAttribute('aria-describedby') ?? '').split(/\s+/).filter((x) => x && x !== id);
  if (ids.length) el.setAttribute('aria-describedby', ids.join(' '));
  else el.removeAttribute('aria-describedby');
}

/** Says `message` through the page's polite live region (for screen readers). */
export function announce(message: string): void {
  const region = document.getElementById('announcer');
  if (!region) return;
  region.textContent = '';
  // A fresh text node after a tick, so the same message twice is read twice.
  setTimeout(() => {
    region.textContent = message;
  }, 30);
}

export function formatDate(date: Date | undefined): string {
  if (!date || Number.isNaN(date.getTime())) return '—';
  return date.toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short' });
}

/** A labelled text input with an optional hint, in a `.field` wrapper. */
export function textField(opts: {
  label: string;
  name: string;
  type?: string;
  value?: string;
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  field?: string;
  attrs?: Attrs;
}): { wrapper: HTMLDivElement; input: HTMLInputElement } {
  const id = uid(`f-${opts.name.replace(/[^A-Za-z0-9]/g, '-')}`);
  const hintId = opts.hint ? `${id}-hint` : undefined;
  const input = h('input', {
    id,
    name: opts.name,
    type: opts.type ?? 'text',
    value: opts.value ?? '',
    autocomplete: opts.autocomplete ?? 'off',
    'aria-required': opts.required ? 'true' : undefined,
    'aria-describedby': hintId,
    'data-field': opts.field ?? opts.name,
    ...opts.attrs,
  });
  const wrapper = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, opts.label, opts.required ? h('span', { class: 'required', 'aria-hidden': 'true' }, ' *') : null),
    opts.hint ? h('p', { class: 'hint', id: hintId }, opts.hint) : null,
    input,
  );
  return { wrapper, input };
}

/** Copies `text` to the clipboard; falls back to selecting `source` and execCommand. */
export async function copyText(text: string, source?: HTMLInputElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (!source) return false;
    source.focus();
    source.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }
}

/** A read-only value with a "Copy" button and a status that says when it worked. */
export function copyableValue(label: string, value: string, opts: { secret?: boolean; testId?: string } = {}): HTMLDivElement {
  const id = uid('copy');
  const status = h('span', { class: 'copy-status', role: 'status' });
  const input = h('input', {
    id,
    type: 'text',
    readonly: true,
    value,
    class: opts.secret ? 'mono secret-value' : 'mono',
    spellcheck: 'false',
    autocomplete: 'off',
    'data-testid': opts.testId,
  });
  // Wide enough for the whole value (CSSOM, which the page's CSP allows; a style attribute it would not).
  input.style.width = `calc(${Math.max(value.length, 20) + 1}ch + 1.2rem)`;
  const button = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      'aria-label': L.copyNamed(label),
      onclick: async () => {
        const ok = await copyText(value, input);
        status.textContent = ok ? L.copied : L.copyFailed;
      },
    },
    L.copy,
  );
  return h('div', { class: 'copyable' }, h('label', { for: id }, label), h('div', { class: 'copy-row' }, input, button, status));
}
