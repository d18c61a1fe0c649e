// Signing in through Keyhold's own login: the console is the public
// USER_AGENT app `keyhold-console` that bootstrap registers with the redirect
// URI `<issuer>/console/`. Authorization code + PKCE (S256) against
// /oauth/v2/authorize, the code redeemed at /oauth/v2/token (same origin), and
// the scope urn:keyhold:iam:api:aud so the access token is for Keyhold's API.
// The verifier and state wait in sessionStorage (this tab) during the login.
//
// Signing out (signOutEverywhere) ends what the login started: the tokens are
// revoked at /oauth/v2/revoke first (refused by the API at once, whatever
// happens next), then the browser goes to the end-session endpoint with the
// ID token as hint, the registered post-logout URI `<issuer>/console/` and a
// state, and Keyhold's login session ends there.
import { L } from './i18n.js';

export const CONSOLE_CLIENT_ID = 'keyhold-console';
const API_SCOPE = 'urn:keyhold:iam:api:aud';
const PENDING_KEY = 'keyhold.console.login';
/** What the login gave besides the access token (ID token, refresh token), kept as long as it: this tab only. */
const TOKENS_KEY = 'keyhold.console.oidc';
const LOGOUT_KEY = 'keyhold.console.logout';

const redirectUri = () => `${window.location.origin}/console/`;

function b64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Leaves for the login page; comes back to /console/ with a code. */
export async function startLogin(): Promise<void> {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const state = b64url(crypto.getRandomValues(new Uint8Array(16)));
  const challenge = b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state, hash: window.location.hash }));
  const url = new URL('/oauth/v2/authorize', window.location.origin);
  url.search = new URLSearchParams({
    client_id: CONSOLE_CLIENT_ID,
    redirect_uri: redirectUri(),
    response_type: 'code',
    scope: `openid profile ${API_SCOPE}`,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  }).toString();
  window.location.assign(url.toString());
}

export type LoginAnswer = { token: string } | { error: string };

interface LoginTokens {
  idToken?: string;
  refreshToken?: string;
}

function loginTokens(): LoginTokens {
  try {
    const v = JSON.parse(sessionStorage.getItem(TOKENS_KEY) ?? 'null');
    return { idToken: typeof v?.idToken === 'string' ? v.idToken : undefined, refreshToken: typeof v?.refreshToken === 'string' ? v.refreshToken : undefined };
  } catch {
    return {};
  }
}

/** Whether this tab signed in through Keyhold's login (a pasted token has no login session to end). */
export function signedInThroughLogin(): boolean {
  return loginTokens().idToken !== undefined;
}

/** Forgets the ID and refresh token (a pasted token replaces the login's). */
export function forgetLoginTokens(): void {
  sessionStorage.removeItem(TOKENS_KEY);
}

async function revoke(token: string, hint: 'access_token' | 'refresh_token'): Promise<void> {
  // Best effort: a failed revocation still ends the login session below, and that ends the grant.
  await fetch('/oauth/v2/revoke', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, token_type_hint: hint, client_id: CONSOLE_CLIENT_ID }),
  }).catch(() => undefined);
}

/**
 * Revokes the console's tokens, then leaves for the end-session endpoint, which
 * ends the Keyhold login session and comes back to /console/ with the state.
 * `forget` drops the tokens from this tab once they are revoked.
 */
export async function signOutEverywhere(accessToken: string, forget: () => void): Promise<void> {
  const { idToken, refreshToken } = loginTokens();
  await Promise.all([revoke(accessToken, 'access_token'), refreshToken ? revoke(refreshToken, 'refresh_token') : undefined]);
  forget();
  forgetLoginTokens();
  const state = b64url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem(LOGOUT_KEY, state);
  const url = new URL('/oidc/v1/end_session', window.location.origin);
  url.search = new URLSearchParams({
    ...(idToken ? { id_token_hint: idToken } : {}),
    client_id: CONSOLE_CLIENT_ID,
    post_logout_redirect_uri: redirectUri(),
    state,
  }).toString();
  window.location.assign(url.toString());
}

/** Whether this page load is the end-session endpoint sending the browser back (the state it was given). */
export function finishLogout(): boolean {
  const params = new URLSearchParams(window.location.search);
  const expected = sessionStorage.getItem(LOGOUT_KEY);
  if (!params.has('state') || params.has('code') || params.has('error')) return false;
  sessionStorage.removeItem(LOGOUT_KEY);
  window.history.replaceState(null, '', window.location.pathname);
  return expected !== null && expected === params.get('state');
}

/** When this page load is the login's answer: the access token, or what went wrong; otherwise undefined. */
export async function finishLogin(): Promise<LoginAnswer | undefined> {
  const params = new URLSearchParams(window.location.search);
  if (!params.has('code') && !params.has('error')) return undefined;
  let pending: { verifier?: string; state?: string; hash?: string } | null = null;
  try {
    pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null');
  } catch {
    pending = null;
  }
  sessionStorage.removeItem(PENDING_KEY);
  // The code leaves the address bar (and the history) at once.
  window.history.replaceState(null, '', `${window.location.pathname}${pending?.hash ?? ''}`);
  if (params.has('error')) return { error: L.loginFailed(params.get('error_description') || params.get('error') || '') };
  if (!pending?.verifier || pending.state !== params.get('state')) return { error: L.loginForeign };
  const res = await fetch('/oauth/v2/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: params.get('code') ?? '', redirect_uri: redirectUri(), client_id: CONSOLE_CLIENT_ID, code_verifier: pending.verifier }),
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: unknown; id_token?: unknown; refresh_token?: unknown; error?: string; error_description?: string };
  if (!res.ok || typeof body.access_token !== 'string') return { error: L.noTokenIssued(String(body.error_description || body.error || `HTTP ${res.status}`)) };
  // Kept for signing out: the ID token is the end-session endpoint's hint, a refresh token is revoked then.
  sessionStorage.setItem(
    TOKENS_KEY,
    JSON.stringify({ idToken: typeof body.id_token === 'string' ? body.id_token : undefined, refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : undefined }),
  );
  return { token: body.access_token };
}
