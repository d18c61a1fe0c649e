// The verification page's address: always under KEYHOLD_ISSUER (the caller
// hands it in from the configuration), never from a request's Host or
// Forwarded header — a link built from a header is a link to whoever forged it.

/** Where the verification page is served (src/login/verify-email-routes.ts), beside the reset page. */
export const VERIFY_EMAIL_PATH = '/ui/login/verify-email';

export function verifyEmailLink(issuer: string, userId: string, code: string): string {
  const url = new URL(`${issuer.replace(/\/+$/, '')}${VERIFY_EMAIL_PATH}`);
  url.searchParams.set('user', userId);
  url.searchParams.set('code', code);
  return url.toString();
}
