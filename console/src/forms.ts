// Form plumbing shared by the views: the server's BadRequest violations shown
// next to the fields they name (and in a summary that links to them), editable
// list rows, and a busy state for submit buttons.
import type { FieldProblem, Problem } from './api.js';
import { describedBy, h, uid, undescribedBy } from './dom.js';
import { L } from './i18n.js';

/**
 * The element for a server field path: exact `data-field` match first, then the
 * path with its last index or member dropped (`redirectUris[3]` → `redirectUris`,
 * `profile.givenName` → `profile`).
 */
function elementFor(form: HTMLElement, field: string): HTMLElement | null {
  let path = field;
  for (;;) {
    const el = form.querySelector<HTMLElement>(`[data-field="${CSS.escape(path)}"]`);
    if (el) return el;
    const shorter = path.replace(/(\[\d+\]|\.[^.[\]]+)$/, '');
    if (shorter === path || !shorter) return null;
    path = shorter;
  }
}

function labelOf(form: HTMLElement, el: HTMLElement): string {
  if (el.id) {
    const label = form.querySelector(`label[for="${CSS.escape(el.id)}"]`);
    if (label) return (label.textContent ?? '').replace(/\s*\*$/, '').trim();
  }
  const legend = el.querySelector('legend') ?? el.closest('fieldset')?.querySelector('legend');
  if (legend) return (legend.textContent ?? '').trim();
  return el.getAttribute('aria-label') ?? '';
}

export function clearProblems(form: HTMLElement): void {
  form.querySelectorAll('.error-summary, .field-error').forEach((n) => n.remove());
  form.querySelectorAll<HTMLElement>('[aria-invalid="true"]').forEach((el) => {
    el.removeAttribute('aria-invalid');
    for (const id of (el.getAttribute('aria-describedby') ?? '').split(/\s+/)) if (id.startsWith('err-')) undescribedBy(el, id);
  });
  form.querySelectorAll('.invalid').forEach((el) => el.classList.remove('invalid'));
}

/**
 * Shows a failed call on the form: every field violation next to its field,
 * a summary at the top (focused, announced) listing them with links, and the
 * server's message when there are no field violations.
 */
export function showProblems(form: HTMLElement, problem: Problem, fieldNames: Record<string, string> = {}): void {
  clearProblems(form);
  const items: HTMLElement[] = [];
  const placed = new Set<HTMLElement>();
  for (const v of problem.violations) {
    const target = elementFor(form, v.field);
    const errId = uid('err');
    const text = v.description;
    if (target) {
      const isControl = target.matches('input, select, textarea');
      const error = h('p', { class: 'field-error', id: errId, 'data-error-for': v.field }, h('span', { class: 'visually-hidden' }, L.errorPrefix), text);
      if (isControl) {
        target.setAttribute('aria-invalid', 'true');
        describedBy(target, errId);
        const anchor = target.closest('.row') ?? target;
        anchor.after(error);
      } else {
        target.classList.add('invalid');
        const legend = target.querySelector(':scope > legend');
        if (legend) legend.after(error);
        else target.prepend(error);
        const firstControl = target.querySelector<HTMLElement>('input, select, textarea');
        if (firstControl) describedBy(firstControl, errId);
      }
      placed.add(target);
    }
    items.push(violationLink(form, v, target, fieldNames[v.field] ?? (target ? labelOf(form, target) : v.field)));
  }
  const summary = h(
    'div',
    { class: 'error-summary', role: 'alert', tabindex: '-1' },
    h('h2', null, problem.violations.length ? L.serverRefusedFields(problem.violations.length) : L.thatDidNotWork),
    problem.violations.length ? h('ul', null, items) : h('p', { 'data-reason': problem.reason }, problem.message),
  );
  form.prepend(summary);
  summary.focus();
}

function violationLink(form: HTMLElement, v: FieldProblem, target: HTMLElement | null, label: string): HTMLLIElement {
  const focusTarget = () => {
    const control = target?.matches('input, select, textarea, button') ? target : target?.querySelector<HTMLElement>('input, select, textarea, button');
    control?.focus();
  };
  return h(
    'li',
    null,
    target ? h('button', { type: 'button', class: 'link', onclick: focusTarget }, label || v.field) : h('strong', null, v.field),
    ': ',
    v.description,
  );
}

/** Disables the button and says "…" while `work` runs. */
export async function busy<T>(button: HTMLButtonElement, busyLabel: string, work: () => Promise<T>): Promise<T> {
  const label = button.textContent;
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  button.textContent = busyLabel;
  try {
    return await work();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
    button.textContent = label;
  }
}

export interface RowsEditor {
  element: HTMLFieldSetElement;
  /** Non-empty entries, and for each the row index it came from. */
  values(): { values: string[]; rows: number[] };
}

/**
 * An editable list: one text input per entry, "Remove" per row, "Add …" at the
 * end. Row inputs carry `data-field="<field>[<row>]"`; empty rows are not sent,
 * so the indices the server reports are translated back to rows on submit.
 */
export function rowsEditor(opts: {
  field: string;
  legend: string;
  itemLabel: string;
  addLabel: string;
  hint?: string;
  placeholder?: string;
  initial?: string[];
  check?: (value: string) => string | undefined;
}): RowsEditor {
  const list = h('ul', { class: 'rows' });
  const hintId = opts.hint ? uid('hint') : undefined;
  const element = h(
    'fieldset',
    { class: 'rows-editor', 'data-field': opts.field, 'aria-describedby': hintId },
    h('legend', null, opts.legend),
    opts.hint ? h('p', { class: 'hint', id: hintId }, opts.hint) : null,
    list,
  );
  const renumber = () => {
    [...list.children].forEach((li, i) => {
      const input = li.querySelector('input')!;
      const label = li.querySelector('label')!;
      label.textContent = `${opts.itemLabel} ${i + 1}`;
      input.dataset.row = String(i);
      input.dataset.field = `${opts.field}[${i}]`;
      const remove = li.querySelector<HTMLButtonElement>('button.remove')!;
      remove.setAttribute('aria-label', L.removeNamed(`${opts.itemLabel} ${i + 1}`));
    });
  };
  const addRow = (value = '', focus = false) => {
    const id = uid(`row-${opts.field}`);
    const liveId = `${id}-check`;
    const live = h('p', { class: 'hint live-hint', id: liveId, 'aria-live': 'polite' });
    const input = h('input', { id, type: 'text', value, class: 'mono', placeholder: opts.placeholder, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': liveId });
    if (opts.check) {
      const check = () => {
        live.textContent = input.value.trim() ? (opts.check!(input.value.trim()) ?? '') : '';
      };
      input.addEventListener('input', check);
      if (value) queueMicrotask(check);
    }
    const li = h(
      'li',
      null,
      h(
        'div',
        { class: 'row' },
        h('label', { for: id, class: 'row-label' }),
        input,
        h(
          'button',
          {
            type: 'button',
            class: 'secondary remove',
            onclick: () => {
              const next = (li.nextElementSibling ?? li.previousElementSibling)?.querySelector('input');
              li.remove();
              renumber();
              (next ?? addButton).focus();
            },
          },
          L.remove,
        ),
      ),
      live,
    );
    list.append(li);
    renumber();
    if (focus) input.focus();
  };
  const addButton = h('button', { type: 'button', class: 'secondary add', onclick: () => addRow('', true) }, opts.addLabel);
  element.append(addButton);
  for (const v of opts.initial ?? []) addRow(v);

  return {
    element,
    values() {
      const values: string[] = [];
      const rows: number[] = [];
      [...list.querySelectorAll('input')].forEach((input, i) => {
        if (input.value.trim()) {
          values.push(input.value.trim());
          rows.push(i);
        }
      });
      return { values, rows };
    },
  };
}

/**
 * Rewrites `field[i]` (index into the sent list, empty rows left out) to
 * `field[row]` (index of the row on screen), and in the description names the
 * row as the screen does ("Redirect URI 2") instead of the wire path.
 */
export function mapSentIndices(problem: Problem, field: string, rows: number[], itemLabel: string): Problem {
  const escaped = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`^${escaped}\\[(\\d+)\\]`);
  return {
    ...problem,
    violations: problem.violations.map((v) => {
      const m = re.exec(v.field);
      if (!m) return v;
      const row = rows[Number(m[1])];
      if (row === undefined) return v;
      return {
        field: v.field.replace(re, `${field}[${row}]`),
        description: v.description.split(`${field}[${m[1]}]`).join(`${itemLabel} ${row + 1}`),
      };
    }),
  };
}
