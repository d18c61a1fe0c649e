// UpdateProject, DeactivateProject, ReactivateProject, RemoveProject,
// ListProjectRoles, UpdateProjectRole, RemoveProjectRole.
import type { ServiceImpl } from '@connectrpc/connect';
import type { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import type { ProjectRoleView } from '../../queries/read-model.js';
import { callOf, type ApiDeps } from '../context.js';
import { listDetails, readDetails, sentTexts, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof ManagementService>;

const roleToMessage = (r: ProjectRoleView) => ({ key: r.roleKey, details: readDetails(r), displayName: r.displayName, group: r.group });

export function projectLifecycleHandlers({ commands, queries }: ApiDeps): Pick<
  Impl,
  'updateProject' | 'deactivateProject' | 'reactivateProject' | 'removeProject' | 'listProjectRoles' | 'updateProjectRole' | 'removeProjectRole'
> {
  return {
    async updateProject(req, ctx) {
      const call = callOf(ctx);
      const { written } = await commands.updateProject(call, {
        projectId: req.id,
        name: req.name,
        projectRoleAssertion: req.projectRoleAssertion,
        projectRoleCheck: req.projectRoleCheck,
        hasProjectCheck: req.hasProjectCheck,
      });
      // Unchanged: the project's current version.
      return { details: written ? writeDetails(written, false) : readDetails(await queries.getProject(call, { projectId: req.id })) };
    },

    async deactivateProject(req, ctx) {
      const { written } = await commands.deactivateProject(callOf(ctx), { projectId: req.id });
      return { details: writeDetails(written, false) };
    },

    async reactivateProject(req, ctx) {
      const { written } = await commands.reactivateProject(callOf(ctx), { projectId: req.id });
      return { details: writeDetails(written, false) };
    },

    async removeProject(req, ctx) {
      const { written } = await commands.removeProject(callOf(ctx), { projectId: req.id });
      return { details: writeDetails(written, false) };
    },

    async listProjectRoles(req, ctx) {
      const listed = await queries.listProjectRoles(callOf(ctx), {
        projectId: req.projectId,
        page: req.query,
        queryCount: req.queries.length,
        keys: sentTexts(req.queries, (q) => (q.query.case === 'keyQuery' ? { oneof: 'keyQuery', field: 'key', value: q.query.value.key, method: q.query.value.method } : undefined)),
        displayNames: sentTexts(req.queries, (q) =>
          q.query.case === 'displayNameQuery'
            ? { oneof: 'displayNameQuery', field: 'displayName', value: q.query.value.displayName, method: q.query.value.method }
            : undefined,
        ),
      });
      return { result: listed.items.map(roleToMessage), details: listDetails(listed) };
    },

    async updateProjectRole(req, ctx) {
      const call = callOf(ctx);
      const { written } = await commands.updateProjectRole(call, { projectId: req.projectId, roleKey: req.roleKey, displayName: req.displayName, group: req.group });
      // Unchanged: the project's current version (a role's version is its project's).
      return { details: written ? writeDetails(written, false) : readDetails(await queries.getProject(call, { projectId: req.projectId })) };
    },

    async removeProjectRole(req, ctx) {
      const { written } = await commands.removeProjectRole(callOf(ctx), { projectId: req.projectId, roleKey: req.roleKey });
      return { details: writeDetails(written, false) };
    },
  };
}
