// What using a key and registering one share: each page shows a fresh
// challenge, bound to this login (its state), expiring after the WebAuthn
// timeout and never after the login itself, taken by the first answer (single
// use: a conditional save, ports.ts saveIfStill). Every refusal is a
// U2F_LOGIN_* reason shown in words on the same page, which offers the key
// again: the login stays resumable, never a 500.
import type { U2fLoginReason } from '../../commands/u2f/use-u2f.js';
import { renderMessage } from '../../domain/errors/reasons.js';
import { assertionClientData } from '../../domain/webauthn/verify-authentication.js';
import { escapeHtml } from '../pages/layout.js';
import type { LoginChallenge, StateOf } from '../state.js';
import type { Problem, StepContext, Submitted } from './step.js';

/** The longest answer read from the form (a registration with its attestation certificate included). */
export const MAX_ANSWER = 16 * 1024;

/** The browser's refusal (a DOMException name) in the login's words. */
const BROWSER_FAILURES: Readonly<Record<string, U2fLoginReason>> = {
  NotAllowedError: 'U2F_LOGIN_CANCELLED',
  AbortError: 'U2F_LOGIN_CANCELLED',
  SecurityError: 'U2F_LOGIN_WRONG_ORIGIN',
};

/** A challenge handed out now: until the WebAuthn timeout, never after the login (the interaction) itself. */
export const challengeOf = (ctx: StepContext, value: string): LoginChallenge => ({
  value,
  expiresAt: Math.min(ctx.now() + ctx.ports.webauthn().timeoutMs, ctx.interaction.expiresAt ?? Infinity),
});

export const keyProblem = (ctx: StepContext, refusal: U2fLoginReason | { problem: string }): Problem =>
  typeof refusal === 'string' ? { text: escapeHtml(renderMessage(refusal, ctx.lang, {})), reason: refusal } : { text: escapeHtml(refusal.problem) };

/** Every refusal of an answer (the browser's own, a cancel included) is a failed second factor. */
export function refused(ctx: StepContext, refusal: U2fLoginReason | { problem: string }): Submitted {
  ctx.secondFactor('security_key', 'failed');
  return { outcome: { kind: 'refused' }, problem: keyProblem(ctx, refusal) };
}

function answerOf(body: Record<string, unknown>): unknown {
  const raw = body.response;
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_ANSWER) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/**
 * Takes the current challenge (it is spent whatever the answer turns out to
 * be) and reads the answer: the answer and the challenge it must answer, or
 * why it is refused. Of answers arriving at once, only the one whose save
 * still finds the challenge stored takes it; the others have none (a replay).
 */
export async function takeAnswer(ctx: StepContext, state: StateOf<'securityKey' | 'enrolKey' | 'passkey' | 'enrolPasskey'>): Promise<{ answer: unknown; taken: LoginChallenge } | { refusal: U2fLoginReason }> {
  const took = state.challenge ? await ctx.apply({ kind: 'challengeTaken' }, { ifStill: true }) : undefined;
  const taken = took ? state.challenge : undefined;
  const failure = ctx.body.failure;
  if (typeof failure === 'string' && failure) return { refusal: BROWSER_FAILURES[failure.slice(0, 64)] ?? 'U2F_LOGIN_INVALID' };
  const answer = answerOf(ctx.body);
  const clientData = assertionClientData(answer);
  if (!clientData) return { refusal: 'U2F_LOGIN_INVALID' };
  // An answer to a challenge of this login that was already taken (or replaced): a replay.
  if (!taken || clientData.challenge !== taken.value) return { refusal: 'U2F_LOGIN_REPLAYED' };
  if (ctx.now() > taken.expiresAt) return { refusal: 'U2F_LOGIN_EXPIRED' };
  return { answer, taken };
}
