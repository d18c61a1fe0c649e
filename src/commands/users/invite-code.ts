// Invitations (ZITADEL user v2 CreateInviteCode, ResendInviteCode,
// VerifyInviteCode) and the invitation page's use of a code.
//
// Who may invite: user.credential.write in the user's org under credential
// containment (an invitation hands out a way to set a credential, as
// SetPassword does). What the invitation is for follows from the user:
// - no credential yet (no password, no passkey): set a first credential — a
//   password or a passkey;
// - a password and no second factor: enrol a security key, in the user's own
//   browser; the page asks for the password too, so whoever holds only the
//   link (the administrator who asked for it) cannot enrol a key of its own.
//   A user with a second factor adds further keys after signing in with it;
//   a user without a password has no way to prove itself on that page: both
//   are refused here, not at the page.
// The code is returned to the composition (the API handler mails it or
// answers it); it is stored only as a hash. Both rules are decided again at
// every use (useFactsOf): a code whose purpose the user has outgrown, or whose
// maker could no longer make it, does nothing.
import { invalidRequest, KeyholdError, violation } from '../../domain/errors/keyhold-error.js';
import { generateInviteCode, hashInviteCode, INVITE_LIFETIME_MS, normalizeInviteCode } from '../../domain/invite/codes.js';
import { inviteDecider, inviteWorks, type InviteDelivery, type InvitePurpose, type InviteState, type InviteUseFacts } from '../../domain/invite/decider.js';
import { inviteBuckets } from '../../domain/identity/guess-buckets.js';
import { passwordRule } from '../../domain/identity/passwords.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { mayStillWriteCredential, userForCredentialWrite } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports, UserFacts } from '../ports.js';
import { spend } from '../login/guesses.js';
import { runCommand, stateNow } from '../run.js';
import { written, type Written } from '../written.js';
import { humanCredentialTarget } from './credential-target.js';

export interface CreateInviteCodeInput {
  userId: string;
  delivery: InviteDelivery;
}

export interface CreatedInvite {
  code: string;
  purpose: InvitePurpose;
  expiresAt: Date;
  user: UserFacts;
  written: Written;
}

/** The user's invitation as its events say now (a read: the decisions that spend a code are the runner's). */
async function inviteStateOf(ports: Ports, userId: string): Promise<InviteState> {
  return stateNow(ports.events, { type: 'user', id: userId }, inviteDecider(userId));
}

/** What an invitation of this user is for (see the top of this file), or why there can be none. */
async function purposeOf(ports: Ports, user: UserFacts): Promise<InvitePurpose> {
  const [password, passkeys, keys, totp] = await Promise.all([
    ports.lookups.passwordOf(user.id),
    ports.lookups.passkeysOf(user.id),
    ports.lookups.u2fOf(user.id),
    ports.lookups.totpOf(user.id),
  ]);
  const hasPassword = Boolean(password?.passwordHash);
  const hasPasskey = passkeys.some((k) => k.state === 'ready');
  if (!hasPassword && !hasPasskey) return 'credential';
  if (!hasPassword) throw new KeyholdError('INVITE_KEY_NEEDS_PASSWORD', { userId: user.id });
  if (hasPasskey || keys.some((k) => k.state === 'ready') || totp?.state === 'ready') throw new KeyholdError('INVITE_USER_HAS_SECOND_FACTOR', { userId: user.id });
  return 'key';
}

/**
 * What a use of a code depends on outside the user's own events, read just
 * before the decision (and again when the runner decides again): what the
 * user's credentials call for now, and whether the code's maker could still
 * make it — a live user holding user.credential.write over this user with
 * containment (a user promoted since, or a maker demoted or gone, ends it).
 */
async function useFactsOf(ports: Ports, userId: string, state: InviteState): Promise<InviteUseFacts> {
  const user = state.code ? await ports.lookups.userFacts(userId) : undefined;
  if (!user || !state.code) return { purposeNow: undefined, makerMayStill: false };
  const [purposeNow, makerMayStill] = await Promise.all([
    purposeOf(ports, user).catch((e: unknown) => {
      if (e instanceof KeyholdError) return undefined;
      throw e;
    }),
    mayStillWriteCredential(ports.lookups, state.code.createdBy, userId),
  ]);
  return { purposeNow, makerMayStill };
}


/** CreateInviteCode / ResendInviteCode: a new code (any earlier one stops working). `resend`: only where an invitation was made before. */
export async function createInviteCode(
  ports: Ports,
  { caller }: Call,
  input: CreateInviteCodeInput & { resend?: boolean; /** The composition's own precondition (mail configured), checked once the caller may ask. */ ready?: () => void },
): Promise<CreatedInvite> {
  const user = await humanCredentialTarget(ports, caller, input.userId, 'USER_NOT_HUMAN', input.ready);
  const purpose = await purposeOf(ports, user);
  if (input.resend) {
    const state = await inviteStateOf(ports, user.id);
    if (!state.code || state.code.used) throw new KeyholdError('INVITE_NOT_FOUND', { userId: user.id });
  }
  const code = generateInviteCode();
  const expiresAt = ports.clock.now() + INVITE_LIFETIME_MS;
  const events = await runCommand(ports.events, { type: 'user', id: user.id }, inviteDecider(user.id), {
    kind: 'create',
    codeHash: hashInviteCode(user.id, code),
    expiresAt,
    purpose,
    delivery: input.delivery,
    actor: caller.userId,
  });
  return { code, purpose, expiresAt: new Date(expiresAt), user, written: written(events, user.id) };
}

/** Where a use of a code comes from (its attempt budget's client): a browser's address, or an API caller. */
export type InviteClient = { address: string } | { callerId: string };

export type InviteUse =
  | { ok: true; purpose: InvitePurpose; written: Written }
  | { ok: false; reason: 'INVITE_CODE_WRONG' | 'INVITE_CODE_MALFORMED' | 'INVITE_CODE_SLOW_DOWN'; retryAfterSeconds?: number };

/**
 * A code used: reserved in its budgets first (a guess beyond them is not even
 * tried), then checked and — when right — spent in one append, with the first
 * password when one comes with it. Of concurrent uses exactly one is `ok`.
 */
export async function useInviteCode(
  ports: Ports,
  input: { userId: string; code: string; purpose?: InvitePurpose; passwordHash?: () => Promise<string>; actor: string },
  client: InviteClient,
): Promise<InviteUse> {
  if (!normalizeInviteCode(input.code)) return { ok: false, reason: 'INVITE_CODE_MALFORMED' };
  const held = await ports.invite().budgets.reserve(inviteBuckets(input.userId, client));
  if (!held.ok) return { ok: false, reason: 'INVITE_CODE_SLOW_DOWN', retryAfterSeconds: held.waitSeconds };
  const { result } = await spend(held, async (counts): Promise<InviteUse> => {
    let purpose: InvitePurpose | undefined;
    let events;
    // Hashed only once the attempt holds its place: a guesser beyond the budget costs no argon2 run.
    const passwordHash = input.passwordHash ? await input.passwordHash() : undefined;
    try {
      events = await runCommand(ports.events, { type: 'user', id: input.userId }, inviteDecider(input.userId), async (state) => {
        purpose = state.code?.purpose;
        return {
          kind: 'use' as const,
          typed: input.code,
          now: ports.clock.now(),
          ...(input.purpose ? { purpose: input.purpose } : {}),
          ...(passwordHash ? { password: { passwordHash } } : {}),
          facts: await useFactsOf(ports, input.userId, state),
          actor: input.actor,
        };
      });
    } catch (e) {
      // An unknown user is a wrong code to whoever tries (it counts): no account is told apart.
      if (e instanceof KeyholdError && (e.reason === 'USER_NOT_FOUND' || e.reason === 'USER_NOT_HUMAN' || e.reason === 'USER_NOT_ACTIVE')) {
        counts('failure');
        return { ok: false, reason: 'INVITE_CODE_WRONG' };
      }
      throw e;
    }
    const used = events.some((e) => e.type === 'user.invite.code.used');
    counts(used ? 'success' : 'failure');
    return used ? { ok: true, purpose: purpose!, written: written(events, input.userId) } : { ok: false, reason: 'INVITE_CODE_WRONG' };
  });
  return result;
}

/** Whether the user's invitation still works and `code` is it (the page's first look: nothing is spent, a wrong code counts). */
export async function checkInviteCode(ports: Ports, input: { userId: string; code: string }, client: InviteClient): Promise<{ ok: true; purpose: InvitePurpose } | Extract<InviteUse, { ok: false }>> {
  if (!normalizeInviteCode(input.code)) return { ok: false, reason: 'INVITE_CODE_MALFORMED' };
  const held = await ports.invite().budgets.reserve(inviteBuckets(input.userId, client));
  if (!held.ok) return { ok: false, reason: 'INVITE_CODE_SLOW_DOWN', retryAfterSeconds: held.waitSeconds };
  const { result } = await spend(held, async (counts) => {
    const state = await inviteStateOf(ports, input.userId);
    const works = state.exists && state.human && state.active && inviteWorks(state, input.userId, input.code, ports.clock.now(), await useFactsOf(ports, input.userId, state));
    counts(works ? 'none' : 'failure');
    return works ? { ok: true as const, purpose: state.code!.purpose } : { ok: false as const, reason: 'INVITE_CODE_WRONG' as const };
  });
  return result;
}

/** VerifyInviteCode (a login UI of the caller's own): the code spent, as the invitation page spends it; the credential is then set through the API. */
export async function verifyInviteCode(ports: Ports, { caller }: Call, input: { userId: string; verificationCode: string }): Promise<{ written: Written }> {
  const violations = requiredId('userId', input.userId);
  if (!input.verificationCode) violations.push(violation('verificationCode', { en: 'is required', de: 'ist erforderlich' }));
  if (violations.length) throw invalidRequest(violations);
  await userForCredentialWrite(ports.lookups, caller, input.userId);
  const used = await useInviteCode(ports, { userId: input.userId, code: input.verificationCode, actor: caller.userId }, { callerId: caller.userId });
  if (!used.ok) throw new KeyholdError(used.reason, { userId: input.userId, ...(used.retryAfterSeconds ? { seconds: String(used.retryAfterSeconds) } : {}) });
  return { written: used.written };
}

/**
 * The invitation page's first password: the password rules first (a 400
 * naming the field, nothing spent), then the code spent and the password set
 * in one append. Only for an invitation to set a first credential.
 */
export async function acceptInvitePassword(ports: Ports, input: { userId: string; code: string; password: string }, client: InviteClient): Promise<InviteUse> {
  const user = await ports.lookups.userFacts(input.userId);
  const violations = passwordRule('password', input.password, user?.username ?? '');
  if (violations.length) throw invalidRequest(violations);
  return useInviteCode(
    ports,
    { userId: input.userId, code: input.code, purpose: 'credential', passwordHash: () => ports.secrets.passwordHash(input.password), actor: input.userId },
    client,
  );
}
