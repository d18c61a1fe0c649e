// AddHumanUser, SetPassword, GetUserByID, ListUsers, UpdateHumanUser and the
// lifecycle (Deactivate/Reactivate/Lock/Unlock/RemoveUser).
import type { ServiceImpl } from '@connectrpc/connect';
import { Type, UserState, type UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { callOf, type ApiDeps } from '../context.js';
import { listDetailsV2, readDetails, sentTexts, writeDetails } from '../details.js';
import { userToMessage } from '../users-to-message.js';
import { emailMail, startVerification, verificationOf } from './email.js';

type Impl = ServiceImpl<typeof UserService>;

// The read model's names of the states a user can be in; DELETED and INITIAL match nobody.
const STATE_NAMES: Partial<Record<UserState, string>> = {
  [UserState.UNSPECIFIED]: 'unspecified',
  [UserState.ACTIVE]: 'active',
  [UserState.INACTIVE]: 'inactive',
  [UserState.LOCKED]: 'locked',
};

export function userHandlers(deps: ApiDeps): Pick<
  Impl,
  'addHumanUser' | 'setPassword' | 'getUserByID' | 'listUsers' | 'updateHumanUser' | 'deactivateUser' | 'reactivateUser' | 'lockUser' | 'unlockUser' | 'removeUser'
> {
  const { commands, queries } = deps;
  return {
    async addHumanUser(req, ctx) {
      const verification = verificationOf(req.email?.verification, 'email');
      // Nothing is written when the code could not be mailed.
      if (verification?.kind === 'send') emailMail(deps).mailerOf();
      const { userId, written } = await commands.addHumanUser(callOf(ctx), {
        userId: req.userId,
        orgId: req.organization?.orgId ?? '',
        username: req.username,
        profile: {
          givenName: req.profile?.givenName ?? '',
          familyName: req.profile?.familyName ?? '',
          displayName: req.profile?.displayName ?? '',
        },
        email: req.email?.email ?? '',
        ...(req.password ? { password: { password: req.password.password, changeRequired: req.password.changeRequired } } : {}),
      });
      const emailCode = await startVerification(deps, callOf(ctx), userId, (req.email?.email ?? '').trim(), verification, ctx);
      return { userId, details: writeDetails(written, true), ...(emailCode ? { emailCode } : {}) };
    },

    async setPassword(req, ctx) {
      const { written } = await commands.setPassword(callOf(ctx), {
        userId: req.userId,
        password: req.newPassword?.password ?? '',
        changeRequired: req.newPassword?.changeRequired ?? false,
      });
      return { details: writeDetails(written, false) };
    },

    async getUserByID(req, ctx) {
      const user = await queries.getUser(callOf(ctx), { userId: req.userId });
      return { details: readDetails(user), user: userToMessage(user) };
    },

    async updateHumanUser(req, ctx) {
      const verification = verificationOf(req.email?.verification, 'email');
      if (verification?.kind === 'send') emailMail(deps).mailerOf();
      const { written } = await commands.updateHumanUser(callOf(ctx), {
        userId: req.userId,
        username: req.username,
        profile: req.profile
          ? { givenName: req.profile.givenName, familyName: req.profile.familyName, displayName: req.profile.displayName }
          : undefined,
        email: req.email?.email,
      });
      const emailCode = req.email ? await startVerification(deps, callOf(ctx), req.userId, req.email.email.trim(), verification, ctx) : undefined;
      return { details: writeDetails(written, false), ...(emailCode ? { emailCode } : {}) };
    },
    deactivateUser: async (req, ctx) => ({ details: writeDetails((await commands.deactivateUser(callOf(ctx), req)).written, false) }),
    reactivateUser: async (req, ctx) => ({ details: writeDetails((await commands.reactivateUser(callOf(ctx), req)).written, false) }),
    lockUser: async (req, ctx) => ({ details: writeDetails((await commands.lockUser(callOf(ctx), req)).written, false) }),
    unlockUser: async (req, ctx) => ({ details: writeDetails((await commands.unlockUser(callOf(ctx), req)).written, false) }),
    removeUser: async (req, ctx) => ({ details: writeDetails((await commands.removeUser(callOf(ctx), req)).written, false) }),

    async listUsers(req, ctx) {
      const text = (oneof: 'userNameQuery' | 'displayNameQuery' | 'emailQuery') =>
        sentTexts(req.queries, (q) => {
          const query = q.query;
          if (query.case !== oneof) return undefined;
          switch (query.case) {
            case 'userNameQuery':
              return { oneof, field: 'userName', value: query.value.userName, method: query.value.method };
            case 'displayNameQuery':
              return { oneof, field: 'displayName', value: query.value.displayName, method: query.value.method };
            case 'emailQuery':
              return { oneof, field: 'emailAddress', value: query.value.emailAddress, method: query.value.method };
          }
        });
      const listed = await queries.listUsers(callOf(ctx), {
        page: req.query,
        queryCount: req.queries.length,
        usernames: text('userNameQuery'),
        displayNames: text('displayNameQuery'),
        emails: text('emailQuery'),
        kinds: req.queries.flatMap((q) =>
          q.query.case === 'typeQuery' ? [q.query.value.type === Type.HUMAN ? 'human' : q.query.value.type === Type.MACHINE ? 'machine' : 'unspecified'] as const : [],
        ),
        states: req.queries.flatMap((q) =>
          q.query.case === 'stateQuery' ? [STATE_NAMES[q.query.value.state] ?? `unknown-${q.query.value.state}`] : [],
        ),
        orgIds: req.queries.flatMap((q) => (q.query.case === 'organizationIdQuery' ? [q.query.value.organizationId] : [])),
      });
      return { details: listDetailsV2(listed), result: listed.items.map(userToMessage) };
    },
  };
}
