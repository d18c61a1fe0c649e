// A user's strong factors: ready security keys and passkeys. The first one a
// user verifies themself brings recovery codes (u2f/verify-u2f.ts,
// passkeys/verify-passkey.ts), whichever kind it is.
import type { Ports } from './ports.js';

/** Whether the user has a ready security key or passkey other than `exceptId`. */
export async function hasOtherStrongFactor(ports: Pick<Ports, 'lookups'>, userId: string, exceptId: string): Promise<boolean> {
  const [keys, tokens] = await Promise.all([ports.lookups.passkeysOf(userId), ports.lookups.u2fOf(userId)]);
  return [...keys, ...tokens].some((t) => t.state === 'ready' && t.id !== exceptId);
}
