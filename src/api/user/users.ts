// AddHumanUser and GetUserByID.
import type { ServiceImpl } from '@connectrpc/connect';
import type { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { newId } from '../../domain/ids.js';
import { emailRule, optionalText, requiredId, requiredText } from '../../domain/identity/text-rules.js';
import { ConcurrencyConflict } from '../../store/errors.js';
import { appendNew } from '../../store/run-command.js';
import { findUser } from '../../store/queries/index.js';
import { userOwner } from '../owners.js';
import type { UserRow } from '../../store/schema.js';
import { authorize, orgContext } from '../access.js';
import { callerOf, type Caller, type Deps } from '../context.js';
import { readDetails, writeDetails } from '../details.js';
import { mapConflicts } from '../unique-constraints.js';
import { userToMessage } from '../users-to-message.js';

type Impl = ServiceImpl<typeof UserService>;

/** The user, or 404; then the caller must be the user or hold `permission` in the user's org. */
/** The user if it exists (404) and the caller may act on it (403): itself, or by a role in the user's org. */
export async function userForCaller(deps: Deps, caller: Caller, userId: string, permission: 'user.read' | 'user.credential.write'): Promise<{ id: string; orgId: string }> {
  const orgId = await userOwner(deps, userId);
  if (orgId === undefined) throw new KeyholdError('USER_NOT_FOUND', { userId });
  if (userId !== caller.userId) authorize(caller, permission, { orgId });
  return { id: userId, orgId };
}

export function userHandlers(deps: Deps): Pick<Impl, 'addHumanUser' | 'getUserByID'> {
  return {
    async addHumanUser(req, ctx) {
      const caller = callerOf(ctx);
      const violations = [
        ...requiredText('username', req.username, 200),
        ...requiredText('profile.givenName', req.profile?.givenName ?? '', 200),
        ...requiredText('profile.familyName', req.profile?.familyName ?? '', 200),
        ...optionalText('profile.displayName', req.profile?.displayName ?? '', 200),
        ...emailRule('email.email', req.email?.email ?? ''),
        ...(req.userId ? requiredId('userId', req.userId) : []),
        ...(req.organization?.orgId ? requiredId('organization.orgId', req.organization.orgId) : []),
      ];
      if (violations.length) throw invalidRequest(violations);
      // The owning org: the one named in the body, else the call's org context.
      const { orgId } = await orgContext(deps, ctx, req.organization?.orgId);
      authorize(caller, 'user.write', { orgId });
      const userId = req.userId || newId();
      const profile = req.profile!;
      try {
        const events = await mapConflicts(
          appendNew(deps.store, [
            {
              aggregateType: 'user',
              aggregateId: userId,
              type: 'user.human.added',
              payload: {
                username: req.username.trim(),
                givenName: profile.givenName.trim(),
                familyName: profile.familyName.trim(),
                displayName: profile.displayName.trim() || `${profile.givenName.trim()} ${profile.familyName.trim()}`,
                email: req.email!.email.trim(),
              },
              resourceOwner: orgId,
              creator: caller.userId,
            },
          ]),
        );
        return { userId, details: writeDetails(events, userId, true) };
      } catch (e) {
        // A caller-chosen id that exists already collides on the user's first event.
        if (e instanceof ConcurrencyConflict) throw new KeyholdError('USER_ID_TAKEN', { userId });
        throw e;
      }
    },

    async getUserByID(req, ctx) {
      const caller = callerOf(ctx);
      const violations = requiredId('userId', req.userId);
      if (violations.length) throw invalidRequest(violations);
      await userForCaller(deps, caller, req.userId, 'user.read');
      const user = await findUser(deps.database.sql, req.userId);
      if (!user) throw new KeyholdError('USER_NOT_FOUND', { userId: req.userId });
      return { details: readDetails(user), user: userToMessage(user) };
    },
  };
}
