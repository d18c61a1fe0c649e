import { sql } from '../sql.js';
import type { Projection } from './projection.js';

export const projectsProjection: Projection = {
  'project.added': (e) => sql`
    insert into projects (id, org_id, name, state, project_role_check, has_project_check, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.resourceOwner}, ${e.payload.name}, 'active', ${e.payload.projectRoleCheck ?? false}, ${e.payload.hasProjectCheck ?? false},
            coalesce(${e.createdAt}::text::timestamptz, now()),
            coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
  // Membership rows live in `memberships`, role rows in `project_roles`; here only the project's version moves on.
  'project.member.added': (e) => sql`
    update projects set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'project.member.changed': (e) => sql`
    update projects set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'project.member.removed': (e) => sql`
    update projects set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
  'project.role.added': (e) => sql`
    update projects set changed_at = coalesce(${e.createdAt}::text::timestamptz, now()), sequence = ${e.sequence}
    where id = ${e.aggregateId}`,
};

// The role's row (the project's version moves on in projectsProjection).
export const projectRolesProjection: Projection = {
  'project.role.added': (e) => sql`
    insert into project_roles (project_id, role_key, org_id, display_name, role_group, created_at)
    values (${e.aggregateId}, ${e.payload.roleKey}, ${e.resourceOwner}, ${e.payload.displayName}, ${e.payload.group},
            coalesce(${e.createdAt}::text::timestamptz, now()))`,
};

export const userGrantsProjection: Projection = {
  'usergrant.added': (e) => sql`
    insert into user_grants (id, user_id, project_id, org_id, role_keys, created_at, changed_at, sequence)
    values (${e.aggregateId}, ${e.payload.userId}, ${e.payload.projectId}, ${e.resourceOwner}, ${e.payload.roleKeys}::text[],
            coalesce(${e.createdAt}::text::timestamptz, now()), coalesce(${e.createdAt}::text::timestamptz, now()), ${e.sequence})`,
};
