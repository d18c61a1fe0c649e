// Removing one of a user's security keys, passkeys or its authenticator app
// (RemoveU2F, RemovePasskey, RemoveTOTP over the API, and the account page).
// The user removing its own factor while its org requires a second factor
// (forceMfa) keeps one: refused (LAST_SECOND_FACTOR) when no ready factor would
// stay, and that holds under any number of removals at once, in any number of
// processes. A key's or passkey's removal writes user.factor.removed on the
// user beside it (../../domain/user/factor-guard.ts); the app's removal is on
// the user already. So every two removals meet on the user's sequence, and the
// one decided again counts the factors after the other — an administrator's
// removal too, which is never refused: taking a lost factor away is how an
// administrator helps a user back in (the next sign-in enrols a new one).
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import { passkeyDecider } from '../../domain/passkey/decider.js';
import { totpDecider } from '../../domain/totp/decider.js';
import { u2fDecider } from '../../domain/u2f/decider.js';
import { factorGuardDecider } from '../../domain/user/factor-guard.js';
import type { Caller } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommands, target, type Target } from '../run.js';
import { readyStrongFactors } from '../strong-factors.js';
import type { StoredEvent } from '../../domain/events/index.js';

export type Factor = { kind: 'key' | 'passkey'; id: string } | { kind: 'totp' };

/** Removes `factor` of `user` (already authorized by the caller): the events written. */
export async function removeFactor(ports: Ports, caller: Caller, user: { id: string; orgId: string }, factor: Factor): Promise<StoredEvent[]> {
  const actor = caller.userId;
  const keepOne = caller.userId === user.id && (await ports.lookups.secondFactorRequired(user.orgId));
  /** Counted when the command is decided (after the user's history was loaded): a ready factor stays (a pending registration is no factor to keep). */
  const stays = async (id: string) => {
    const ready = await readyStrongFactors(ports, user.id);
    return !ready.has(id) || ready.size > 1;
  };
  const self = { type: 'user' as const, id: user.id };
  if (factor.kind === 'totp') {
    return runCommands(ports.events, [
      target(self, totpDecider(user.id), async () => {
        const totp = await ports.lookups.totpOf(user.id);
        if (keepOne && totp && !(await stays(totp.totpId))) throw new KeyholdError('LAST_SECOND_FACTOR', { userId: user.id });
        return { kind: 'remove' as const, actor };
      }),
    ]);
  }
  const own: Target =
    factor.kind === 'key'
      ? target({ type: 'u2f', id: factor.id }, u2fDecider(factor.id, user.id, () => ports.clock.now()), { kind: 'remove' as const, actor })
      : target({ type: 'passkey', id: factor.id }, passkeyDecider(factor.id, user.id, () => ports.clock.now()), { kind: 'remove' as const, actor });
  return runCommands(ports.events, [
    own,
    target(self, factorGuardDecider(user.id), async () => ({
      kind: factor.kind === 'key' ? ('u2f' as const) : ('passkey' as const),
      id: factor.id,
      keepOne,
      anotherStays: keepOne ? await stays(factor.id) : true,
      actor,
    })),
  ]);
}
