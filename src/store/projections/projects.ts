import { sql } from '../sql.js';
import type { ProjectableEvent, Projection } from './projection.js';

type ProjectEvent = ProjectableEvent<'project.member.added' | 'project.member.changed' | 'project.member.removed' | 'project.role.added' | 'project.role.changed' | 'project.role.removed' | 'project.deactivated' | 'project.reactivated' | `project.grant.${'added' | 'changed' | 'deactivated' | 'reactivated' | 'removed'}`>;

/** The project's version moves on (and its state, when given). */
const touched = (e: ProjectEvent, state?: 'active' | 'inactive') => sql`
    update projects set state = coalesce(${state ?? null}::text, state),
      changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`;

export const projectsProjection: Projection = {
  'project.added': (e) => sql`
    insert into projects (id, org_id, name, state, project_role_check, has_project_check, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.resourceOwner}, ${e.payload.name}, 'active', ${e.payload.projectRoleCheck ?? false}, ${e.payload.hasProjectCheck ?? false},
            coalesce(${e.createdAt}::text::timestamptz, now()),
            coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
  // Membership rows live in `memberships`, role rows in `project_roles`; here only the project's version moves on.
  'project.member.added': (e) => touched(e),
  'project.member.changed': (e) => touched(e),
  'project.member.removed': (e) => touched(e),
  'project.role.added': (e) => touched(e),
  'project.role.changed': (e) => touched(e),
  'project.role.removed': (e) => touched(e),
  'project.changed': (e) => sql`
    update projects set name = ${e.payload.name}, project_role_check = ${e.payload.projectRoleCheck}, has_project_check = ${e.payload.hasProjectCheck},
      changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'project.deactivated': (e) => touched(e, 'inactive'),
  'project.reactivated': (e) => touched(e, 'active'),
  // Its apps and grants are removed by their own events in the same append; its
  // roles and members have no rows of their own elsewhere and go here.
  'project.removed': (e) => sql`
    with roles as (delete from project_roles where project_id = ${e.aggregateId}),
      members as (delete from memberships where scope_type = 'project' and scope_id = ${e.aggregateId}),
      granted as (delete from project_grants where project_id = ${e.aggregateId})
    delete from projects where id = ${e.aggregateId}`,
  'project.grant.added': (e) => touched(e),
  'project.grant.changed': (e) => touched(e),
  'project.grant.deactivated': (e) => touched(e),
  'project.grant.reactivated': (e) => touched(e),
  'project.grant.removed': (e) => touched(e),
};

const grantTouched = (e: ProjectableEvent<'project.grant.changed' | 'project.grant.deactivated' | 'project.grant.reactivated'>, state?: 'active' | 'inactive') => sql`
    update project_grants set state = coalesce(${state ?? null}::text, state),
      changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.payload.grantId}`;

// A project grant's row. Listed before userGrantsProjection: on RemoveProjectGrant the grant's
// row is deleted first (waiting for a user grant being written under it, which holds it for
// share), and only then, in a later statement that sees that grant, the user grants under it.
export const projectGrantsProjection: Projection = {
  'project.grant.added': (e) => sql`
    insert into project_grants (id, project_id, org_id, granted_org_id, role_keys, state, created_at, changed_at, sequence)
    values (${e.payload.grantId}, ${e.aggregateId}, ${e.resourceOwner}, ${e.payload.grantedOrgId}, ${e.payload.roleKeys}::text[], 'active',
            coalesce(${e.createdAt}::text::timestamptz, now()), coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
  'project.grant.changed': (e) => sql`
    update project_grants set role_keys = ${e.payload.roleKeys}::text[],
      changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.payload.grantId}`,
  'project.grant.deactivated': (e) => grantTouched(e, 'inactive'),
  'project.grant.reactivated': (e) => grantTouched(e, 'active'),
  'project.grant.removed': (e) => sql`delete from project_grants where id = ${e.payload.grantId}`,
  'project.role.removed': (e) => sql`
    update project_grants set role_keys = array_remove(role_keys, ${e.payload.roleKey})
    where project_id = ${e.aggregateId} and ${e.payload.roleKey} = any(role_keys)`,
  // A removed org holds no project grants (its users, and their grants, are removed with it).
  'org.removed': (e) => sql`delete from project_grants where granted_org_id = ${e.aggregateId}`,
};

// The role's row (the project's version moves on in projectsProjection).
export const projectRolesProjection: Projection = {
  'project.role.added': (e) => sql`
    insert into project_roles (project_id, role_key, org_id, display_name, role_group, created_at)
    values (${e.aggregateId}, ${e.payload.roleKey}, ${e.resourceOwner}, ${e.payload.displayName}, ${e.payload.group},
            coalesce(${e.createdAt}::text::timestamptz, now()))`,
  'project.role.changed': (e) => sql`
    update project_roles set display_name = ${e.payload.displayName}, role_group = ${e.payload.group}
    where project_id = ${e.aggregateId} and role_key = ${e.payload.roleKey}`,
  'project.role.removed': (e) => sql`delete from project_roles where project_id = ${e.aggregateId} and role_key = ${e.payload.roleKey}`,
};

// The role keys of a grant's row (usergrant.added, usergrant.changed) are those of the decision
// whose role still exists when the row is written. Those roles' rows are locked (for share) until
// the grant commits, so a RemoveProjectRole either waits for it and then takes the key from its
// row (withoutKey on 'project.role.removed'), or committed first and the key is not written: a
// grant decided while its role was being removed never holds the key, nor regains it when a role
// of that key is added again (withoutKey on 'project.role.added' too).
const withoutKey = (projectId: string, roleKey: string) => sql`
    update user_grants set role_keys = array_remove(role_keys, ${roleKey}) where project_id = ${projectId} and ${roleKey} = any(role_keys)`;

// A grant's row, until RemoveUserGrant deletes it (the user may then be granted the project again)
// or its user is removed (a removed user's grants are not listed, and cannot be changed).
export const userGrantsProjection: Projection = {
  // Under a project grant (projectGrantId), only keys that grant holds, and only while it exists:
  // its row is held for share until this commits, so RemoveProjectGrant and UpdateProjectGrant
  // either wait and then see this row, or committed first and this row is not written (or
  // without the keys dropped).
  'usergrant.added': (e) => sql`
    insert into user_grants (id, user_id, project_id, org_id, role_keys, state, project_grant_id, created_at, changed_at, sequence)
    select ${e.aggregateId}, ${e.payload.userId}, ${e.payload.projectId}, ${e.resourceOwner},
            array(select k from unnest(${e.payload.roleKeys}::text[]) with ordinality as u(k, n)
                  where exists (select 1 from project_roles r where r.project_id = ${e.payload.projectId} and r.role_key = u.k for share)
                    and (${e.payload.projectGrantId ?? null}::text is null or u.k = any(pg.role_keys))
                  order by u.n), 'active', ${e.payload.projectGrantId ?? null}::text,
            coalesce(${e.createdAt}::text::timestamptz, now()), coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence}
    from (select 1) as one
    left join lateral (select g.role_keys from project_grants g where g.id = ${e.payload.projectGrantId ?? null}::text for share) as pg on true
    where ${e.payload.projectGrantId ?? null}::text is null or pg.role_keys is not null`,
  // A cascade only takes keys away: the row keeps those of its keys the event still names. The
  // event's list comes from the grant's stream, which misses a narrowing of its project grant that
  // raced the grant's own add (the row never held that key): writing the list whole would give
  // the dropped key back.
  'usergrant.cascade.changed': (e) => sql`
    update user_grants set role_keys = array(select k from unnest(role_keys) with ordinality as u(k, n) where k = any(${e.payload.roleKeys}::text[]) order by u.n),
      changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'usergrant.cascade.removed': (e) => sql`delete from user_grants where id = ${e.aggregateId}`,
  'usergrant.changed': (e) => sql`update user_grants set role_keys =
      array(select k from unnest(${e.payload.roleKeys}::text[]) with ordinality as u(k, n)
            where exists (select 1 from project_roles r where r.project_id = user_grants.project_id and r.role_key = u.k for share)
              and (user_grants.project_grant_id is null
                   or exists (select 1 from project_grants g where g.id = user_grants.project_grant_id and u.k = any(g.role_keys) for share))
            order by u.n),
    changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence} where id = ${e.aggregateId}`,
  'usergrant.deactivated': (e) => sql`update user_grants set state = 'inactive', changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence} where id = ${e.aggregateId}`,
  'usergrant.reactivated': (e) => sql`update user_grants set state = 'active', changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence} where id = ${e.aggregateId}`,
  'usergrant.removed': (e) => sql`delete from user_grants where id = ${e.aggregateId}`,
  'user.removed': (e) => sql`delete from user_grants where user_id = ${e.aggregateId}`,
  'project.role.removed': (e) => withoutKey(e.aggregateId, e.payload.roleKey),
  'project.role.added': (e) => withoutKey(e.aggregateId, e.payload.roleKey),
  // After projectGrantsProjection's statements (see there): the user grants under the project grant.
  'project.grant.removed': (e) => sql`delete from user_grants where project_grant_id = ${e.payload.grantId}`,
  'project.grant.changed': (e) => sql`
    update user_grants set role_keys = array(select k from unnest(role_keys) with ordinality as u(k, n) where k = any(${e.payload.roleKeys}::text[]) order by u.n)
    where project_grant_id = ${e.payload.grantId}`,
};
