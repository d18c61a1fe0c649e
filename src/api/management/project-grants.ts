// AddProjectGrant, ListProjectGrants, GetProjectGrantByID, ListGrantedProjects,
// UpdateProjectGrant, DeactivateProjectGrant, ReactivateProjectGrant, RemoveProjectGrant.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { ProjectGrantState, type GrantedProjectSchema, type ProjectGrantQuery } from '../../../gen/keyhold/management/v1/project_grants_pb.js';
import type { ProjectGrantView } from '../../queries/read-model.js';
import { callOf, type ApiDeps } from '../context.js';
import { listDetails, readDetails, sentTexts, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof ManagementService>;

function grantToMessage(g: ProjectGrantView): MessageInitShape<typeof GrantedProjectSchema> {
  return {
    grantId: g.id,
    details: readDetails(g),
    grantedOrgId: g.grantedOrgId,
    grantedOrgName: g.grantedOrgName,
    grantedRoleKeys: g.roleKeys,
    state: g.state === 'active' ? ProjectGrantState.ACTIVE : ProjectGrantState.INACTIVE,
    projectId: g.projectId,
    projectName: g.projectName,
    projectOwnerId: g.orgId,
    projectOwnerName: g.ownerName,
  };
}

/** The filters of a request's `queries` (all must match). */
function filtersOf(queries: readonly ProjectGrantQuery[]) {
  return {
    queryCount: queries.length,
    projectNames: sentTexts(queries, (q) =>
      q.query.case === 'projectNameQuery' ? { oneof: 'projectNameQuery', field: 'name', value: q.query.value.name, method: q.query.value.method } : undefined,
    ),
    roleKeys: sentTexts(queries, (q) =>
      q.query.case === 'roleKeyQuery' ? { oneof: 'roleKeyQuery', field: 'roleKey', value: q.query.value.roleKey, method: q.query.value.method } : undefined,
    ),
  };
}

export function projectGrantHandlers({ commands, queries }: ApiDeps): Pick<
  Impl,
  | 'addProjectGrant'
  | 'listProjectGrants'
  | 'getProjectGrantByID'
  | 'listGrantedProjects'
  | 'updateProjectGrant'
  | 'deactivateProjectGrant'
  | 'reactivateProjectGrant'
  | 'removeProjectGrant'
> {
  return {
    async addProjectGrant(req, ctx) {
      const { grantId, written } = await commands.addProjectGrant(callOf(ctx), { projectId: req.projectId, grantedOrgId: req.grantedOrgId, roleKeys: req.roleKeys });
      return { grantId, details: writeDetails(written, true) };
    },

    async listProjectGrants(req, ctx) {
      const listed = await queries.listProjectGrants(callOf(ctx), { projectId: req.projectId, page: req.query, ...filtersOf(req.queries) });
      return { details: listDetails(listed), result: listed.items.map(grantToMessage) };
    },

    async getProjectGrantByID(req, ctx) {
      return { projectGrant: grantToMessage(await queries.getProjectGrant(callOf(ctx), { projectId: req.projectId, grantId: req.grantId })) };
    },

    async listGrantedProjects(req, ctx) {
      const listed = await queries.listGrantedProjects(callOf(ctx), {
        page: req.query,
        queryCount: req.queries.length,
        projectNames: sentTexts(req.queries, (q) =>
          q.query.case === 'nameQuery' ? { oneof: 'nameQuery', field: 'name', value: q.query.value.name, method: q.query.value.method } : undefined,
        ),
        roleKeys: [],
      });
      return { details: listDetails(listed), result: listed.items.map(grantToMessage) };
    },

    async updateProjectGrant(req, ctx) {
      const call = callOf(ctx);
      const { written } = await commands.updateProjectGrant(call, { projectId: req.projectId, grantId: req.grantId, roleKeys: req.roleKeys });
      // Unchanged: the grant as it is (its version is its project's).
      return { details: written ? writeDetails(written, false) : readDetails(await queries.getProjectGrant(call, { projectId: req.projectId, grantId: req.grantId })) };
    },

    async deactivateProjectGrant(req, ctx) {
      const { written } = await commands.deactivateProjectGrant(callOf(ctx), { projectId: req.projectId, grantId: req.grantId });
      return { details: writeDetails(written, false) };
    },

    async reactivateProjectGrant(req, ctx) {
      const { written } = await commands.reactivateProjectGrant(callOf(ctx), { projectId: req.projectId, grantId: req.grantId });
      return { details: writeDetails(written, false) };
    },

    async removeProjectGrant(req, ctx) {
      const { written } = await commands.removeProjectGrant(callOf(ctx), { projectId: req.projectId, grantId: req.grantId });
      return { details: writeDetails(written, false) };
    },
  };
}
