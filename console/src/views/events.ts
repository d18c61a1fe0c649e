// #/events: the audit log (AdminService.ListEvents): filters for aggregate
// type and id, event types, editor and a creation-date range, newest or
// oldest first, and pages walked by the cursor (`sequence` of the last event
// shown). Payloads come without secret fields (the server's one rule).
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Event, ListEventsRequestSchema } from '../../../gen/keyhold/admin/v1/admin_pb.js';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { admin, describeError } from '../api.js';
import { announce, h, textField } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { filterSelect } from '../paging.js';
import { tsText, type View } from '../view.js';

type Request = MessageInitShape<typeof ListEventsRequestSchema>;

const AGGREGATE_TYPES = ['instance', 'org', 'project', 'app', 'user', 'u2f', 'usergrant'];

function eventsTable(events: readonly Event[]): HTMLElement {
  return h(
    'table',
    { class: 'list events' },
    h('caption', { class: 'visually-hidden' }, 'Events'),
    h('thead', null, h('tr', null, ['Sequence', 'Time', 'Event', 'Object', 'Editor', 'Payload'].map((c) => h('th', { scope: 'col' }, c)))),
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
          h('td', null, h('span', null, e.aggregate?.type ?? ''), ' ', h('span', { class: 'mono muted' }, e.aggregate?.id ?? '')),
          h('td', { class: 'mono' }, e.editor?.userId || '\u2014'),
          h('td', null, e.payload && Object.keys(e.payload).length ? h('details', null, h('summary', null, 'Show'), h('pre', { class: 'mono payload' }, JSON.stringify(e.payload, null, 2))) : '\u2014'),
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
  const aggregateType = filterSelect('Object type', 'aggregateTypes', [['', 'Any'], ...AGGREGATE_TYPES.map((t): [string, string] => [t, t])]);
  aggregateType.select.dataset.field = 'aggregateTypes';
  const aggregateId = textField({ label: 'Object ID', name: 'aggregateId' });
  const eventTypes = textField({ label: 'Event types', name: 'eventTypes', hint: 'Comma-separated, for example app.added, app.deactivated. Empty: every type.' });
  const editor = textField({ label: 'Editor (user ID)', name: 'editorUserId', hint: 'Who made the change.' });
  const since = textField({ label: 'From', name: 'since', type: 'datetime-local', field: 'creationDateRange' });
  const until = textField({ label: 'Until', name: 'until', type: 'datetime-local', field: 'creationDateRange' });
  const order = filterSelect('Order', 'asc', [
    ['desc', 'Newest first'],
    ['asc', 'Oldest first'],
  ]);
  const limit = filterSelect('Per page', 'limit', [
    ['50', '50'],
    ['10', '10'],
    ['100', '100'],
    ['500', '500'],
  ]);
  const apply = h('button', { type: 'submit' }, 'Show events');
  const form = h(
    'form',
    { method: 'post', novalidate: true, class: 'card filters', 'aria-labelledby': 'event-filters-title' },
    h('h2', { id: 'event-filters-title' }, 'Filters'),
    h('div', { class: 'filter-grid' }, aggregateType.wrapper, aggregateId.wrapper, eventTypes.wrapper, editor.wrapper, since.wrapper, until.wrapper, order.wrapper, limit.wrapper),
    h('div', { class: 'actions' }, apply),
  );

  const body = h('div', { 'data-testid': 'events' });
  const range = h('p', { class: 'range', role: 'status', 'data-testid': 'events-range' });
  const first = h('button', { type: 'button', class: 'secondary' }, 'First page');
  const next = h('button', { type: 'button', class: 'secondary' }, 'Next page');
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages of events' }, first, range, next);

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
    clearProblems(form);
    body.replaceChildren(res.events.length ? eventsTable(res.events) : h('p', { class: 'empty' }, cursors.length > 1 ? 'No more events.' : 'No events match.'));
    const page = cursors.length;
    range.textContent = `Page ${page}: ${res.events.length} event${res.events.length === 1 ? '' : 's'}`;
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
    busy(button, 'Loading\u2026', async () => {
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
    title: 'Audit log',
    node: h(
      'section',
      { 'aria-labelledby': 'events-title' },
      h('h1', { id: 'events-title', tabindex: '-1' }, 'Audit log'),
      h('p', null, 'Every change Keyhold stored, as events. Secrets and their hashes are never shown: the server leaves them out.'),
      form,
      pager,
      body,
    ),
  };
}
