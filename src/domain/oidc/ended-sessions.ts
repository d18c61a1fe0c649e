// A user's sessions end at an instant (store/projections/oidc-sessions.ts
// notes it, in ms). What is stored ends by being deleted; a JWT access token
// is never stored, so wherever Keyhold checks one it asks this instead.

/**
 * Whether a JWT issued at `iat` (seconds) may predate the end of its user's
 * sessions (`endedAt`, ms; undefined: never ended) — one issued in that very
 * second too, as `iat` cannot tell before from after.
 */
export const issuedBeforeEnd = (iat: unknown, endedAt: number | undefined): boolean =>
  endedAt !== undefined && (typeof iat !== 'number' || iat * 1000 <= endedAt);
