// Size limits for an OIDC application, so that no single request can make the
// service store (or later re-validate, log and return on every read) megabytes.
//
// Chosen so that every real client fits with room to spare: production apps
// rarely list more than a dozen redirect URIs, and browsers themselves cap URLs
// at about 2 000 characters in practice. Worst case per app: 3 URI lists ×
// 100 × 2 000 characters ≈ 600 000 characters — bounded, and far above any real need.
// "Characters" are Unicode code points, the same unit as the name limit.

export const OIDC_BOUNDS = {
  /** Name after trimming: 1..200 code points (seed spec §2.1, §8). */
  nameMaxChars: 200,
  /** Entries in each list field (redirect URIs, post-logout URIs, origins, response/grant types). */
  listMaxEntries: 100,
  /** Each redirect URI, post-logout redirect URI and additional origin. */
  uriMaxChars: 2000,
  /** clockSkew upper bound, inclusive (design §6: 0s..5s). */
  clockSkewMaxMs: 5000,
} as const;

/** Counts Unicode code points, so "é" or "🔑" is one character, not two UTF-16 units. */
export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
