// A user's authenticator app (TOTP, RFC 6238): RegisterTOTP,
// VerifyTOTPRegistration, RemoveTOTP, and the login's check (useTotp).
//
// Who: the same rule as security keys (src/access/access.ts userForCredentialWrite) —
// the user itself, or a caller with user.credential.write in the user's org
// that contains the user (holds every permission the user holds). Another
// org's user is 404 as if it did not exist. RegisterTOTP answers the secret
// to that caller: an administrator who enrolls an app for a user has seen
// its secret, exactly as one who enrolls a security key holds that key.
//
// The secret is drawn here, stored sealed (ports.totp().secrets) before the
// user.totp.added event, and never written to an event, a log or an error.
import { removeFactor } from '../users/remove-factor.js';
import { invalidRequest, KeyholdError, violation } from '../../domain/errors/keyhold-error.js';
import { addressBucketKey } from '../../domain/identity/address-key.js';
import type { AttemptOutcome, BucketRequest } from '../../domain/identity/attempt-budget.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { randomBytes } from '../../domain/random.js';
import { totpDecider, totpStepFree } from '../../domain/totp/decider.js';
import { base32Encode, normalizeTotpCode, otpauthUri, TOTP_SECRET_BYTES, verifyTotp } from '../../domain/totp/totp.js';
import { hasOtherStrongFactor } from '../strong-factors.js';
import { firstFactorGenerations, newRecoveryCodeSet } from '../users/recovery-codes.js';
import { userForCredentialWrite } from '../../access/access.js';
import type { Call } from '../../access/caller.js';
import type { Ports } from '../ports.js';
import { runCommand } from '../run.js';
import { written, type Written } from '../written.js';

const userTarget = (userId: string) => ({ type: 'user' as const, id: userId });

/**
 * A new pending registration: the secret (base32, no padding) and its
 * otpauth:// URI, answered once. It replaces a pending one (whose secret is
 * deleted with the event); refused (TOTP_ALREADY_READY) while a ready one exists.
 */
export async function registerTotp(ports: Ports, { caller }: Call, input: { userId: string }): Promise<{ written: Written; uri: string; secret: string }> {
  const violations = requiredId('userId', input.userId);
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCredentialWrite(ports.lookups, caller, input.userId);
  const facts = await ports.lookups.userFacts(user.id);
  if (!facts) throw new KeyholdError('USER_NOT_FOUND', { userId: user.id });
  if (facts.kind !== 'human') throw new KeyholdError('USER_NOT_HUMAN', { userId: user.id });
  const { issuer, secrets } = ports.totp();
  const secret = randomBytes(TOTP_SECRET_BYTES);
  const totpId = ports.ids.newId();
  await secrets.put(totpId, user.id, secret);
  let events;
  try {
    events = await runCommand(ports.events, userTarget(user.id), totpDecider(user.id), { kind: 'add', totpId, actor: caller.userId });
  } catch (e) {
    // Refused (a ready TOTP) or not written: the secret of a registration that does not exist goes.
    await secrets.drop(totpId).catch(() => {});
    throw e;
  }
  return { written: written(events, user.id), uri: otpauthUri({ issuer, loginName: facts.username, secret }), secret: base32Encode(secret) };
}

/**
 * The user's pending registration answered again (the login's enrolment page
 * after a refused code, so the app just set up still matches): its URI and
 * secret, to the callers RegisterTOTP answers; undefined when none is pending.
 */
export async function pendingTotp(ports: Ports, { caller }: Call, input: { userId: string }): Promise<{ uri: string; secret: string } | undefined> {
  const user = await userForCredentialWrite(ports.lookups, caller, input.userId);
  const [facts, totp] = await Promise.all([ports.lookups.userFacts(user.id), ports.lookups.totpOf(user.id)]);
  if (!facts || totp?.state !== 'pending') return undefined;
  const { issuer, secrets } = ports.totp();
  const stored = await secrets.get(totp.totpId);
  return stored ? { uri: otpauthUri({ issuer, loginName: facts.username, secret: stored.secret }), secret: base32Encode(stored.secret) } : undefined;
}

function codeViolation(detail: string) {
  return violation('code', { en: detail, de: detail === 'is required' ? 'ist erforderlich' : 'muss genau 6 Ziffern 0-9 haben' });
}

/**
 * A right code from the app makes the pending registration ready (the code's
 * time step is recorded as used: it does not work again at a login). The
 * user's FIRST strong factor (no ready security key or passkey) brings a set
 * of recovery codes, as a first key or passkey does — self only
 * (../users/recovery-codes.ts), and only if no other first factor's set was
 * written meanwhile (decided in the append).
 * No guessing budget here: whoever may call this was answered the secret.
 */
export async function verifyTotpRegistration(ports: Ports, { caller }: Call, input: { userId: string; code: string }): Promise<{ written: Written; recoveryCodes: string[] }> {
  const violations = requiredId('userId', input.userId);
  const normal = normalizeTotpCode(input.code ?? '');
  if (!normal.ok) violations.push(codeViolation(normal.detail));
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCredentialWrite(ports.lookups, caller, input.userId);
  const { secrets } = ports.totp();
  const now = ports.clock.now();
  // The user's first strong factor, as for keys and passkeys (strong-factors.ts); whether it still is
  // when written is decided in the append (ifGenerations): of several first factors at once, one brings codes.
  // Counted before `first` is read (recovery-codes.ts firstFactorGenerations): a set another first
  // factor writes after this is seen in the append.
  const counted = await firstFactorGenerations(ports, user.id, caller.userId);
  const first = counted !== undefined && !(await hasOtherStrongFactor(ports, user.id, ''));
  const set = first ? newRecoveryCodeSet(user.id, caller.userId) : undefined;
  const generations = set ? counted : undefined;
  let step: { totpId: string; step: number } | undefined;
  const events = await runCommand(ports.events, userTarget(user.id), totpDecider(user.id), async (state) => {
    if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId: user.id });
    if (!state.totp) throw new KeyholdError('TOTP_NOT_REGISTERED', { userId: user.id });
    if (state.totp.ready) throw new KeyholdError('TOTP_ALREADY_READY', { userId: user.id });
    const stored = await secrets.get(state.totp.id);
    if (!stored) throw new KeyholdError('TOTP_NOT_REGISTERED', { userId: user.id });
    const checked = verifyTotp(stored.secret, input.code, now);
    if (!checked.ok) throw new KeyholdError('TOTP_CODE_WRONG', { userId: user.id });
    step = { totpId: state.totp.id, step: checked.step };
    const codeHashes = set?.command.kind === 'generate' ? set.command.codeHashes : undefined;
    return { kind: 'verify' as const, totpId: state.totp.id, step: checked.step, actor: caller.userId, recoveryCodeHashes: codeHashes, ifGenerations: generations };
  });
  // The confirming code's step is spent by its event; the secrets table's floor follows it.
  if (step) await secrets.claimStep(step.totpId, step.step);
  const generated = events.some((e) => e.type === 'user.recovery.codes.generated');
  return { written: written(events, user.id), recoveryCodes: generated ? (set?.codes ?? []) : [] };
}

/** The user's TOTP (pending or ready) goes, its sealed secret with it (the event's projection). */
export async function removeTotp(ports: Ports, { caller }: Call, input: { userId: string }): Promise<{ written: Written }> {
  const violations = requiredId('userId', input.userId);
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCredentialWrite(ports.lookups, caller, input.userId);
  // The user's own last factor stays while its org requires one (../users/remove-factor.ts).
  const events = await removeFactor(ports, caller, user, { kind: 'totp' });
  return { written: written(events, user.id) };
}

/** Who types the code at the login: the browser known to the account (its id), and the request's address. */
export interface TotpClient {
  address: string;
  knownBrowser?: string;
}

export interface UseTotpInput {
  userId: string;
  /** The app the login is for (kept in the events). */
  clientId: string;
  /** What the user typed. */
  code: string;
  /** Who typed it: the guessing budgets' keys (../login/check-totp.ts). */
  client: TotpClient;
}

export type UseTotpResult =
  | { ok: true; totpId: string }
  | { ok: false; reason: 'TOTP_CODE_WRONG' | 'TOTP_CODE_MALFORMED' | 'TOTP_NOT_REGISTERED' }
  | { ok: false; reason: 'TOTP_SLOW_DOWN'; retryAfterSeconds: number };

/** The budgets a typed code spends: the account and client, the account from every client, and the address unless a known browser types it. */
export function totpBuckets(userId: string, client: TotpClient): BucketRequest[] {
  const who = client.knownBrowser ? `known ${client.knownBrowser}` : `address ${addressBucketKey(client.address)}`;
  const own: BucketRequest[] = [
    { kind: 'totp.account.client', key: `user ${userId} ${who}` },
    { kind: 'totp.account', key: `user ${userId}` },
  ];
  return client.knownBrowser ? own : [...own, { kind: 'totp.address', key: addressBucketKey(client.address) }];
}

/**
 * The login's check of a typed code, for the user who has just given the
 * right password (the actor; not caller-authorized), once its place in the
 * guessing budgets is reserved (../login/check-totp.ts). Input that is no code
 * at all is refused before anything. The code is checked against now ±1 step;
 * whether its step is still free is decided by the decider in the append that
 * records the outcome (user.totp.used with the step / user.totp.check.failed),
 * so of two uses of one code at once the second is decided again on the
 * first's event and refused. `counts` hears how the guess ended: a wrong or
 * spent code as soon as it is known (it counts even if its event is not
 * written), a right one only once its use is recorded.
 */
export async function useTotp(ports: Ports, input: Omit<UseTotpInput, 'client'>, counts: (outcome: AttemptOutcome) => void = () => {}): Promise<UseTotpResult> {
  if (!normalizeTotpCode(input.code ?? '').ok) return { ok: false, reason: 'TOTP_CODE_MALFORMED' };
  const { secrets } = ports.totp();
  const totp = await ports.lookups.totpOf(input.userId);
  const stored = totp?.state === 'ready' ? await secrets.get(totp.totpId) : undefined;
  if (!totp || !stored) return { ok: false, reason: 'TOTP_NOT_REGISTERED' };
  const checked = verifyTotp(stored.secret, input.code, ports.clock.now());
  const step = checked.ok ? checked.step : undefined;
  const events = await runCommand(ports.events, userTarget(input.userId), totpDecider(input.userId), async (state) => {
    counts(totpStepFree(state, totp.totpId, step, stored.lastStep) ? 'none' : 'failure');
    return { kind: 'use' as const, totpId: totp.totpId, step, floor: stored.lastStep, clientId: input.clientId, actor: input.userId };
  });
  const accepted = events.some((e) => e.type === 'user.totp.used');
  if (!accepted) return { ok: false, reason: 'TOTP_CODE_WRONG' };
  counts('success');
  // The secrets table's floor follows the events (the step is spent by user.totp.used already).
  await secrets.claimStep(totp.totpId, step!).catch(() => {});
  return { ok: true, totpId: totp.totpId };
}
