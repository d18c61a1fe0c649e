// The instance row: present once `instance.added` committed, i.e. bootstrapped.
import { eq } from 'drizzle-orm';
import { instances } from '../schema.js';
import type { Projection } from './projection.js';

export const instancesProjection: Projection = {
  'instance.added': (tx, e) =>
    tx.insert(instances).values({
      id: e.aggregateId,
      defaultOrgId: e.payload.defaultOrgId,
      createdAt: e.createdAt,
      changedAt: e.createdAt,
      sequence: e.sequence,
    }),
  'instance.member.added': (tx, e) =>
    tx.update(instances).set({ changedAt: e.createdAt, sequence: e.sequence }).where(eq(instances.id, e.aggregateId)),
};
