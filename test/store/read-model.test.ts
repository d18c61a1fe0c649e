// The read model's ownership cache (src/store/read-model.ts): right answers,
// and an unknown id is not remembered as unknown — it may be created a moment later.
import { afterEach, expect, it } from 'vitest';
import type { NewEvent } from '../../src/domain/events/index.js';
import { createEventStore, type EventStore } from '../../src/store/event-store.js';
import { createReadModel } from '../../src/store/read-model.js';
import { freshPglite, type FreshDatabase, knownOrgs } from '../support/databases.js';

let opened: FreshDatabase | undefined;
afterEach(async () => {
  await opened?.cleanup();
  opened = undefined;
});

it('answers the owning org of projects and users, and sees ids created after a miss', async () => {
  opened = await freshPglite();
  const read = createReadModel(opened.database);
  const store = createEventStore(opened.database);
  await knownOrgs(opened.database, 'org-a', 'org-b');
  const appendNew = (s: EventStore, events: NewEvent[]) =>
    s.append(events, [{ aggregateType: events[0]!.aggregateType, aggregateId: events[0]!.aggregateId, sequence: 0 }]);
  const event = (type: 'project.added' | 'user.machine.added', aggregateType: 'project' | 'user', id: string, orgId: string, payload: object) =>
    ({ aggregateType, aggregateId: id, type, payload, resourceOwner: orgId, creator: 'test' }) as never;

  expect(await read.ownerOfProject('p1')).toBeUndefined();
  expect(await read.ownerOfUser('u1')).toBeUndefined();
  await appendNew(store, [event('project.added', 'project', 'p1', 'org-a', { name: 'P' })]);
  await appendNew(store, [event('user.machine.added', 'user', 'u1', 'org-b', { username: 'bot', name: 'Bot', description: '' })]);

  expect(await read.ownerOfProject('p1')).toBe('org-a');
  expect(await read.ownerOfProject('p1')).toBe('org-a'); // from memory now
  expect(await read.ownerOfUser('u1')).toBe('org-b');
  // Kinds do not mix: a user id is not a project id.
  expect(await read.ownerOfProject('u1')).toBeUndefined();
  expect(await read.ownerOfUser('p1')).toBeUndefined();
});
