// AddHumanUser (user v2): a person in an org — the org named in the body, else
// the call's org context. A caller-chosen id needs user.id.choose (docs/decisions.md:
// a taken id tells of a user in any org). An initial password
// (ZITADEL's `password: {password, changeRequired}`) is hashed here and lands
// in the same write as the user; only its hash is stored.
import { invalidRequest } from '../../domain/errors/keyhold-error.js';
import { checkDisplayName, checkUsername } from '../../domain/identity/identifiers.js';
import { passwordRule } from '../../domain/identity/passwords.js';
import { emailRule, optionalName, requiredId, requiredText, usernameRule } from '../../domain/identity/text-rules.js';
import { userDecider } from '../../domain/user/decider.js';
import { authorize, orgContext } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export interface AddHumanUserInput {
  /** Empty: Keyhold picks the id. */
  userId: string;
  /** Empty: the call's org context. */
  orgId: string;
  username: string;
  profile: { givenName: string; familyName: string; displayName: string };
  email: string;
  /** Absent: the user has no password (yet). */
  password?: { password: string; changeRequired: boolean };
}

export async function addHumanUser(ports: Ports, call: Call, input: AddHumanUserInput): Promise<{ userId: string; written: Written }> {
  const { caller } = call;
  const violations = [
    ...usernameRule('username', input.username, 200),
    ...requiredText('profile.givenName', input.profile.givenName, 200),
    ...requiredText('profile.familyName', input.profile.familyName, 200),
    ...optionalName('profile.displayName', input.profile.displayName, 200),
    ...emailRule('email.email', input.email),
    ...(input.userId ? requiredId('userId', input.userId) : []),
    ...(input.orgId ? requiredId('organization.orgId', input.orgId) : []),
    ...(input.password ? passwordRule('password.password', input.password.password, checkUsername(input.username, 200).value) : []),
  ];
  if (violations.length) throw invalidRequest(violations);
  const { orgId } = await orgContext(ports.lookups, call, input.orgId);
  authorize(caller, 'user.write', { orgId });
  if (input.userId) authorize(caller, 'user.id.choose', {});
  const userId = input.userId || ports.ids.newId();
  // The stored forms: trimmed and NFC (the username also width-mapped), as the rules above checked them.
  const name = (text: string) => checkDisplayName(text, 200).value;
  // Hashed after the 403s: a caller without the permission costs no argon2 run.
  const password = input.password
    ? { passwordHash: await ports.secrets.passwordHash(input.password.password), changeRequired: input.password.changeRequired }
    : undefined;
  const events = await runCommand(
    ports.events,
    { type: 'user', id: userId },
    userDecider(userId),
    {
      kind: 'addHuman',
      orgId,
      username: checkUsername(input.username, 200).value,
      givenName: name(input.profile.givenName),
      familyName: name(input.profile.familyName),
      displayName: name(input.profile.displayName),
      email: input.email.trim(),
      actor: caller.userId,
      ...(password ? { password } : {}),
    },
    { creates: true },
  );
  return { userId, written: written(events, userId) };
}
