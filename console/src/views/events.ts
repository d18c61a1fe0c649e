// #/events: the audit log (AdminService.ListEvents): filters for aggregate
// type and id, event types, editor and a creation-date range, newest or
// oldest first, and pages walked by the cursor (`sequence` of the last event
// shown). Payloads come without secret fields (the server's one rule).
// Users, projects, apps and organizations are shown by name (asked of the
// API, ../names.ts), the id in the title attribute.
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Event, ListEventsRequestSchema } from '../../../gen/keyhold/admin/v1/admin_pb.js';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { admin, describeError } from '../api.js';
import { announce, h, textField } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { L } from '../i18n.js';
import { names, type Names } from '../names.js';
import { filterSelect } from '../paging.js';
import { tsText, type View } from '../view.js';

type Request = MessageInitShape<typeof ListEventsRequestSchema>;

const AGGREGATE_TYPES = ['instance', 'org', 'project', 'app', 'user', 'u2f', 'usergrant'];

/** A name with its id in the title; the id itself when no name was found. */
function named(id: string, name: string | undefined): HTMLElement {
  return name ? h('span', { class: 'named', title: id, 'data-id': id }, name) : h('span', { class: 'mono muted', 'data-id': id }, id);
}

/** The names of the page's editors and objects, asked in parallel (each id once). */
async function resolveNames(events: readonly Event[], resolve: Names): Promise<Map<string, string | undefined>> {
  const out = new Map<string, string | undefined>();
  const asks: Array<Promise<void>> = [];
  const ask = (key: string, get: () => Promise<string | undefined>) => {
    if (out.has(key)) return;
    out.set(key, undefined);
    asks.push(get().then((n) => void out.set(key, n)));
  };
  // An app is read within its project: the project id comes with app.added (here or asked of the log).
  const appProject = new Map<string, string>();
  for (const e of events) {
    const projectId = e.payload?.projectId;
    if (e.aggregate?.type === 'app' && typeof projectId === 'string') appProject.set(e.aggregate.id, projectId);
  }
  for (const e of events) {
    if (e.editor?.userId) ask(`user:${e.editor.userId}`, () => resolve.user(e.editor!.userId));
    const a = e.aggregate;
    if (!a?.id) continue;
    if (a.type === 'user') ask(`user:${a.id}`, () => resolve.user(a.id));
    else if (a.type === 'project') ask(`project:${a.id}`, () => resolve.project(a.id));
    else if (a.type === 'org') ask(`org:${a.id}`, () => resolve.org(a.id));
    else if (a.type === 'app')
      ask(`app:${a.id}`, async () => {
        let projectId = appProject.get(a.id);
        if (!projectId) {
          const added = await admin.listEvents({ aggregateTypes: ['app'], aggregateId: a.id, eventTypes: ['app.added'], limit: 1, asc: true }).catch(() => undefined);
          const p = added?.events[0]?.payload?.projectId;
          projectId = typeof p === 'string' ? p : undefined;
        }
        return projectId ? resolve.app(projectId, a.id) : undefined;
      });
  }
  await Promise.all(asks);
  return out;
}

function eventsTable(events: readonly Event[], found: Map<string, string | undefined>): HTMLElement {
  const objectKey = (type: string) => (type === 'user' || type === 'project' || type === 'org' || type === 'app' ? type : undefined);
  return h(
    'table',
    { class: 'list events' },
    h('caption', { class: 'visually-hidden' }, L.events),
    h('thead', null, h('tr', null, [L.colSequence, L.colTime, L.colEvent, L.colObject, L.colEditor, L.colPayload].map((c) => h('th', { scope: 'col' }, c)))),
    h(
      'tbody',
      null,
      events.map((e) =>
        h(
          'tr',
          { 'data-sequence': String(e.sequence), 'data-type': e.type },
          h('td', { class: 'mono' }, String(e.sequence)),
          h('td', null, tsText(e.creationDate)),
          h('th', { scope: 'row', class: 'mono' }, e.type),
          h(
            'td',
            { 'data-testid': 'event-object' },
            h('span', null, e.aggregate?.type ?? ''),
            ' ',
            e.aggregate?.id ? (objectKey(e.aggregate.type) ? named(e.aggregate.id, found.get(`${objectKey(e.aggregate.type)}:${e.aggregate.id}`)) : h('span', { class: 'mono muted' }, e.aggregate.id)) : null,
          ),
          h('td', { 'data-testid': 'event-editor' }, e.editor?.userId ? named(e.editor.userId, found.get(`user:${e.editor.userId}`)) : '\u2014'),
          h('td', null, e.payload && Object.keys(e.payload).length ? h('details', null, h('summary', null, L.show), h('pre', { class: 'mono payload' }, JSON.stringify(e.payload, null, 2))) : '\u2014'),
        ),
      ),
    ),
  );
}

/** `2026-11-24T18:00` (datetime-local, the browser's time zone) as a Timestamp. */
function localTime(value: string) {
  const d = new Date(value);
  return value && !Number.isNaN(d.getTime()) ? timestampFromDate(d) : undefined;
}

export async function eventsView(): Promise<View> {
  const resolve = names();
  const aggregateType = filterSelect(L.objectType, 'aggregateTypes', [['', L.any], ...AGGREGATE_TYPES.map((t): [string, string] => [t, t])]);
  aggregateType.select.dataset.field = 'aggregateTypes';
  const aggregateId = textField({ label: L.objectId, name: 'aggregateId' });
  const eventTypes = textField({ label: L.eventTypes, name: 'eventTypes', hint: L.eventTypesHint });
  const editor = textField({ label: L.editorFilter, name: 'editorUserId', hint: L.editorHint });
  const since = textField({ label: L.from, name: 'since', type: 'datetime-local', field: 'creationDateRange' });
  const until = textField({ label: L.until, name: 'until', type: 'datetime-local', field: 'creationDateRange' });
  const order = filterSelect(L.order, 'asc', [
    ['desc', L.newestFirst],
    ['asc', L.oldestFirst],
  ]);
  const limit = filterSelect(L.perPage, 'limit', [
    ['50', '50'],
    ['10', '10'],
    ['100', '100'],
    ['500', '500'],
  ]);
  const apply = h('button', { type: 'submit' }, L.showEvents);
  const form = h(
    'form',
    { method: 'post', novalidate: true, class: 'card filters', 'aria-labelledby': 'event-filters-title' },
    h('h2', { id: 'event-filters-title' }, L.filters),
    h('div', { class: 'filter-grid' }, aggregateType.wrapper, aggregateId.wrapper, eventTypes.wrapper, editor.wrapper, since.wrapper, until.wrapper, order.wrapper, limit.wrapper),
    h('div', { class: 'actions' }, apply),
  );

  const body = h('div', { 'data-testid': 'events' });
  const range = h('p', { class: 'range', role: 'status', 'data-testid': 'events-range' });
  const first = h('button', { type: 'button', class: 'secondary' }, L.firstPage);
  const next = h('button', { type: 'button', class: 'secondary' }, L.nextPage);
  const pager = h('nav', { class: 'pager', 'aria-label': L.pagesOfEvents }, first, range, next);

  // The cursors of the pages walked so far: [0] is the first page's (0).
  let cursors: bigint[] = [0n];
  let request: Request = {};

  const read = (): Request => {
    const types = eventTypes.input.value.split(',').map((t) => t.trim()).filter(Boolean);
    const from = localTime(since.input.value);
    const to = localTime(until.input.value);
    return {
      limit: Number(limit.select.value),
      asc: order.select.value === 'asc',
      aggregateTypes: aggregateType.select.value ? [aggregateType.select.value] : [],
      aggregateId: aggregateId.input.value.trim(),
      eventTypes: types,
      editorUserId: editor.input.value.trim(),
      creationDateRange: from || to ? { since: from, until: to } : undefined,
    };
  };

  const load = async (): Promise<void> => {
    const cursor = cursors[cursors.length - 1]!;
    const res = await admin.listEvents({ ...request, sequence: cursor });
    const found = await resolveNames(res.events, resolve);
    clearProblems(form);
    body.replaceChildren(res.events.length ? eventsTable(res.events, found) : h('p', { class: 'empty' }, cursors.length > 1 ? L.noMoreEvents : L.noEventsMatch));
    const page = cursors.length;
    range.textContent = L.eventsPage(page, res.events.length);
    first.disabled = page === 1;
    next.disabled = res.events.length < (request.limit ?? 50);
    next.onclick = () => {
      const last = res.events[res.events.length - 1];
      if (!last) return;
      cursors.push(last.sequence);
      void show(next);
    };
  };
  const show = async (button: HTMLButtonElement) =>
    busy(button, L.loading, async () => {
      try {
        await load();
        announce(range.textContent ?? '');
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    request = read();
    cursors = [0n];
    void show(apply);
  });
  first.addEventListener('click', () => {
    cursors = [0n];
    void show(first);
  });

  request = read();
  await load();

  return {
    title: L.auditLogTitle,
    node: h(
      'section',
      { 'aria-labelledby': 'events-title' },
      h('h1', { id: 'events-title', tabindex: '-1' }, L.auditLogTitle),
      h('p', null, L.auditLogIntro),
      form,
      pager,
      body,
    ),
  };
}
