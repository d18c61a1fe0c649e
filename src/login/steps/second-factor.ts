// What a user must pass after the right password, decided from ALL of the
// user's ready keys, wherever they work (relying-parties.ts), never from the
// request's Host: keys the login can use → a key (the page links to the
// authenticator app when the user has one too); else a ready authenticator
// app → its code; keys only elsewhere → refused; no key in an org with forceMfa → register one (or refused where
// no key can be registered); else nothing. Decided again on every page of a
// second factor: a key registered or removed meanwhile changes what it asks.
import type { SecondFactor } from '../flow.js';
import type { LoginPorts } from '../ports.js';
import { keysForLogin, loginRpIds, type ReadyKey } from '../relying-parties.js';

/** The RP ids whose keys this login (served at the issuer) can use. */
export const loginIds = (issuer: string, ports: Pick<LoginPorts, 'webauthn'>): string[] => loginRpIds(issuer, ports.webauthn());

/** Whether the user holds a ready second factor of its own (a key, wherever it works, or an authenticator app). */
export const hasSecondFactor = (factors: { keys: readonly ReadyKey[]; hasTotp: boolean }): boolean => factors.keys.length > 0 || factors.hasTotp;

/** `secondFactorReady`: false when the caller just read that the user holds none (the password check's facts): not read again. */
export async function decideSecondFactor(
  issuer: string,
  ports: Pick<LoginPorts, 'secondFactorsOf' | 'mfaRequired' | 'webauthn'>,
  userId: string,
  secondFactorReady?: boolean,
): Promise<{ secondFactor: SecondFactor; keys: ReadyKey[] }> {
  const { keys, hasTotp } = secondFactorReady === false ? { keys: [], hasTotp: false } : await ports.secondFactorsOf(userId);
  const ids = loginIds(issuer, ports);
  if (keys.length > 0 && keysForLogin(keys, ids)) return { secondFactor: 'key', keys };
  if (hasTotp) return { secondFactor: 'totp', keys };
  if (keys.length > 0) return { secondFactor: 'refused', keys };
  if (!(await ports.mfaRequired(userId))) return { secondFactor: 'none', keys };
  return { secondFactor: ids.length > 0 ? 'enrol' : 'refused', keys };
}
