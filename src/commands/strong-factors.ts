// A user's strong factors: ready security keys and passkeys. The first one a
// user verifies themself brings recovery codes (u2f/verify-u2f.ts,
// passkeys/verify-passkey.ts), whichever kind it is.
import type { Ports } from './ports.js';

/** Whether the user has a ready security key or passkey other than `exceptId`. */
export async function hasOtherStrongFactor(ports: Pick<Ports, 'lookups'>, userId: string, exceptId: string): Promise<boolean> {
  const [keys, tokens] = await Promise.all([ports.lookups.passkeysOf(userId), ports.lookups.u2fOf(userId)]);
  return [...keys, ...tokens].some((t) => t.state === 'ready' && t.id !== exceptId);
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
