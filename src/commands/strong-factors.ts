// A user's strong factors: ready security keys, passkeys and authenticator
// apps. The first one a user verifies themself brings recovery codes
// (u2f/verify-u2f.ts, passkeys/verify-passkey.ts, totp/totp.ts), whichever
// kind it is; a later one leaves the set the user already keeps.
import type { Ports } from './ports.js';

/** The ids of the user's ready security keys, passkeys and authenticator app (its TOTP id). */
export async function readyStrongFactors(ports: Pick<Ports, 'lookups'>, userId: string): Promise<Set<string>> {
  const [keys, tokens, totp] = await Promise.all([ports.lookups.passkeysOf(userId), ports.lookups.u2fOf(userId), ports.lookups.totpOf(userId)]);
  const app = totp ? [{ id: totp.totpId, state: totp.state }] : [];
  return new Set([...keys, ...tokens, ...app].filter((t) => t.state === 'ready').map((t) => t.id));
}

/** Whether the user has a ready security key, passkey or authenticator app other than `exceptId`. */
export async function hasOtherStrongFactor(ports: Pick<Ports, 'lookups'>, userId: string, exceptId: string): Promise<boolean> {
  return [...(await readyStrongFactors(ports, userId))].some((id) => id !== exceptId);
}

/**
 * Whether the user keeps a strong factor once every security key is gone: a
 * ready passkey or a ready authenticator app (RemoveAllU2F keeps the recovery
 * codes then: they belong to the factors that remain).
 */
export async function hasStrongFactorBesideSecurityKeys(ports: Pick<Ports, 'lookups'>, userId: string): Promise<boolean> {
  const [keys, totp] = await Promise.all([ports.lookups.passkeysOf(userId), ports.lookups.totpOf(userId)]);
  return keys.some((k) => k.state === 'ready') || totp?.state === 'ready';
}
