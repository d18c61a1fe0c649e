// UpdateHumanUser (user v2): username, profile and e-mail of a human, by the
// rules of AddHumanUser; what the request leaves out stays. user.write in the
// user's org and containment, as every lifecycle call (./user-lifecycle.ts).
// A username another user of the org holds is 409 USERNAME_TAKEN.
// A user's own profile alone (no username, no address) needs no permission,
// as ZITADEL's UpdateMyProfile: the account page's profile form.
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { checkDisplayName, checkUsername } from '../../domain/identity/identifiers.js';
import { emailRule, optionalName, requiredText, usernameRule } from '../../domain/identity/text-rules.js';
import { userDecider } from '../../domain/user/decider.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';
import { userForWrite } from './user-lifecycle.js';
import { visibleUser } from '../../access/access.js';

export interface UpdateHumanUserInput {
  userId: string;
  username?: string;
  profile?: { givenName: string; familyName: string; displayName: string };
  email?: string;
}

export async function updateHumanUser(ports: Ports, call: Call, input: UpdateHumanUserInput): Promise<{ written: Written }> {
  const { caller } = call;
  const violations = [
    ...(input.username !== undefined ? usernameRule('username', input.username, 200) : []),
    ...(input.profile ? requiredText('profile.givenName', input.profile.givenName, 200) : []),
    ...(input.profile ? requiredText('profile.familyName', input.profile.familyName, 200) : []),
    ...(input.profile ? optionalName('profile.displayName', input.profile.displayName, 200) : []),
    ...(input.email !== undefined ? emailRule('email.email', input.email) : []),
  ];
  if (violations.length) throw invalidRequest(violations);
  const ownProfile = input.userId === caller.userId && input.username === undefined && input.email === undefined;
  if (ownProfile) await visibleUser(ports.lookups, caller, input.userId);
  else await userForWrite(ports, caller, input.userId);
  const current = await ports.lookups.userFacts(input.userId);
  if (!current) throw new KeyholdError('USER_NOT_FOUND', { userId: input.userId });
  const name = (text: string) => checkDisplayName(text, 200).value;
  const events = await runCommand(ports.events, { type: 'user', id: input.userId }, userDecider(input.userId), {
    kind: 'updateHuman',
    username: input.username !== undefined ? checkUsername(input.username, 200).value : current.username,
    givenName: input.profile ? name(input.profile.givenName) : (current.givenName ?? ''),
    familyName: input.profile ? name(input.profile.familyName) : (current.familyName ?? ''),
    displayName: input.profile ? name(input.profile.displayName) : (current.displayName ?? ''),
    email: input.email !== undefined ? input.email.trim() : (current.email ?? ''),
    actor: caller.userId,
  });
  return { written: written(events, input.userId) };
}
