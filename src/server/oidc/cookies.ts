// The provider's cookies (configuration.ts `cookies`): signed, httpOnly,
// SameSite=Lax. With an https issuer they are Secure as well, and carry the
// prefixes browsers enforce: the session cookie (path /, no domain) is
// `__Host-`, so no subdomain and no plain-http page can set or shadow it; the
// interaction and resume cookies, each on its own login's path, `__Secure-`.
export const COOKIE_NAMES = { session: 'keyhold_session', interaction: 'keyhold_interaction', resume: 'keyhold_resume' } as const;

export function providerCookies(issuer: string, keys: string[]) {
  const secure = new URL(issuer).protocol === 'https:';
  const options = { signed: true, httpOnly: true, sameSite: 'lax', secure } as const;
  return {
    keys,
    names: secure
      ? { session: `__Host-${COOKIE_NAMES.session}`, interaction: `__Secure-${COOKIE_NAMES.interaction}`, resume: `__Secure-${COOKIE_NAMES.resume}` }
      : { ...COOKIE_NAMES },
    long: { ...options },
    short: { ...options },
  };
}
