// "Password done, second factor pending": the one state between the password
// step and the end of a login that needs more. Kept in the
// interaction (oidc-provider's, so it expires with the login and lives in the
// database like the rest of it) under result.keyhold.secondFactor.
//
// How a second-factor page completes a login (the key step does exactly this):
//   const sf = secondFactorOf(interaction);        // undefined: no such state, refuse
//   … check the factor for sf.userId …
//   await completeSecondFactor(flow, req, reply, interaction, 'hwk');
// completeSecondFactor records the login (amr) and ends the interaction with
// amr ['pwd', <factor>, 'mfa'] (RFC 8176) and the matching acr (acr.ts).
// A page of another factor adds its amr value to SecondFactorMethod and its
// step under /ui/login/:uid/<step> (registered from login.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SecondFactorKind, SecondFactorOutcome } from '../metrics.js';
import { saveIfStored } from './single-use.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/**
 * The second factors Keyhold accepts: hwk (a security key), otp (a one-time
 * code), and a recovery code in place of a lost key, which
 * RFC 8176 has no value for: its login says only pwd and mfa.
 */
export type SecondFactorMethod = 'hwk' | 'otp' | 'recovery';

/** What the login asks of the user after the password. */
export type SecondFactorStep =
  /** Use one of the user's registered keys (WebAuthn authentication). */
  | 'key'
  /** forceMfa and no key yet: register one first (WebAuthn registration), which then counts as the factor. */
  | 'enroll'
  /**
   * The key of 'enroll' is registered (the factor is passed) and was the
   * user's first: its recovery codes were shown once; the login finishes when
   * the user goes on.
   */
  | 'codes'
  /**
   * The user has a second factor this login cannot take: keys that work only at
   * another address (or under an RP id no longer configured), or forceMfa and a
   * login where no key can be registered. The login ends here, saying where the
   * key works; it never finishes with the password alone (relying-parties.ts).
   */
  | 'refused';

/** One WebAuthn challenge handed out on this login (base64url), until `expiresAt` (ms). */
export interface LoginChallenge {
  value: string;
  expiresAt: number;
}

export interface SecondFactorState {
  userId: string;
  step: SecondFactorStep;
  /** When the password was right (ms). */
  passwordAt: number;
  /** The challenge the page shows now; single use: taken (moved to `spent`) by the first answer. */
  challenge?: LoginChallenge;
  /** Challenges answered or replaced on this login (the newest few): an answer to one of them is a replay. */
  spent: string[];
  /** The registration the enroll step started (RegisterU2F). */
  enrollU2fId?: string;
}

/** The most spent challenges kept per login. */
export const SPENT_KEPT = 20;

/** What finishing a login needs from the login UI (login.ts provides it). */
export interface LoginFlow {
  /** Records the login and ends the interaction as `userId` with these amr values. */
  finishLogin(req: FastifyRequest, reply: FastifyReply, interaction: Any, userId: string, amr: string[]): Promise<void>;
  /** A second factor's outcome, for the operator (metrics.ts keyhold_second_factors_total). */
  secondFactor(kind: SecondFactorKind, outcome: SecondFactorOutcome): void;
}

/** The metrics' kind of each method. */
const KIND: Readonly<Record<SecondFactorMethod, SecondFactorKind>> = { hwk: 'security_key', otp: 'one_time_code', recovery: 'recovery_code' };

/** The pending second factor of this interaction, or undefined (none asked, or not yet past the password). */
export function secondFactorOf(interaction: Any): SecondFactorState | undefined {
  const state = interaction?.result?.keyhold?.secondFactor;
  return state && typeof state.userId === 'string' ? (state as SecondFactorState) : undefined;
}

/** Saves the state in the interaction (keeping the rest of the login's progress). */
export async function saveSecondFactor(interaction: Any, state: SecondFactorState | undefined): Promise<void> {
  const keyhold = { ...(interaction.result?.keyhold ?? {}) };
  if (state) keyhold.secondFactor = state;
  else delete keyhold.secondFactor;
  interaction.result = { keyhold };
  await interaction.persist();
}

/** After the password: the user now has to pass `step` to finish. */
export function beginSecondFactor(interaction: Any, userId: string, step: SecondFactorStep, now = Date.now()): Promise<void> {
  return saveSecondFactor(interaction, { userId, step, passwordAt: now, spent: [] });
}

/** Where the state is stored in the interaction (saveIfStored's paths). */
const STATE_PATH = ['result', 'keyhold', 'secondFactor'];
const CHALLENGE_PATH = [...STATE_PATH, 'challenge', 'value'];

/**
 * Hands out a fresh challenge (the previous one is spent) and saves it —
 * only while the stored login is still at this second factor with the
 * challenge `state` has: undefined when another request moved it on
 * meanwhile (took the challenge and finished the login, or showed a newer
 * one), which this save must not undo.
 */
export async function issueChallenge(interaction: Any, state: SecondFactorState, challenge: LoginChallenge): Promise<SecondFactorState | undefined> {
  const next: SecondFactorState = { ...state, challenge, spent: spend(state) };
  return (await saveIfStored(still(state), () => saveSecondFactor(interaction, next))) ? next : undefined;
}

/** The stored login is still at `state`'s second factor, showing `state`'s challenge (or none). */
const still = (state: SecondFactorState) => [
  { path: [...STATE_PATH, 'userId'], equals: state.userId },
  { path: CHALLENGE_PATH, equals: state.challenge?.value ?? null },
];

/**
 * Takes the current challenge (single use): it is spent whatever the answer
 * turns out to be. Of answers arriving at once, only the one whose save still
 * finds the challenge stored takes it; the others get none (a replay).
 */
export async function takeChallenge(interaction: Any, state: SecondFactorState): Promise<{ state: SecondFactorState; taken?: LoginChallenge }> {
  if (!state.challenge) return { state };
  const next: SecondFactorState = { ...state, challenge: undefined, spent: spend(state) };
  const took = await saveIfStored(still(state), () => saveSecondFactor(interaction, next));
  return { state: next, taken: took ? state.challenge : undefined };
}

const spend = (state: SecondFactorState): string[] => (state.challenge ? [...state.spent, state.challenge.value] : state.spent).slice(-SPENT_KEPT);

/** The amr of a login with the password and `method` (RFC 8176); a recovery code adds no value of its own. */
export const amrWith = (method: SecondFactorMethod): string[] => (method === 'recovery' ? ['pwd', 'mfa'] : ['pwd', method, 'mfa']);

/** The factor was checked: the login completes as the state's user with amrWith(method). */
export async function completeSecondFactor(flow: LoginFlow, req: FastifyRequest, reply: FastifyReply, interaction: Any, method: SecondFactorMethod): Promise<void> {
  const state = secondFactorOf(interaction);
  if (!state) throw new Error('no second factor is pending on this login');
  await saveSecondFactor(interaction, undefined);
  flow.secondFactor(KIND[method], 'succeeded');
  return flow.finishLogin(req, reply, interaction, state.userId, amrWith(method));
}
