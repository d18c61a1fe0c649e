// Address verification, decided on the user's own aggregate (beside the
// user's decider, as invitations are): a code handed out for one address (its
// hash), the address verified by the code or by an administrator, wrong codes
// recorded.
//
// - issue: a new code for the user's current address replaces any earlier one.
//   Only for an active human user, and only for the address it holds now.
// - verify: the typed code against the current one — not used, not expired,
//   sent to the address the user still holds. A match is `user.email.verified`
//   for that address: of concurrent uses the runner's sequence check lets
//   exactly one append, the others are decided again, find the code used and
//   are refused. Anything else is a recorded failure; after MAX_FAILURES the
//   code is dead (the attempt budgets slow a guesser long before).
// - markVerified: an administrator's word (the command checks who may say it).
// - Another address (user.human.changed) retires the code: it went to the old one.
// - Mailed codes are limited per user (MAIL_LIMIT in MAIL_WINDOW_MS), across
//   address changes: nobody makes Keyhold a mail cannon against an address by
//   asking again and again, or by setting it, another, and it again. Decided
//   here, on the aggregate, so requests at once cannot all pass a count.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Decider } from '../decider.js';
import { KeyholdError } from '../errors/keyhold-error.js';
import type { EventTypeOf, NewEvent } from '../events/index.js';
import { randomBytes } from '../random.js';
import { RECOVERY_ALPHABET } from './recovery-codes.js';

/** Symbols per code: 8 × 5 bits. Typed from a mail, so short; the budgets and MAX_FAILURES bound guessing. */
export const EMAIL_CODE_LENGTH = 8;
/** How long a code works (ZITADEL's default for address codes is an hour as well). */
export const EMAIL_CODE_LIFETIME_MS = 60 * 60 * 1000;
/** Wrong tries after which the current code never works (a new one must be sent). */
export const MAX_FAILURES = 5;

/** Codes mailed per user within MAIL_WINDOW_MS (as many as reset links: ../../store/email-codes.ts). */
export const MAIL_LIMIT = 3;
export const MAIL_WINDOW_MS = 15 * 60 * 1000;

const LOOKALIKES: Readonly<Record<string, string>> = { o: '0', i: '1', l: '1' };

/** A fresh code as shown: `xxxx-xxxx`. 256 is a multiple of 32: `byte & 31` is unbiased. */
export function generateEmailCode(): string {
  let out = '';
  for (const byte of randomBytes(EMAIL_CODE_LENGTH)) out += RECOVERY_ALPHABET[byte & 31];
  return `${out.slice(0, 4)}-${out.slice(4)}`;
}

/** What was typed, as a code (case, dashes and spaces ignored; o/i/l read as 0/1/1); anything else undefined. */
export function normalizeEmailCode(typed: unknown): string | undefined {
  if (typeof typed !== 'string' || typed.length > 32) return undefined;
  let out = '';
  for (const ch of typed.toLowerCase()) {
    if (ch === '-' || ch === ' ') continue;
    const symbol = LOOKALIKES[ch] ?? ch;
    if (!RECOVERY_ALPHABET.includes(symbol)) return undefined;
    out += symbol;
  }
  return out.length === EMAIL_CODE_LENGTH ? out : undefined;
}

/** The stored form: SHA-256 hex under a label, the user's id and the address (one code, one user, one address). */
export function hashEmailCode(userId: string, email: string, code: string): string {
  const normalized = normalizeEmailCode(code) ?? code;
  return createHash('sha256').update(`keyhold email code\u0000${userId}\u0000${email}\u0000${normalized}`, 'utf8').digest('hex');
}

function codeMatches(userId: string, email: string, typed: string, stored: string): boolean {
  const normalized = normalizeEmailCode(typed);
  if (!normalized) return false;
  const a = Buffer.from(hashEmailCode(userId, email, normalized), 'hex');
  const b = Buffer.from(stored, 'hex');
  return a.length === b.length && timingSafeEqual(new Uint8Array(a), new Uint8Array(b));
}

export type EmailDelivery = 'mail' | 'returned';

export interface EmailState {
  exists: boolean;
  human: boolean;
  active: boolean;
  orgId: string;
  email: string;
  verified: boolean;
  code?: { hash: string; email: string; expiresAt: number; used: boolean; failures: number };
  /** When the latest mailed codes were made (at most MAIL_LIMIT, oldest first). */
  mailed: number[];
}

export type EmailCommand =
  | { kind: 'issue'; email: string; codeHash: string; expiresAt: number; delivery: EmailDelivery; actor: string }
  | { kind: 'verify'; typed: string; now: number; actor: string }
  /** `by`: whose word it is (an administrator's, or a provider trusted for addresses at a just-in-time creation). */
  | { kind: 'markVerified'; email: string; actor: string; by?: 'administrator' | 'provider' };

/** Whether the user's current code still works at `now` (not used, not expired, not worn out, for the address held now). */
export const openEmailCode = (state: EmailState, now: number) =>
  Boolean(state.code && !state.code.used && now <= state.code.expiresAt && state.code.failures < MAX_FAILURES && state.code.email === state.email);

/** How long until another code may be mailed to the user at `now`: 0 when it may now. */
export function mailWaitMs(state: Pick<EmailState, 'mailed'>, now: number): number {
  const recent = state.mailed.filter((at) => at > now - MAIL_WINDOW_MS);
  return recent.length < MAIL_LIMIT ? 0 : recent[0]! + MAIL_WINDOW_MS - now;
}

export function mailLimitError(userId: string, waitMs: number): KeyholdError {
  const seconds = String(Math.max(1, Math.ceil(waitMs / 1000)));
  return new KeyholdError('EMAIL_CODE_MAIL_LIMIT', { userId, limit: String(MAIL_LIMIT), seconds, retryAfterSeconds: seconds });
}

export function emailDecider(userId: string): Decider<EmailState, EmailCommand, EventTypeOf<'user'>> {
  return {
    initialState: () => ({ exists: false, human: false, active: false, orgId: '', email: '', verified: false, mailed: [] }),
    evolve: (state, event) => {
      switch (event.type) {
        case 'user.human.added':
          return { ...state, exists: true, human: true, active: true, orgId: event.resourceOwner, email: event.payload.email };
        case 'user.machine.added':
          return { ...state, exists: true, human: false, active: true, orgId: event.resourceOwner };
        case 'user.removed':
          return { ...state, exists: false, code: undefined };
        case 'user.deactivated':
        case 'user.locked':
          return { ...state, active: false };
        case 'user.reactivated':
        case 'user.unlocked':
          return { ...state, active: true };
        case 'user.human.changed':
          return event.payload.email === state.email ? state : { ...state, email: event.payload.email, verified: false, code: undefined };
        case 'user.email.code.added': {
          const { codeHash, email, expiresAt, delivery } = event.payload;
          // Made at its expiry less its lifetime: the command's clock, as `now` in the decision below.
          const mailed = delivery === 'mail' ? [...state.mailed, Date.parse(expiresAt) - EMAIL_CODE_LIFETIME_MS].slice(-MAIL_LIMIT) : state.mailed;
          return { ...state, mailed, code: { hash: codeHash, email, expiresAt: Date.parse(expiresAt), used: false, failures: 0 } };
        }
        case 'user.email.verified':
          if (event.payload.email !== state.email) return state;
          return { ...state, verified: true, code: state.code ? { ...state.code, used: true } : undefined };
        case 'user.email.code.check.failed':
          return state.code ? { ...state, code: { ...state.code, failures: state.code.failures + 1 } } : state;
        default:
          return state;
      }
    },
    decide: (command, state): NewEvent<EventTypeOf<'user'>>[] => {
      if (!state.exists) throw new KeyholdError('USER_NOT_FOUND', { userId });
      if (!state.human) throw new KeyholdError('USER_NOT_HUMAN', { userId });
      const own = { aggregateType: 'user' as const, aggregateId: userId, resourceOwner: state.orgId, creator: command.actor };
      switch (command.kind) {
        case 'issue': {
          if (!state.active) throw new KeyholdError('USER_NOT_ACTIVE', { userId });
          if (!state.email || command.email !== state.email) throw new KeyholdError('EMAIL_CHANGED', { userId });
          const { codeHash, delivery, email } = command;
          if (delivery === 'mail') {
            const wait = mailWaitMs(state, command.expiresAt - EMAIL_CODE_LIFETIME_MS);
            if (wait > 0) throw mailLimitError(userId, wait);
          }
          return [{ ...own, type: 'user.email.code.added', payload: { codeHash, email, expiresAt: new Date(command.expiresAt).toISOString(), delivery } }];
        }
        case 'markVerified': {
          if (!state.email || command.email !== state.email) throw new KeyholdError('EMAIL_CHANGED', { userId });
          if (state.verified) return [];
          return [{ ...own, type: 'user.email.verified', payload: { email: state.email, by: command.by ?? 'administrator' } }];
        }
        case 'verify': {
          // One answer for wrong, used, expired, worn out or sent to an address the user no longer holds.
          const works = openEmailCode(state, command.now) && codeMatches(userId, state.email, command.typed, state.code!.hash);
          if (!works) return [{ ...own, type: 'user.email.code.check.failed', payload: {} }];
          if (!state.active) throw new KeyholdError('USER_NOT_ACTIVE', { userId });
          return [{ ...own, type: 'user.email.verified', payload: { email: state.email, by: 'code' } }];
        }
      }
    },
  };
}
