// The OpenID Provider reads the user behind an account on every refresh and
// userinfo request and three times in one password login (findAccount for the
// claims at the resume and at the code exchange, the second-factor decision),
// and the user's org's login policy once per login. Those reads are cached here
// (./fresh-cache.ts: found values only, each trusted for ACCOUNT_TTL_MS, this
// process's own changes clear them at once).
//
// What another process changes (a deactivated, locked or removed user or org, a new
// name or email, forceMfa switched on) shows here within ACCOUNT_TTL_MS — the
// bound a PAT's caller (./callers.ts) and a client (./client-cache.ts) have.
// The password's hash and the user's state at the password step are never read
// through it (passwordOf): a changed password or a lock counts at once.
//
// A login's own events (its success, a grant stored, a throttle, recovery
// codes) only move the user's version on (store/projections/users.ts), so
// they leave the cache as it is; every other event of a user clears it.
//
// Measured (bench, PostgreSQL, c=64, paired runs): refresh 1,150–1,195 →
// 1,373–1,542/s, userinfo 2,908–3,264 → 3,689–4,055/s.
import type { EventTypeName, StoredEvent } from '../domain/events/index.js';
import { TTL_MS } from './callers.js';
import { freshCache } from './fresh-cache.js';
import type { ReadModel } from './read-model.js';

/** How long another process's change to a user or a login policy may go unseen here: the caller cache's bound. */
export const ACCOUNT_TTL_MS = TTL_MS;
const MAX_USERS = 10_000;
const MAX_POLICIES = 1_000;

/** A user's events that change nothing the read model answers about it but its version. */
const VERSION_ONLY: ReadonlySet<EventTypeName> = new Set<EventTypeName>([
  'user.login.succeeded',
  'user.password.check.failed',
  'user.login.throttled',
  'user.oidc.grant.saved',
  'user.oidc.grant.revoked',
  'user.oidc.token.revoked',
  'user.recovery.codes.generated',
  'user.recovery.code.used',
  'user.recovery.code.check.failed',
  'user.recovery.codes.removed',
  'user.factor.removed',
  'user.sessions.ended',
  // An invitation's code lives in the user's events only (commands/users/invite-code.ts).
  'user.invite.code.added',
  'user.invite.code.used',
  'user.invite.code.check.failed',
  'user.email.code.added',
  'user.email.code.check.failed',
  // The authenticator app lives in user_totp, read uncached (queries/totp.ts).
  'user.totp.added',
  'user.totp.verified',
  'user.totp.removed',
  'user.totp.used',
  'user.totp.check.failed',
]);

/** An org's events that change its users' answers: whether they are live (read-model.ts userIsLive). */
const ORG_USER_EVENTS: ReadonlySet<EventTypeName> = new Set<EventTypeName>(['org.deactivated', 'org.reactivated', 'org.removed']);

const changesAUser = (e: StoredEvent) => (e.type.startsWith('user.') && !VERSION_ONLY.has(e.type as EventTypeName)) || ORG_USER_EVENTS.has(e.type as EventTypeName);
const changesALoginPolicy = (e: StoredEvent) => e.type.startsWith('org.login.policy.');

export interface AccountReads extends Pick<ReadModel, 'user' | 'userMetadataOf'> {
  /** Whether the org's login policy requires a second factor (its own, or the default: no). */
  forceMfaOf(orgId: string): Promise<boolean>;
}

export function cachedAccountReads(
  read: Pick<ReadModel, 'user' | 'userMetadataOf' | 'loginPolicyOf'>,
  options: {
    ttlMs?: number;
    /** The event store's onAppended: this process's appends. */
    onAppended?: (listener: (events: readonly StoredEvent[]) => void) => unknown;
  } = {},
): AccountReads {
  const ttlMs = options.ttlMs ?? ACCOUNT_TTL_MS;
  const users = freshCache((userId) => read.user(userId), { ttlMs, maxEntries: MAX_USERS });
  // The metadata claim's entries (userinfo, ID token), under the same rule: a user's events clear them.
  const metadata = freshCache((userId) => read.userMetadataOf(userId), { ttlMs, maxEntries: MAX_USERS });
  // An org without a policy of its own has the default one: that is an answer too, kept like a found one.
  const policies = freshCache(async (orgId) => ({ forceMfa: (await read.loginPolicyOf(orgId))?.forceMfa ?? false }), { ttlMs, maxEntries: MAX_POLICIES });
  options.onAppended?.((events) => {
    if (events.some(changesAUser)) {
      users.clear();
      metadata.clear();
    }
    if (events.some(changesALoginPolicy)) policies.clear();
  });
  return {
    user: (userId) => users.get(userId),
    userMetadataOf: async (userId) => (await metadata.get(userId)) ?? [],
    forceMfaOf: async (orgId) => (await policies.get(orgId))?.forceMfa ?? false };
}
