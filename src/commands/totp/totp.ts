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
import { invalidRequest, KeyholdError, violation } from '../../domain/errors/keyhold-error.js';
import { addressBucketKey } from '../../domain/identity/address-key.js';
import type { BucketRequest } from '../../domain/identity/attempt-budget.js';
import { requiredId } from '../../domain/identity/text-rules.js';
import { randomBytes } from '../../domain/random.js';
import { totpDecider } from '../../domain/totp/decider.js';
import { base32Encode, normalizeTotpCode, otpauthUri, TOTP_SECRET_BYTES, verifyTotp } from '../../domain/totp/totp.js';
import { newRecoveryCodeSet } from '../users/recovery-codes.js';
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
 * user's FIRST second factor (no ready security key) brings a set of recovery
 * codes, as a first security key does — self only (../users/recovery-codes.ts).
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
  const first = user.id === caller.userId && !(await ports.lookups.u2fOf(user.id)).some((t) => t.state === 'ready');
  const set = first ? newRecoveryCodeSet(user.id, caller.userId) : undefined;
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
    return { kind: 'verify' as const, totpId: state.totp.id, actor: caller.userId, recoveryCodeHashes: set?.command.kind === 'generate' ? set.command.codeHashes : undefined };
  });
  // The code that confirmed the app is spent: it cannot also pass a login.
  if (step) await secrets.claimStep(step.totpId, step.step);
  return { written: written(events, user.id), recoveryCodes: set?.codes ?? [] };
}

/** The user's TOTP (pending or ready) goes, its sealed secret with it (the event's projection). */
export async function removeTotp(ports: Ports, { caller }: Call, input: { userId: string }): Promise<{ written: Written }> {
  const violations = requiredId('userId', input.userId);
  if (violations.length) throw invalidRequest(violations);
  const user = await userForCredentialWrite(ports.lookups, caller, input.userId);
  const events = await runCommand(ports.events, userTarget(user.id), totpDecider(user.id), { kind: 'remove', actor: caller.userId });
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
 * right password (the actor; not caller-authorized). In order: input that is
 * no code at all is refused before anything (it tries nothing); a place is
 * reserved in the guessing budgets (none: TOTP_SLOW_DOWN, nothing checked);
 * the code is checked against now ±1 step; the matched step is claimed by one
 * conditional update — a replayed code, or the second of two concurrent uses
 * of one code, finds it claimed and is refused; the outcome is an event
 * (user.totp.used / user.totp.check.failed).
 */
export async function useTotp(ports: Ports, input: UseTotpInput): Promise<UseTotpResult> {
  if (!normalizeTotpCode(input.code ?? '').ok) return { ok: false, reason: 'TOTP_CODE_MALFORMED' };
  const { secrets, budgets } = ports.totp();
  const held = await budgets.reserve(totpBuckets(input.userId, input.client));
  if (!held.ok) return { ok: false, reason: 'TOTP_SLOW_DOWN', retryAfterSeconds: held.waitSeconds };
  let outcome: 'success' | 'failure' | 'none' = 'none';
  try {
    const totp = await ports.lookups.totpOf(input.userId);
    const stored = totp?.state === 'ready' ? await secrets.get(totp.totpId) : undefined;
    if (!totp || !stored) return { ok: false, reason: 'TOTP_NOT_REGISTERED' };
    const checked = verifyTotp(stored.secret, input.code, ports.clock.now());
    const accepted = checked.ok && (await secrets.claimStep(totp.totpId, checked.step));
    // A wrong guess counts whatever follows; a right one clears its streak only once its login is
    // recorded (an append that fails gives the place back uncounted: nothing was signed in).
    if (!accepted) outcome = 'failure';
    await runCommand(ports.events, userTarget(input.userId), totpDecider(input.userId), {
      kind: 'use',
      totpId: totp.totpId,
      accepted,
      clientId: input.clientId,
      actor: input.userId,
    });
    if (accepted) outcome = 'success';
    return accepted ? { ok: true, totpId: totp.totpId } : { ok: false, reason: 'TOTP_CODE_WRONG' };
  } finally {
    await held.finish(outcome).catch(() => {});
  }
}
