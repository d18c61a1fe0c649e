// Members of the instance, an org or a project. Adding a member who already has
// a row replaces the roles (the command decides whether that is allowed).
import { sql } from 'drizzle-orm';
import type { Db } from '../database.js';
import type { MemberAddedPayload } from '../events.js';
import { memberships } from '../schema.js';
import type { ProjectableEvent, Projection } from './projection.js';

type MemberAdded = ProjectableEvent<'instance.member.added' | 'org.member.added' | 'project.member.added'>;

function upsertMember(tx: Db, scopeType: 'instance' | 'org' | 'project', e: MemberAdded) {
  const payload: MemberAddedPayload = e.payload;
  return tx
    .insert(memberships)
    .values({
      scopeType,
      scopeId: e.aggregateId,
      userId: payload.userId,
      // The org owning the scope; for the instance, whatever org owns its events.
      orgId: e.resourceOwner,
      roles: payload.roles,
    })
    .onConflictDoUpdate({
      target: [memberships.scopeType, memberships.scopeId, memberships.userId],
      set: { roles: sql`excluded.roles`, orgId: sql`excluded.org_id` },
    });
}

export const membershipsProjection: Projection = {
  'instance.member.added': (tx, e) => upsertMember(tx, 'instance', e),
  'org.member.added': (tx, e) => upsertMember(tx, 'org', e),
  'project.member.added': (tx, e) => upsertMember(tx, 'project', e),
};
