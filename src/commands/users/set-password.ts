// SetPassword (user v2, POST /v2/users/{userId}/password): a new password for
// a human user — the caller's own, or another's with user.credential.write in
// the user's org under credential containment (a password is a credential:
// whoever sets it can log in as the user). Only the argon2id hash is stored.
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { passwordRule } from '../../domain/identity/passwords.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { assertPasswordHolder, userDecider, type UserCommand } from '../../domain/user/decider.js';
import { userForCredentialWrite } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

export interface SetPasswordInput {
  userId: string;
  password: string;
  changeRequired: boolean;
}

export async function setPassword(ports: Ports, call: Call, input: SetPasswordInput): Promise<{ written: Written }> {
  const { caller } = call;
  const { userId } = input;
  // The rules that need no user first (design §4: validate, then load and authorize) …
  const violations = [...requiredId('userId', userId), ...passwordRule('newPassword.password', input.password, '')];
  if (violations.length) throw invalidRequest(violations);
  // 404 for a user the caller cannot see, 403 without the permission, 403 PRIVILEGE_ESCALATION when not contained.
  await userForCredentialWrite(ports.lookups, caller, userId);
  // … then the one that needs the user (not its username), and no argon2 run for a machine user.
  const facts = await ports.lookups.userFacts(userId);
  if (facts?.kind === 'machine') throw new KeyholdError('PASSWORD_ONLY_FOR_HUMAN_USERS', { userId });
  const againstName = passwordRule('newPassword.password', input.password, facts?.username ?? '');
  if (againstName.length) throw invalidRequest(againstName);
  const passwordHash = await ports.secrets.passwordHash(input.password);
  const events = await runCommand(ports.events, { type: 'user', id: userId }, userDecider(userId), async (state): Promise<UserCommand> => {
    assertPasswordHolder(state, userId);
    return { kind: 'setPassword', passwordHash, changeRequired: input.changeRequired, actor: caller.userId };
  });
  return { written: written(events, userId) };
}
