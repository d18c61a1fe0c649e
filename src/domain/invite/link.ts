// The invitation page's address: always under KEYHOLD_ISSUER (the caller
// hands it in from the configuration), never from a request's Host or
// Forwarded header — a link built from a header is a link to whoever forged it.

/** Where the invitation page is served (src/login/invite-routes.ts). */
export const INVITE_PATH = '/ui/invite';

export function inviteLink(issuer: string, userId: string, code: string): string {
  const url = new URL(`${issuer.replace(/\/+$/, '')}${INVITE_PATH}`);
  url.searchParams.set('user', userId);
  url.searchParams.set('code', code);
  return url.toString();
}
