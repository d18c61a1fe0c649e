// RemoveAllU2F (a lost key): every security key of a user goes at
// once, pending registrations too, and with them the user's recovery codes —
// for the user who lost their keys (or whose keys and code sheet were
// stolen). The codes go because they stand in for the keys: a set that outlived
// its keys would be a second factor nobody can see; the next first key brings
// a new set. Its scope is security keys only: while the user still has another
// strong factor (a ready passkey or authenticator app) the codes stay, as they
// stand in for that one too, and passkeys are removed one by one (RemovePasskey;
// docs/passkeys.md: a lost device). Under forceMfa the user is then led to register a new key at the
// next login (src/login/steps/enrol-key.ts), so nobody is locked out for good.
//
// As RemoveU2F: the user themself, or user.credential.write in the user's org
// and containment (the caller must hold every permission the user holds).
// Everything in one transaction; a user with no keys and no codes is answered
// with the user's details, nothing written.
import { invalidRequest, KeyholdError } from '../../domain/errors/keyhold-error.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { u2fDecider } from '../../domain/u2f/decider.js';
import { userForCredentialWrite } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommands, target } from '../run.js';
import { hasStrongFactorBesideSecurityKeys } from '../strong-factors.js';
import { recoveryCodesTarget } from '../users/recovery-codes.js';
import { written, type Written } from '../written.js';

export async function removeAllU2f(ports: Ports, { caller }: Call, input: { userId: string }): Promise<{ written: Written; removed: number }> {
  const violations = requiredId('userId', input.userId);
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCredentialWrite(ports.lookups, caller, input.userId);
  const now = () => ports.clock.now();
  const [tokens, keepCodes] = await Promise.all([ports.lookups.u2fOf(user.id), hasStrongFactorBesideSecurityKeys(ports, user.id)]);
  const events = await runCommands(ports.events, [
    // A key removed or replaced meanwhile is skipped (ifPresent), not an error.
    ...tokens.map((t) => target({ type: 'u2f', id: t.id }, u2fDecider(t.id, user.id, now), { kind: 'remove' as const, actor: caller.userId, ifPresent: true })),
    ...(keepCodes ? [] : [recoveryCodesTarget(user.id, { kind: 'remove', actor: caller.userId })]),
  ]);
  const removed = events.filter((e) => e.type === 'u2f.removed').length;
  if (events.length) return { removed, written: { ...written(events, user.id), resourceOwner: user.orgId } };
  // Nothing to remove: the user's details as they are (a rare call, so one load).
  const history = await ports.events.load('user', user.id);
  const last = history[history.length - 1];
  if (!last) throw new KeyholdError('USER_NOT_FOUND', { userId: user.id });
  return { removed, written: { sequence: last.sequence, at: last.createdAt, resourceOwner: user.orgId } };
}
