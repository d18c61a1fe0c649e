import { eq } from 'drizzle-orm';
import { projects } from '../schema.js';
import type { Projection } from './projection.js';

export const projectsProjection: Projection = {
  'project.added': (tx, e) =>
    tx.insert(projects).values({
      id: e.aggregateId,
      orgId: e.resourceOwner,
      name: e.payload.name,
      state: 'active',
      createdAt: e.createdAt,
      changedAt: e.createdAt,
      sequence: e.sequence,
    }),
  // Membership rows live in `memberships`; here only the project's version moves on.
  'project.member.added': (tx, e) =>
    tx.update(projects).set({ changedAt: e.createdAt, sequence: e.sequence }).where(eq(projects.id, e.aggregateId)),
};
