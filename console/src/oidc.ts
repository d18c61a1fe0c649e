// Signing in through Keyhold's own login: the console is the public
// USER_AGENT app `keyhold-console` that bootstrap registers with the redirect
// URI `<issuer>/console/`. Authorization code + PKCE (S256) against
// /oauth/v2/authorize, the code redeemed at /oauth/v2/token (same origin), and
// the scope urn:keyhold:iam:api:aud so the access token is for Keyhold's API.
// The verifier and state wait in sessionStorage (this tab) during the login.
import { L } from './i18n.js';

export const CONSOLE_CLIENT_ID = 'keyhold-console';
const API_SCOPE = 'urn:keyhold:iam:api:aud';
const PENDING_KEY = 'keyhold.console.login';

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
  const body = (await res.json().catch(() => ({}))) as { access_token?: unknown; error?: string; error_description?: string };
  if (!res.ok || typeof body.access_token !== 'string') return { error: L.noTokenIssued(String(body.error_description || body.error || `HTTP ${res.status}`)) };
  return { token: body.access_token };
}
