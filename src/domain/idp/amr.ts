// What an external login says of itself (RFC 8176): `fed` always, and the
// upstream's own methods when the provider is trusted for them. Whether such a
// login satisfies forceMfa follows from the same: a trusted upstream that
// reports a second factor (or phishing-resistant key, or mfa itself) does; any
// other login through the provider goes on to Keyhold's own second factor.
import type { Trust } from './provider.js';

/** The RFC 8176 values Keyhold passes on from an upstream; anything else is dropped. */
const PASSED_ON = new Set(['pwd', 'otp', 'hwk', 'swk', 'sms', 'mfa', 'user', 'pin', 'fpt', 'face', 'iris', 'kba', 'pop', 'rba', 'sc', 'tel', 'vbm', 'wia', 'geo', 'retina']);
/** Upstream methods that are a second factor (or a multi-factor login by themselves). */
const MULTI_FACTOR = new Set(['mfa', 'otp', 'hwk', 'sms', 'swk', 'sc']);

/** The amr of a login through the provider. */
export function externalAmr(upstream: readonly string[], trust: Trust): string[] {
  const passed = trust.upstreamAmr ? upstream.filter((v) => PASSED_ON.has(v) && v !== 'fed') : [];
  return ['fed', ...new Set(passed)];
}

/** Whether the external login is a multi-factor one by itself (else forceMfa asks Keyhold's own factor). */
export const satisfiesMfa = (upstream: readonly string[], trust: Trust): boolean => trust.upstreamAmr && upstream.some((v) => MULTI_FACTOR.has(v));

/** The amr once Keyhold's own second factor followed the external login. */
export const withSecondFactor = (external: readonly string[], factor: readonly string[]): string[] => [...new Set([...external, ...factor.filter((v) => v !== 'pwd'), 'mfa'])];
