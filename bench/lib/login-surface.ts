// The login surface's scenarios, run by bench/worker.ts against
// Keyhold or against the bare oidc-provider peer (bench/peer.mjs): the token
// endpoint (client_credentials for an opaque and a JWT machine, refresh with
// rotation), introspection and userinfo with prepared access tokens, and whole
// authorization-code logins without a browser (password; password + security
// key answered by a software authenticator; a passkey alone, user verified). Timed requests go through
// node:http with a keep-alive agent; the logins too, with a cookie jar per
// login (./http-browser.ts), as a browser without script would.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { formAction, formToken, logIn, type Browser } from '../../test/support/oidc-login.js';
import { loopback } from '../../test/support/client-address.js';
import { httpBrowser } from './http-browser.js';
import type { SoftAuthenticator } from '../../test/support/soft-authenticator.js';

export const SURFACE_SCENARIOS = ['cc-bearer', 'cc-jwt', 'refresh', 'introspect', 'userinfo', 'login', 'login-key', 'login-passkey'] as const;
export type SurfaceScenario = (typeof SURFACE_SCENARIOS)[number];
/** What the peer serves too: its login is the least a login over the library does (bench/peer.mjs); no security keys there. */
export const PEER_SCENARIOS: readonly SurfaceScenario[] = ['cc-bearer', 'cc-jwt', 'refresh', 'introspect', 'userinfo', 'login'];
/** The login users' password, on Keyhold and the peer (the argon2id work does not depend on it). */
export const LOGIN_PASSWORD = 'a long bench passphrase 4711';

export const ROUTES = { authorize: '/oauth/v2/authorize', token: '/oauth/v2/token', introspect: '/oauth/v2/introspect', userinfo: '/oidc/v1/userinfo' };
export const REDIRECT_URI = 'https://app.example.com/auth/callback';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** One refresh chain: each worker connection (virtual user) rotates its own. */
export interface Chain {
  refreshToken: string;
  accessToken: string;
}

/** Everything the timed scenarios need, prepared before timing starts (serializable but `keyUsers`). */
export interface SurfaceTarget {
  kind: 'keyhold' | 'peer';
  /** Where HTTP goes (Keyhold: its issuer's origin, so the resume redirects stay on it). */
  baseUrl: string;
  ccBearer: ClientCredentials;
  ccJwt: ClientCredentials;
  app: ClientCredentials;
  chains: Chain[];
  /** Human users with `password` (Keyhold only). */
  loginUsers?: string[];
  keyUsers?: { username: string; key: SoftAuthenticator }[];
  /** Users with a passkey: its software authenticator and the user handle it answers with. */
  passkeyUsers?: { userHandle: string; key: SoftAuthenticator }[];
  password?: string;
  /** The WebAuthn origin the assertions name. */
  origin?: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

export function request(base: URL, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const r = http.request(
      { agent, host: base.hostname === 'localhost' ? '127.0.0.1' : base.hostname, port: base.port, method, path, headers: { host: base.host, ...headers, ...(body !== undefined ? { 'content-length': Buffer.byteLength(body) } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

const basic = (c: ClientCredentials) => `Basic ${Buffer.from(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(c.clientSecret)}`).toString('base64')}`;
const FORM = 'application/x-www-form-urlencoded';

async function postForm(base: URL, path: string, client: ClientCredentials, form: Record<string, string>): Promise<Record<string, unknown>> {
  const res = await request(base, 'POST', path, { authorization: basic(client), 'content-type': FORM }, new URLSearchParams(form).toString());
  if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
  return JSON.parse(res.text) as Record<string, unknown>;
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(t: SurfaceTarget, challenge: string, scope: string, extra: Record<string, string> = {}): URL {
  const u = new URL(ROUTES.authorize, t.baseUrl);
  const params = { client_id: t.app.clientId, redirect_uri: REDIRECT_URI, response_type: 'code', scope, code_challenge: challenge, code_challenge_method: 'S256', state: randomBytes(8).toString('hex'), ...extra };
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u;
}

/** The code exchange with PKCE; the token response (checked for tokens). */
async function redeem(t: SurfaceTarget, back: URL, verifier: string): Promise<Record<string, unknown>> {
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`the login came back without a code: ${back.search.slice(0, 200)}`);
  const tokens = await postForm(new URL(t.baseUrl), ROUTES.token, t.app, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
  if (typeof tokens.access_token !== 'string' || typeof tokens.id_token !== 'string') throw new Error('the code exchange answered without tokens');
  return tokens;
}

/** A whole login with the password: authorize → username → password (→ consent) → callback → code exchange. */
export async function passwordLogin(t: SurfaceTarget, username: string, offline = false, from?: string): Promise<Record<string, unknown>> {
  const { verifier, challenge } = pkce();
  const b = httpBrowser(t.baseUrl, from);
  // offline_access needs prompt=consent (OIDC Core 11): the login then passes the consent page.
  const url = authorizeUrl(t, challenge, offline ? 'openid profile offline_access' : 'openid profile', offline ? { prompt: 'consent' } : {});
  const back = await logIn(b, url, username, t.password!, { consent: offline });
  return redeem(t, back, verifier);
}

const unescapeHtml = (s: string) => s.replace(/&(quot|amp|lt|gt|#39);/g, (_m, e: string) => ({ quot: '"', amp: '&', lt: '<', gt: '>', '#39': "'" })[e] as string);

/** A whole login with password and security key: the key page's challenge answered by the user's software authenticator. */
export async function keyLogin(t: SurfaceTarget, user: { username: string; key: SoftAuthenticator }, from?: string): Promise<Record<string, unknown>> {
  const { verifier, challenge } = pkce();
  const b: Browser = httpBrowser(t.baseUrl, from);
  let step = await b.follow(authorizeUrl(t, challenge, 'openid profile'));
  const submit = async (name: string, form: Record<string, string>) => {
    const action = step.html && formAction(step.html, name);
    if (!action) throw new Error(`no ${name} form on ${step.url.pathname}: ${step.html?.slice(0, 300)}`);
    const res = await b.request(new URL(action, step.url), { form: { form_token: formToken(step.html!), ...form } });
    const location = res.headers.get('location');
    step = location ? await b.follow(new URL(location, step.url)) : { page: res, html: await res.text(), url: step.url };
  };
  if (step.html && formAction(step.html, 'username')) await submit('username', { username: user.username });
  await submit('password', { username: user.username, password: t.password! });
  const options = /data-options="([^"]*)"/.exec(step.html ?? '')?.[1];
  if (!options) throw new Error(`no key step after the password: ${step.url.pathname} ${step.html?.slice(0, 300)}`);
  const { challenge: keyChallenge, rpId } = JSON.parse(unescapeHtml(options)) as { challenge: string; rpId: string };
  // signCount 0: a key without a counter (the stored one stays 0), so parallel logins of one user never look cloned.
  const answer = user.key.makeAssertion({ challenge: keyChallenge, origin: t.origin!, rpId, signCount: 0 });
  await submit('key', { response: JSON.stringify(answer) });
  if (!step.left) throw new Error(`the key login did not return to the app: ${step.url.pathname} ${step.html?.match(/role="alert"[^>]*>[^<]*/)?.[0] ?? ''}`);
  const tokens = await redeem(t, step.left, verifier);
  // The ID token says how the user authenticated: the key step must have counted (amr hwk).
  const claims = JSON.parse(Buffer.from(String(tokens.id_token).split('.')[1], 'base64url').toString()) as { amr?: string[] };
  if (!claims.amr?.includes('hwk')) throw new Error(`the key login's ID token has amr ${JSON.stringify(claims.amr)}, not hwk`);
  return tokens;
}

/** A whole login with a passkey, no username typed: the first page's discoverable challenge answered by the user's software authenticator (user verified). */
export async function passkeyLogin(t: SurfaceTarget, user: { userHandle: string; key: SoftAuthenticator }, from?: string): Promise<Record<string, unknown>> {
  const { verifier, challenge } = pkce();
  const b: Browser = httpBrowser(t.baseUrl, from);
  const step = await b.follow(authorizeUrl(t, challenge, 'openid profile'));
  const options = /id="passkey-step" data-options="([^"]*)"/.exec(step.html ?? '')?.[1];
  const action = step.html && formAction(step.html, 'passkey');
  if (!options || !action) throw new Error(`no passkey on the first page: ${step.url.pathname} ${step.html?.slice(0, 300)}`);
  const { challenge: passkeyChallenge, rpId } = JSON.parse(unescapeHtml(options)) as { challenge: string; rpId: string };
  // signCount 0: an authenticator without a counter, so parallel logins of one user never look cloned.
  const answer = user.key.makeAssertion({ challenge: passkeyChallenge, origin: t.origin!, rpId, signCount: 0, uv: true, userHandle: user.userHandle });
  const res = await b.request(new URL(action, step.url), { form: { form_token: formToken(step.html!), response: JSON.stringify(answer) } });
  const location = res.headers.get('location');
  const done = location ? await b.follow(new URL(location, step.url)) : undefined;
  if (!done?.left) throw new Error(`the passkey login did not return to the app: ${done?.url.pathname} ${done?.html?.match(/role="alert"[^>]*>[^<]*/)?.[0] ?? ''}`);
  const tokens = await redeem(t, done.left, verifier);
  const claims = JSON.parse(Buffer.from(String(tokens.id_token).split('.')[1], 'base64url').toString()) as { amr?: string[] };
  if (claims.amr?.join(' ') !== 'hwk user mfa') throw new Error(`the passkey login's ID token has amr ${JSON.stringify(claims.amr)}`);
  return tokens;
}

/** N refresh chains by full logins (Keyhold), one per virtual user. */
export async function prepareChains(t: SurfaceTarget, count: number): Promise<Chain[]> {
  const chains: Chain[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(8, count) }, async () => {
      while (next < count) {
        const i = next++;
        const tokens = await passwordLogin(t, t.loginUsers![i % t.loginUsers!.length], true, loopback(i));
        if (typeof tokens.refresh_token !== 'string') throw new Error('the login with offline_access answered without a refresh token');
        chains[i] = { refreshToken: tokens.refresh_token, accessToken: tokens.access_token as string };
      }
    }),
  );
  return chains;
}

/** The timed operation of a scenario for virtual user `vu`. */
export function surfaceOperation(t: SurfaceTarget, scenario: SurfaceScenario): (vu: number) => Promise<void> {
  const base = new URL(t.baseUrl);
  const cc = (client: ClientCredentials, jwt: boolean) => async () => {
    const body = await postForm(base, ROUTES.token, client, { grant_type: 'client_credentials' });
    const token = body.access_token;
    if (typeof token !== 'string' || token.includes('.') !== jwt) throw new Error(`client_credentials answered without a${jwt ? ' JWT' : 'n opaque'} access token`);
  };
  const chain = (vu: number) => {
    const c = t.chains[vu % t.chains.length];
    if (!c) throw new Error('no prepared refresh chain');
    return c;
  };
  switch (scenario) {
    case 'cc-bearer':
      return cc(t.ccBearer, false);
    case 'cc-jwt':
      return cc(t.ccJwt, true);
    case 'refresh':
      return async (vu) => {
        const c = chain(vu);
        const body = await postForm(base, ROUTES.token, t.app, { grant_type: 'refresh_token', refresh_token: c.refreshToken });
        if (typeof body.refresh_token !== 'string' || body.refresh_token === c.refreshToken) throw new Error('the refresh was not rotated');
        c.refreshToken = body.refresh_token;
        c.accessToken = body.access_token as string;
      };
    case 'introspect':
      return async (vu) => {
        const body = await postForm(base, ROUTES.introspect, t.app, { token: chain(vu).accessToken });
        if (body.active !== true) throw new Error('introspection: token not active');
      };
    case 'userinfo':
      return async (vu) => {
        const res = await request(base, 'GET', ROUTES.userinfo, { authorization: `Bearer ${chain(vu).accessToken}` });
        if (res.status !== 200 || !(JSON.parse(res.text) as { sub?: string }).sub) throw new Error(`userinfo: HTTP ${res.status} ${res.text.slice(0, 200)}`);
      };
    case 'login':
      return async (vu) => {
        await passwordLogin(t, t.loginUsers![vu % t.loginUsers!.length], false, loopback(vu));
      };
    case 'login-key':
      return async (vu) => {
        await keyLogin(t, t.keyUsers![vu % t.keyUsers!.length], loopback(vu));
      };
    case 'login-passkey':
      return async (vu) => {
        await passkeyLogin(t, t.passkeyUsers![vu % t.passkeyUsers!.length], loopback(vu));
      };
  }
}
