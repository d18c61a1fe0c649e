// The ownership cache (src/api/owners.ts): right answers, and an unknown id is
// not remembered as unknown — it may be created a moment later.
import { afterEach, expect, it } from 'vitest';
import { projectOwner, userOwner } from '../../src/api/owners.js';
import { createEventStore } from '../../src/store/event-store.js';
import { appendNew } from '../../src/store/run-command.js';
import { freshPglite, type FreshDatabase } from '../support/databases.js';

let opened: FreshDatabase | undefined;
afterEach(async () => {
  await opened?.cleanup();
  opened = undefined;
});

it('answers the owning org of projects and users, and sees ids created after a miss', async () => {
  opened = await freshPglite();
  const deps = { database: opened.database };
  const store = createEventStore(opened.database);
  const event = (type: 'project.added' | 'user.machine.added', aggregateType: 'project' | 'user', id: string, orgId: string, payload: object) =>
    ({ aggregateType, aggregateId: id, type, payload, resourceOwner: orgId, creator: 'test' }) as never;

  expect(await projectOwner(deps, 'p1')).toBeUndefined();
  expect(await userOwner(deps, 'u1')).toBeUndefined();
  await appendNew(store, [event('project.added', 'project', 'p1', 'org-a', { name: 'P' })]);
  await appendNew(store, [event('user.machine.added', 'user', 'u1', 'org-b', { username: 'bot', name: 'Bot', description: '' })]);

  expect(await projectOwner(deps, 'p1')).toBe('org-a');
  expect(await projectOwner(deps, 'p1')).toBe('org-a'); // from memory now
  expect(await userOwner(deps, 'u1')).toBe('org-b');
  // Kinds do not mix: a user id is not a project id.
  expect(await projectOwner(deps, 'u1')).toBeUndefined();
  expect(await userOwner(deps, 'p1')).toBeUndefined();
});
