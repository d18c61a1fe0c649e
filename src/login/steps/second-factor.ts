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

export async function decideSecondFactor(issuer: string, ports: Pick<LoginPorts, 'keysOf' | 'mfaRequired' | 'webauthn' | 'hasTotp'>, userId: string): Promise<{ secondFactor: SecondFactor; keys: ReadyKey[] }> {
  const keys = await ports.keysOf(userId);
  const ids = loginIds(issuer, ports);
  if (keys.length > 0 && keysForLogin(keys, ids)) return { secondFactor: 'key', keys };
  if (await ports.hasTotp(userId)) return { secondFactor: 'totp', keys };
  if (keys.length > 0) return { secondFactor: 'refused', keys };
  if (!(await ports.mfaRequired(userId))) return { secondFactor: 'none', keys };
  return { secondFactor: ids.length > 0 ? 'enrol' : 'refused', keys };
}
