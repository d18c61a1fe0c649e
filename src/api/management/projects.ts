// AddProject, GetProjectByID, ListProjects, AddProjectMember, AddProjectRole, AddUserGrant.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { ManagementService, ProjectSchema } from '../../../gen/keyhold/management/v1/management_pb.js';
import { ProjectState } from '../../../gen/keyhold/management/v1/management_pb.js';
import type { ProjectView } from '../../queries/read-model.js';
import { callOf, type ApiDeps } from '../context.js';
import { listDetails, readDetails, sentTexts, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof ManagementService>;

function projectToMessage(p: ProjectView): MessageInitShape<typeof ProjectSchema> {
  return {
    id: p.id,
    details: readDetails(p),
    name: p.name,
    state: p.state === 'inactive' ? ProjectState.INACTIVE : ProjectState.ACTIVE,
    projectRoleCheck: p.projectRoleCheck,
    hasProjectCheck: p.hasProjectCheck,
  };
}

export function projectHandlers({ commands, queries }: ApiDeps): Pick<
  Impl,
  'addProject' | 'getProjectByID' | 'listProjects' | 'addProjectMember' | 'addProjectRole' | 'addUserGrant'
> {
  return {
    async addProject(req, ctx) {
      const { projectId, written } = await commands.addProject(callOf(ctx), {
        name: req.name,
        projectRoleCheck: req.projectRoleCheck,
        hasProjectCheck: req.hasProjectCheck,
      });
      return { id: projectId, details: writeDetails(written, true) };
    },

    async getProjectByID(req, ctx) {
      return { project: projectToMessage(await queries.getProject(callOf(ctx), { projectId: req.id })) };
    },

    async listProjects(req, ctx) {
      const listed = await queries.listProjects(callOf(ctx), {
        page: req.query,
        queryCount: req.queries.length,
        names: sentTexts(req.queries, (q) =>
          q.query.case === 'nameQuery' ? { oneof: 'nameQuery', field: 'name', value: q.query.value.name, method: q.query.value.method } : undefined,
        ),
      });
      return { result: listed.items.map(projectToMessage), details: listDetails(listed) };
    },

    async addProjectMember(req, ctx) {
      const { written } = await commands.addProjectMember(callOf(ctx), { projectId: req.projectId, userId: req.userId, roles: req.roles });
      return { details: writeDetails(written, false) };
    },

    async addProjectRole(req, ctx) {
      const { written } = await commands.addProjectRole(callOf(ctx), {
        projectId: req.projectId,
        roleKey: req.roleKey,
        displayName: req.displayName,
        group: req.group,
      });
      return { details: writeDetails(written, false) };
    },

    async addUserGrant(req, ctx) {
      const { userGrantId, written } = await commands.addUserGrant(callOf(ctx), {
        userId: req.userId,
        projectId: req.projectId,
        projectGrantId: req.projectGrantId,
        roleKeys: req.roleKeys,
      });
      return { userGrantId, details: writeDetails(written, true) };
    },
  };
}
