// AddProject, GetProjectByID, ListProjects, AddProjectMember.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { ManagementService, ProjectSchema } from '../../../gen/keyhold/management/v1/management_pb.js';
import { ProjectState } from '../../../gen/keyhold/management/v1/management_pb.js';
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { newId } from '../../domain/ids.js';
import { hasPermission } from '../../domain/identity/permissions.js';
import { requiredId, requiredText, rolesRule } from '../../domain/identity/text-rules.js';
import { appendTo } from '../../store/append-to.js';
import { appendNew } from '../../store/run-command.js';
import { findProject, findUser, listProjects } from '../../store/queries/index.js';
import { projectOwner } from '../owners.js';
import type { ProjectRow } from '../../store/schema.js';
import { authorize, orgContext } from '../access.js';
import type { Deps } from '../context.js';
import { readDetails, writeDetails } from '../details.js';

type Impl = ServiceImpl<typeof ManagementService>;

export function projectToMessage(p: ProjectRow): MessageInitShape<typeof ProjectSchema> {
  return { id: p.id, details: readDetails(p), name: p.name, state: ProjectState.ACTIVE };
}

/** The project if it exists in this org context; otherwise 404 (another org's project is "not found" here). */
/** The project if it exists in the org, else 404 (another org's project is not revealed). */
export async function projectInOrg(deps: Deps, projectId: string, orgId: string): Promise<{ id: string; orgId: string }> {
  if ((await projectOwner(deps, projectId)) !== orgId) throw new KeyholdError('PROJECT_NOT_FOUND', { projectId });
  return { id: projectId, orgId };
}

export function projectHandlers(deps: Deps): Pick<Impl, 'addProject' | 'getProjectByID' | 'listProjects' | 'addProjectMember'> {
  return {
    async addProject(req, ctx) {
      const { caller, orgId } = await orgContext(deps, ctx);
      const violations = requiredText('name', req.name, 200);
      if (violations.length) throw invalidRequest(violations);
      authorize(caller, 'project.write', { orgId });
      const id = newId();
      const events = await appendNew(deps.store, [
        { aggregateType: 'project', aggregateId: id, type: 'project.added', payload: { name: req.name.trim() }, resourceOwner: orgId, creator: caller.userId },
      ]);
      return { id, details: writeDetails(events, id, true) };
    },

    async getProjectByID(req, ctx) {
      const { caller, orgId } = await orgContext(deps, ctx);
      const violations = requiredId('id', req.id);
      if (violations.length) throw invalidRequest(violations);
      await projectInOrg(deps, req.id, orgId);
      authorize(caller, 'project.read', { orgId, projectId: req.id });
      const project = await findProject(deps.database.sql, req.id);
      if (!project) throw new KeyholdError('PROJECT_NOT_FOUND', { projectId: req.id });
      return { project: projectToMessage(project) };
    },

    async listProjects(_req, ctx) {
      const { caller, orgId } = await orgContext(deps, ctx);
      const rows = await listProjects(deps.database.db, orgId);
      // Org-wide readers see all; project owners see the projects they own.
      return { result: rows.filter((p) => hasPermission(caller.memberships, 'project.read', { orgId, projectId: p.id })).map(projectToMessage) };
    },

    async addProjectMember(req, ctx) {
      const { caller, orgId } = await orgContext(deps, ctx);
      const violations = [...requiredId('projectId', req.projectId), ...requiredId('userId', req.userId), ...rolesRule('roles', req.roles, 'project')];
      if (violations.length) throw invalidRequest(violations);
      const project = await projectInOrg(deps, req.projectId, orgId);
      authorize(caller, 'project.member.write', { orgId, projectId: project.id });
      if (!(await findUser(deps.database.sql, req.userId))) throw new KeyholdError('USER_NOT_FOUND', { userId: req.userId });
      const events = await appendTo(deps.store, { type: 'project', id: project.id }, [
        {
          aggregateType: 'project',
          aggregateId: project.id,
          type: 'project.member.added',
          payload: { userId: req.userId, roles: [...new Set(req.roles)] },
          resourceOwner: orgId,
          creator: caller.userId,
        },
      ]);
      return { details: writeDetails(events, project.id, false) };
    },
  };

}
