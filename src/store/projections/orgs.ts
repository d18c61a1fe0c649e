import { eq } from 'drizzle-orm';
import { orgs } from '../schema.js';
import type { Projection } from './projection.js';

export const orgsProjection: Projection = {
  'org.added': (tx, e) =>
    tx.insert(orgs).values({
      id: e.aggregateId,
      name: e.payload.name,
      createdAt: e.createdAt,
      changedAt: e.createdAt,
      sequence: e.sequence,
    }),
  // Membership rows live in `memberships`; here only the org's version moves on.
  'org.member.added': (tx, e) =>
    tx.update(orgs).set({ changedAt: e.createdAt, sequence: e.sequence }).where(eq(orgs.id, e.aggregateId)),
};
