// Which web origins a relying-party id serves (WebAuthn §5.1.3: an RP id is
// the origin's host or a registrable suffix of it). One rule for the start-up
// checks (config.ts: every configured RP id has an origin) and the login
// (src/login/relying-parties.ts: which of a user's keys work at the issuer's host).

/** Whether a page on `hostname` may use keys registered under `rpId`. */
export function hostBelongsToRpId(hostname: string, rpId: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const id = rpId.toLowerCase();
  return host === id || host.endsWith(`.${id}`);
}

/** The configured origins (http/https) on which keys under `rpId` work, as written. */
export function originsOfRpId(rpId: string, origins: readonly string[]): string[] {
  return origins.filter((origin) => {
    const url = URL.parse(origin);
    return url !== null && (url.protocol === 'https:' || url.protocol === 'http:') && hostBelongsToRpId(url.hostname, rpId);
  });
}

/**
 * The RP ids a login page at `issuer` can use: the configured ones the
 * issuer's host belongs to, in configured order, provided the issuer's origin
 * is a configured WebAuthn origin (else no answer from the page verifies).
 * The one rule for both the security-key step and the passkey login
 * (src/login/relying-parties.ts loginRpIds is this with the configured parties).
 */
export function loginRpIdsOf(issuer: string, rpIds: readonly string[], origins: readonly string[]): string[] {
  const url = URL.parse(issuer);
  if (!url || !origins.some((o) => URL.parse(o)?.origin === url.origin)) return [];
  return rpIds.filter((id) => hostBelongsToRpId(url.hostname, id));
}
