// AddOrganization: a new org, optionally with admins (ORG_OWNER unless roles are given).
import type { ServiceImpl } from '@connectrpc/connect';
import type { OrganizationService } from '../../../gen/keyhold/org/v2/org_pb.js';
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { newId } from '../../domain/ids.js';
import { requiredId, requiredText, rolesRule } from '../../domain/identity/text-rules.js';
import type { NewEvent } from '../../store/events.js';
import { appendNew } from '../../store/run-command.js';
import { findUser } from '../../store/queries/index.js';
import { authorize } from '../access.js';
import { callerOf, type Deps } from '../context.js';
import { writeDetails } from '../details.js';

export function organizationHandlers(deps: Deps): ServiceImpl<typeof OrganizationService> {
  return {
    async addOrganization(req, ctx) {
      const caller = callerOf(ctx);
      const violations = requiredText('name', req.name, 200);
      req.admins.forEach((a, i) => {
        violations.push(...requiredId(`admins[${i}].userId`, a.userId));
        if (a.roles.length) violations.push(...rolesRule(`admins[${i}].roles`, a.roles, 'org'));
      });
      if (violations.length) throw invalidRequest(violations);
      authorize(caller, 'org.create', {});
      for (const a of req.admins) {
        if (!(await findUser(deps.database.sql, a.userId))) throw new KeyholdError('USER_NOT_FOUND', { userId: a.userId });
      }
      const orgId = newId();
      const own = { aggregateType: 'org' as const, aggregateId: orgId, resourceOwner: orgId, creator: caller.userId };
      const events: NewEvent[] = [
        { ...own, type: 'org.added', payload: { name: req.name.trim() } },
        ...req.admins.map((a): NewEvent => ({ ...own, type: 'org.member.added', payload: { userId: a.userId, roles: a.roles.length ? [...new Set(a.roles)] : ['ORG_OWNER'] } })),
      ];
      const stored = await appendNew(deps.store, events);
      return { organizationId: orgId, details: writeDetails(stored, orgId, true) };
    },
  };
}
