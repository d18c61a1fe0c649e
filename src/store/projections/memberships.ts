// Members of the instance, an org or a project. Adding a member who already has
// a row replaces the roles (the command decides whether that is allowed).
import type { MemberAddedPayload } from '../../domain/events/index.js';
import { sql } from '../sql.js';
import type { ProjectableEvent, Projection } from './projection.js';

type MemberAdded = ProjectableEvent<'instance.member.added' | 'org.member.added' | 'project.member.added'>;

function upsertMember(scopeType: 'instance' | 'org' | 'project', e: MemberAdded) {
  const payload: MemberAddedPayload = e.payload;
  // org_id: the org owning the scope; for the instance, whatever org owns its events.
  return sql`
    insert into memberships (scope_type, scope_id, user_id, org_id, roles)
    values (${scopeType}, ${e.aggregateId}, ${payload.userId}, ${e.resourceOwner}, ${payload.roles}::text[])
    on conflict (scope_type, scope_id, user_id) do update set roles = excluded.roles, org_id = excluded.org_id`;
}

export const membershipsProjection: Projection = {
  'instance.member.added': (e) => upsertMember('instance', e),
  'org.member.added': (e) => upsertMember('org', e),
  'project.member.added': (e) => upsertMember('project', e),
  'org.member.changed': (e) => sql`
    update memberships set roles = ${e.payload.roles}::text[]
    where scope_type = 'org' and scope_id = ${e.aggregateId} and user_id = ${e.payload.userId}`,
  'project.member.changed': (e) => sql`
    update memberships set roles = ${e.payload.roles}::text[]
    where scope_type = 'project' and scope_id = ${e.aggregateId} and user_id = ${e.payload.userId}`,
  'org.member.removed': (e) => sql`
    delete from memberships where scope_type = 'org' and scope_id = ${e.aggregateId} and user_id = ${e.payload.userId}`,
  'project.member.removed': (e) => sql`
    delete from memberships where scope_type = 'project' and scope_id = ${e.aggregateId} and user_id = ${e.payload.userId}`,
  // A removed user's roles go with it (its events in the scopes' aggregates stay).
  'user.removed': (e) => sql`delete from memberships where user_id = ${e.aggregateId}`,
};
