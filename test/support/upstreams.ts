// Upstream providers a test signs in with, each a real server on a loopback
// port: a bare oidc-provider (generic OpenID Connect, its profile in the
// userinfo rather than the ID token), a GitHub-shaped OAuth 2.0 server (a
// numeric `id` from /user, no ID token), and a forging provider that signs ID
// tokens with whatever issuer and audience the test asks (what no honest
// upstream does, to check Keyhold refuses them).
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as jose from 'jose';
import Provider from 'oidc-provider';

// oidc-provider ships no types (src/server/oidc/oidc-provider.d.ts): its objects are used through these few names.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
import { CookieJar } from './oidc-login.js';

export interface Person {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
  /** What the upstream reports of its own login (RFC 8176). */
  amr?: string[];
}

export interface Upstream {
  url: string;
  clientId: string;
  clientSecret: string;
  /** Who signs in at the upstream's next authorization (changeable between sign-ins). */
  person: Person;
  /** How many requests reached the token endpoint so far (a code sent where it should not be shows here). */
  tokenRequests?: () => number;
  close(): Promise<void>;
}

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
const closing = (server: http.Server) => () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });

/** A bare oidc-provider: the person signs in at once (the interaction finished by the server), consent granted. */
export async function oidcUpstream(redirectUris: string[], person: Person): Promise<Upstream> {
  const clientId = `rp-${randomUUID()}`;
  const clientSecret = randomBytes(24).toString('base64url');
  const state: Upstream = { url: '', clientId, clientSecret, person, close: async () => {} };
  let provider: Any;
  let tokenRequests = 0;
  state.tokenRequests = () => tokenRequests;
  const { server, url } = await listen(async (req, res) => {
    if (!provider) return void res.writeHead(503).end();
    if (req.url?.startsWith('/token')) tokenRequests++;
    if (!req.url?.startsWith('/interaction/')) return provider.callback()(req, res);
    try {
      const details = await provider.interactionDetails(req, res);
      const accountId = state.person.sub;
      if (details.prompt.name === 'login') {
        await provider.interactionFinished(req, res, { login: { accountId, amr: state.person.amr } }, { mergeWithLastSubmission: false });
        return;
      }
      const grant = new provider.Grant({ accountId, clientId });
      grant.addOIDCScope('openid email profile');
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  provider = new Provider(url, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris, token_endpoint_auth_method: 'client_secret_post' }],
    claims: { openid: ['sub', 'amr'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'] },
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ ...state.person, sub }) }),
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: [randomBytes(16).toString('hex')] },
  });
  return Object.assign(state, { url, close: closing(server) });
}

/** A GitHub-shaped OAuth 2.0 server: /login/oauth/authorize, /login/oauth/access_token (JSON when asked), /user. */
export async function gitHubUpstream(redirectUris: string[], person: Person & { id: number }): Promise<Upstream & { person: Person & { id: number } }> {
  const clientId = `gh-${randomUUID()}`;
  const clientSecret = randomBytes(24).toString('base64url');
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const tokens = new Map<string, Person & { id: number }>();
  const state = { url: '', clientId, clientSecret, person, close: async () => {} };
  const { server, url } = await listen(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (u.pathname === '/login/oauth/authorize') {
      const redirectUri = u.searchParams.get('redirect_uri') ?? '';
      if (u.searchParams.get('client_id') !== clientId || !redirectUris.includes(redirectUri)) return json(400, { error: 'redirect_uri_mismatch' });
      const code = randomBytes(16).toString('hex');
      codes.set(code, { challenge: u.searchParams.get('code_challenge') ?? '', redirectUri });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', u.searchParams.get('state') ?? '');
      return void res.writeHead(302, { location: back.href }).end();
    }
    if (u.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      const held = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifierOk = held && jose.base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(form.get('code_verifier') ?? '')))) === held.challenge;
      if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) return json(401, { error: 'incorrect_client_credentials' });
      if (!held || !verifierOk || form.get('redirect_uri') !== held.redirectUri) return json(400, { error: 'bad_verification_code' });
      const token = `gho_${randomBytes(16).toString('hex')}`;
      tokens.set(token, { ...state.person });
      return json(200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }
    if (u.pathname === '/user') {
      const who = tokens.get((req.headers.authorization ?? '').replace(/^(?:Bearer|token) /i, ''));
      if (!who) return json(401, { message: 'Bad credentials' });
      return json(200, { login: who.preferred_username, id: who.id, name: who.name ?? null, email: who.email ?? null, type: 'User' });
    }
    json(404, { message: 'Not Found' });
  });
  return Object.assign(state, { url, close: closing(server) });
}

/** A provider that signs whatever ID token it is told to (issuer, audience): its discovery, keys, authorization and token endpoints. */
export async function forgingUpstream(redirectUris: string[], forge: () => { iss?: string; aud?: string; sub: string; nonce?: 'echo' | string }): Promise<Upstream> {
  const clientId = `forge-${randomUUID()}`;
  const clientSecret = randomBytes(24).toString('base64url');
  const { privateKey, publicKey } = await jose.generateKeyPair('ES256');
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const nonces = new Map<string, string>();
  let issuer = '';
  const { server, url } = await listen(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (u.pathname === '/.well-known/openid-configuration') {
      return json(200, { issuer, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`, response_types_supported: ['code'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['ES256'], code_challenge_methods_supported: ['S256'] });
    }
    if (u.pathname === '/jwks') return json(200, { keys: [jwk] });
    if (u.pathname === '/auth') {
      const code = randomBytes(16).toString('hex');
      nonces.set(code, u.searchParams.get('nonce') ?? '');
      const back = new URL(u.searchParams.get('redirect_uri') ?? '');
      if (!redirectUris.includes(back.href)) return json(400, { error: 'invalid_redirect_uri' });
      back.searchParams.set('code', code);
      back.searchParams.set('state', u.searchParams.get('state') ?? '');
      return void res.writeHead(302, { location: back.href }).end();
    }
    if (u.pathname === '/token') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const code = new URLSearchParams(body).get('code') ?? '';
      const claims = forge();
      const nonce = claims.nonce === 'echo' || claims.nonce === undefined ? nonces.get(code) : claims.nonce;
      const idToken = await new jose.SignJWT({ nonce })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(claims.iss ?? issuer)
        .setAudience(claims.aud ?? clientId)
        .setSubject(claims.sub)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
      return json(200, { access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', id_token: idToken, expires_in: 300 });
    }
    json(404, {});
  });
  issuer = url;
  return { url, clientId, clientSecret, person: { sub: '' }, close: closing(server) };
}

/** Follows an authorization URL through the upstream until it sends the browser to `redirectUri`: that callback URL. */
export async function throughUpstream(authorizationUrl: string, redirectUri: string, jar = new CookieJar()): Promise<URL> {
  let url = new URL(authorizationUrl);
  for (let i = 0; i < 12; i++) {
    if (url.href.startsWith(redirectUri)) return url;
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header(url) } });
    jar.take(res);
    const location = res.headers.get('location');
    if (!location) throw new Error(`upstream answered ${res.status} at ${url}: ${(await res.text()).slice(0, 300)}`);
    url = new URL(location, url);
  }
  throw new Error('too many redirects at the upstream');
}
