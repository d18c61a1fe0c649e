// Every list of the console is a search with pages: a search box (and the
// list's own filters), the page the server answered, and "Previous"/"Next"
// with "21–40 of 57". The search, the filters and the page live in the
// address (`#/users?q=ada&state=2&offset=20&limit=20`), so reload and Back
// return to the same page. The server does the searching and the counting
// (`query: {offset, limit, asc}`, `details.totalResult`); the console keeps
// only the page on screen.
import { describeError } from './api.js';
import { announce, h, uid } from './dom.js';
import { L } from './i18n.js';
import { currentPath } from './view.js';

export interface PageOf<T> {
  items: readonly T[];
  total: number;
}

export interface PageRequest {
  /** The search box, trimmed; '' when empty. */
  text: string;
  offset: number;
  limit: number;
}

export interface SearchListOptions<T> {
  /** `data-testid` of the list's parts: `<id>-search`, `<id>-range`, `<id>-pager`. */
  id: string;
  /** What the list is ("projects"): headings and announcements. */
  noun: string;
  searchLabel: string;
  searchHint?: string;
  /** More filters (selects, inputs) inside the search form; a change reloads from page 1. */
  controls?: HTMLElement[];
  load(request: PageRequest): Promise<PageOf<T>>;
  /** The page's items as a table or list (only called with at least one item). */
  render(items: readonly T[], reload: () => Promise<void>): HTMLElement;
  /** Said when the list is empty and nothing is searched for. */
  empty: string;
  /** Whether a filter of `controls` is set (then an empty page says "No … match"). */
  filtered?(): boolean;
}

export const PAGE_SIZES = [10, 20, 50, 100];

export interface SearchList {
  element: HTMLElement;
  /** Reloads the current page (after an action changed a row). */
  reload(): Promise<void>;
  /** Loads the first page; the view awaits it before it is shown. */
  start(): Promise<void>;
}

export function searchList<T>(opts: SearchListOptions<T>): SearchList {
  const searchId = uid('search');
  const hintId = opts.searchHint ? `${searchId}-hint` : undefined;
  const input = h('input', { id: searchId, type: 'search', name: 'q', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': hintId, 'data-testid': `${opts.id}-search` });
  const sizeId = uid('page-size');
  const size = h(
    'select',
    { id: sizeId, name: 'limit', 'data-testid': `${opts.id}-page-size` },
    PAGE_SIZES.map((n) => h('option', { value: String(n), selected: n === 20 }, String(n))),
  );
  const form = h(
    'form',
    { method: 'post', novalidate: true, role: 'search', class: 'search', 'aria-label': L.filterOf(opts.noun) },
    h('div', { class: 'field' }, h('label', { for: searchId }, opts.searchLabel), opts.searchHint ? h('p', { class: 'hint', id: hintId }, opts.searchHint) : null, h('div', { class: 'row' }, input, h('button', { type: 'submit' }, L.search))),
    opts.controls ?? [],
    h('div', { class: 'field' }, h('label', { for: sizeId }, L.perPage), size),
  );
  const body = h('div', { class: 'page-body', 'data-testid': opts.id });
  const range = h('p', { class: 'range', role: 'status', 'data-testid': `${opts.id}-range` });
  const prev = h('button', { type: 'button', class: 'secondary', 'data-testid': `${opts.id}-prev` }, L.previousPage);
  const next = h('button', { type: 'button', class: 'secondary', 'data-testid': `${opts.id}-next` }, L.nextPage);
  const pager = h('nav', { class: 'pager', 'aria-label': L.pagesOf(opts.noun), 'data-testid': `${opts.id}-pager` }, prev, range, next);
  const element = h('div', { class: 'search-list' }, form, body, pager);

  let offset = 0;
  let text = '';
  /** The page's path (`/users`) when the list started; a later answer must not rewrite another page's address. */
  let home = '';

  // The list's state in the address: the form's named controls, and the offset.
  const controls = () => [...form.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input[name], select[name]')];
  const restore = () => {
    const params = new URLSearchParams(window.location.hash.split('?')[1] ?? '');
    for (const c of controls()) {
      const v = params.get(c.name);
      if (v !== null && (c.tagName !== 'SELECT' || [...(c as HTMLSelectElement).options].some((o) => o.value === v))) c.value = v;
    }
    text = input.value.trim();
    const o = Number(params.get('offset'));
    offset = Number.isSafeInteger(o) && o > 0 ? o : 0;
  };
  const remember = () => {
    const params = new URLSearchParams();
    for (const c of controls()) if (c.value && !(c === size && c.value === '20')) params.set(c.name, c === input ? text : c.value);
    if (offset) params.set('offset', String(offset));
    const path = currentPath();
    if (path !== home) return;
    const query = params.toString();
    // replaceState: no hashchange, so no re-render; Back leaves the list as it was left.
    window.history.replaceState(window.history.state, '', `#${path}${query ? `?${query}` : ''}`);
  };
  let seq = 0;
  // Where the page on screen ends; the next one starts right after it (the server answers
  // full pages or none: a page of apps past MAX_ANSWER_BYTES is refused, naming the limit that fits).
  let shownUntil = 0;

  const load = async (announceIt: boolean) => {
    const mine = ++seq;
    const limit = Number(size.value);
    element.setAttribute('aria-busy', 'true');
    let page: PageOf<T>;
    try {
      page = await opts.load({ text, offset, limit });
    } catch (e) {
      if (mine !== seq) return;
      element.removeAttribute('aria-busy');
      body.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
      return;
    } finally {
      if (mine === seq) element.removeAttribute('aria-busy');
    }
    if (mine !== seq) return;
    remember();
    // A page past the end (rows removed meanwhile): show the last one instead.
    if (!page.items.length && offset > 0 && page.total > 0) {
      offset = Math.max(0, Math.floor((page.total - 1) / limit) * limit);
      return load(announceIt);
    }
    body.replaceChildren(
      page.items.length ? opts.render(page.items, reload) : h('p', { class: 'empty' }, text || opts.filtered?.() ? L.noneMatch(opts.noun) : opts.empty),
    );
    const first = page.items.length ? offset + 1 : 0;
    const last = offset + page.items.length;
    shownUntil = last;
    range.textContent = page.total ? L.range(first, last, page.total, opts.noun) : L.rangeEmpty(opts.noun);
    prev.disabled = offset === 0;
    next.disabled = last >= page.total;
    prev.hidden = next.hidden = page.total <= limit && offset === 0;
    if (announceIt) announce(range.textContent);
  };
  const reload = () => load(false);

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    text = input.value.trim();
    offset = 0;
    void load(true);
  });
  form.addEventListener('change', (ev) => {
    if (ev.target === input) return;
    text = input.value.trim();
    offset = 0;
    void load(true);
  });
  prev.addEventListener('click', () => {
    offset = Math.max(0, offset - Number(size.value));
    void load(true);
  });
  next.addEventListener('click', () => {
    offset = shownUntil > offset ? shownUntil : offset + Number(size.value);
    void load(true);
  });

  return {
    element,
    reload,
    start: () => {
      home = currentPath();
      restore();
      return load(false);
    },
  };
}

/** A labelled select for a list's filter form. */
export function filterSelect(label: string, name: string, choices: Array<[string, string]>): { wrapper: HTMLElement; select: HTMLSelectElement } {
  const id = uid(`filter-${name}`);
  const select = h('select', { id, name }, choices.map(([value, text]) => h('option', { value }, text)));
  return { wrapper: h('div', { class: 'field' }, h('label', { for: id }, label), select), select };
}
