// AddMachineUser, AddPersonalAccessToken, AddOrgMember.
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { invalidRequest, KeyholdError, violation } from '../../domain/errors/keyhold-error.js';
import { newId } from '../../domain/ids.js';
import { optionalText, requiredId, requiredText, rolesRule } from '../../domain/identity/text-rules.js';
import { generatePersonalAccessToken, hashToken } from '../../domain/identity/tokens.js';
import { appendTo } from '../../store/append-to.js';
import { appendNew } from '../../store/run-command.js';
import { findUser } from '../../store/queries/index.js';
import { authorize, orgContext } from '../access.js';
import type { Deps } from '../context.js';
import { writeDetails } from '../details.js';
import { mapConflicts } from '../unique-constraints.js';

type Impl = ServiceImpl<typeof ManagementService>;

export function managementUserHandlers(deps: Deps): Pick<Impl, 'addMachineUser' | 'addPersonalAccessToken' | 'addOrgMember'> {
  return {
    async addMachineUser(req, ctx) {
      const { caller, orgId } = await orgContext(deps, ctx);
      const violations = [...requiredText('userName', req.userName, 200), ...requiredText('name', req.name, 200), ...optionalText('description', req.description, 500)];
      if (violations.length) throw invalidRequest(violations);
      authorize(caller, 'user.write', { orgId });
      const userId = newId();
      const events = await mapConflicts(
        appendNew(deps.store, [
          {
            aggregateType: 'user',
            aggregateId: userId,
            type: 'user.machine.added',
            payload: { username: req.userName.trim(), name: req.name.trim(), description: req.description },
            resourceOwner: orgId,
            creator: caller.userId,
          },
        ]),
      );
      return { userId, details: writeDetails(events, userId, true) };
    },

    async addPersonalAccessToken(req, ctx) {
      const { caller, orgId } = await orgContext(deps, ctx);
      const violations = requiredId('userId', req.userId);
      const expiresAt = req.expirationDate ? timestampDate(req.expirationDate) : null;
      if (expiresAt && !(expiresAt.getTime() > Date.now())) {
        violations.push(violation('expirationDate', { en: 'must be in the future', de: 'muss in der Zukunft liegen' }));
      }
      if (violations.length) throw invalidRequest(violations);
      const user = await findUser(deps.database.sql, req.userId);
      if (!user || user.orgId !== orgId) throw new KeyholdError('USER_NOT_FOUND', { userId: req.userId });
      authorize(caller, 'user.write', { orgId });
      const token = generatePersonalAccessToken();
      const tokenId = newId();
      const events = await appendTo(deps.store, { type: 'user', id: user.id }, [
        {
          aggregateType: 'user',
          aggregateId: user.id,
          type: 'user.pat.added',
          payload: { tokenId, tokenHash: hashToken(token), expiresAt: expiresAt?.toISOString() ?? null },
          resourceOwner: user.orgId,
          creator: caller.userId,
        },
      ]);
      return { tokenId, token, details: writeDetails(events, user.id, true) };
    },

    async addOrgMember(req, ctx) {
      const { caller, orgId } = await orgContext(deps, ctx);
      const violations = [...requiredId('userId', req.userId), ...rolesRule('roles', req.roles, 'org')];
      if (violations.length) throw invalidRequest(violations);
      // The target is the org (its context is loaded already): authorize before
      // looking the user up, so a caller without the permission cannot probe user ids.
      authorize(caller, 'org.member.write', { orgId });
      if (!(await findUser(deps.database.sql, req.userId))) throw new KeyholdError('USER_NOT_FOUND', { userId: req.userId });
      const events = await appendTo(deps.store, { type: 'org', id: orgId }, [
        {
          aggregateType: 'org',
          aggregateId: orgId,
          type: 'org.member.added',
          payload: { userId: req.userId, roles: [...new Set(req.roles)] },
          resourceOwner: orgId,
          creator: caller.userId,
        },
      ]);
      return { details: writeDetails(events, orgId, false) };
    },
  };
}
