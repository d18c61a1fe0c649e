// A forgotten password's link: its code's lifetime and mail limit, how its
// code is stored (only a hash) and where it leads. One place for the login's
// "Forgot password?" and an administrator's PasswordReset, which share one
// store, one limit and one page. The address is always under KEYHOLD_ISSUER
// (the caller hands it in from the configuration), never from a request header.
import { createHash } from 'node:crypto';

export const RESET_TTL_SECONDS = 3600;
/** Links per user per window, whoever asked: nobody floods a mailbox, by the login or the API. */
export const RESET_PER_WINDOW = 3;
export const RESET_WINDOW_SECONDS = 900;
/** The reset page (src/login/reset-routes.ts): a page of its own, as the mail may be opened in another browser than the sign-in's. */
export const RESET_PATH = '/ui/login/reset';

export const resetCodeHash = (code: string) => createHash('sha256').update(`keyhold reset ${code}`).digest('hex');

export function resetLink(issuer: string, code: string): string {
  const url = new URL(`${issuer.replace(/\/+$/, '')}${RESET_PATH}`);
  url.searchParams.set('code', code);
  return url.toString();
}
