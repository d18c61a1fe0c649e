import { eq } from 'drizzle-orm';
import { users } from '../schema.js';
import type { Projection } from './projection.js';

export const usersProjection: Projection = {
  'user.human.added': (tx, e) =>
    tx.insert(users).values({
      id: e.aggregateId,
      orgId: e.resourceOwner,
      kind: 'human',
      username: e.payload.username,
      givenName: e.payload.givenName,
      familyName: e.payload.familyName,
      displayName: e.payload.displayName,
      email: e.payload.email,
      createdAt: e.createdAt,
      changedAt: e.createdAt,
      sequence: e.sequence,
    }),
  'user.machine.added': (tx, e) =>
    tx.insert(users).values({
      id: e.aggregateId,
      orgId: e.resourceOwner,
      kind: 'machine',
      username: e.payload.username,
      name: e.payload.name,
      description: e.payload.description,
      createdAt: e.createdAt,
      changedAt: e.createdAt,
      sequence: e.sequence,
    }),
  // The token row lives in `personal_access_tokens`; here only the user's version moves on.
  'user.pat.added': (tx, e) =>
    tx.update(users).set({ changedAt: e.createdAt, sequence: e.sequence }).where(eq(users.id, e.aggregateId)),
};
