// The OpenID Provider's audit trail (logins, failed passwords, throttling,
// grants and their revocation are events), read back through the
// audit log's API (POST /admin/v1/events/_search) with real clients:
// openid-client for the grants, plain HTTP for the login pages.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS } from '../../../src/domain/identity/attempt-budget.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken, logIn } from '../../support/oidc-login.js';

let kh: TestKeyhold;
let base: string;
let projectId: string;
const REDIRECT = 'http://localhost:5173/callback';
const PASSWORD = 'audited password 17';

beforeAll(async () => {
  kh = await startTestKeyhold();
  base = `http://localhost:${kh.port}`;
  projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Audit' })).body.id;
}, 60_000);
afterAll(async () => kh?.close());

async function addUser(username: string): Promise<string> {
  const res = await kh.rest('POST', '/v2/users/human', { username, profile: { givenName: 'A', familyName: 'U' }, email: { email: `${username}@example.com` }, password: { password: PASSWORD, changeRequired: false } });
  expect(res.status).toBe(200);
  return res.body.userId;
}

type Listed = { type: string; payload: Record<string, unknown> };
/** The user's events in the audit log, oldest first; waits (the provider's events are recorded in the background) until `until` holds. */
async function auditOf(userId: string, until: (events: Listed[]) => boolean): Promise<Listed[]> {
  let events: Listed[] = [];
  for (let i = 0; i < 50; i++) {
    const res = await kh.rest('POST', '/admin/v1/events/_search', { aggregateId: userId, asc: true });
    expect(res.status).toBe(200);
    events = res.body.events ?? [];
    if (until(events)) return events;
    await new Promise((r) => setTimeout(r, 100));
  }
  return events;
}
const typesOf = (events: Listed[]) => events.map((e) => e.type);

describe('audit events of the OpenID Provider', () => {
  it('consent stores a grant; revoking the refresh token revokes the token and the grant; no token in any event', async () => {
    const userId = await addUser('audited');
    const app = await addApp(kh, projectId, {
      redirectUris: [REDIRECT],
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      devMode: true,
    });
    const config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.ClientSecretBasic(app.clientSecret!), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid profile offline_access',
      prompt: 'consent',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 's',
    });
    const back = await logIn(browser(base), url, 'audited', PASSWORD);
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: 's' });
    expect(tokens.refresh_token).toBeTruthy();

    const granted = await auditOf(userId, (e) => typesOf(e).includes('user.oidc.grant.saved'));
    expect(typesOf(granted)).toContain('user.login.succeeded');
    const saved = granted.find((e) => e.type === 'user.oidc.grant.saved')!;
    expect(saved.payload).toMatchObject({ clientId: app.clientId, scope: expect.stringContaining('offline_access') });
    const grantId = saved.payload.grantId;
    expect(grantId).toEqual(expect.any(String));

    await oidc.tokenRevocation(config, tokens.refresh_token!);
    const revoked = await auditOf(userId, (e) => typesOf(e).includes('user.oidc.grant.revoked') && typesOf(e).includes('user.oidc.token.revoked'));
    expect(revoked.find((e) => e.type === 'user.oidc.token.revoked')!.payload).toEqual({ grantId, clientId: app.clientId, tokenType: 'refresh_token' });
    expect(revoked.find((e) => e.type === 'user.oidc.grant.revoked')!.payload).toEqual({ grantId, clientId: app.clientId, reason: 'revocation' });
    // The grant's tokens ended with it.
    expect(await oidc.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: false });

    const all = JSON.stringify(revoked);
    for (const secret of [tokens.access_token, tokens.refresh_token!, tokens.id_token!, app.clientSecret!, PASSWORD]) expect(all).not.toContain(secret);
  }, 60_000);

  it('a reused refresh token revokes the grant, recorded with the reason reuse', async () => {
    const userId = await addUser('reused');
    const app = await addApp(kh, projectId, {
      redirectUris: [REDIRECT],
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      devMode: true,
    });
    const config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.ClientSecretBasic(app.clientSecret!), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid offline_access', prompt: 'consent', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: 's' });
    const tokens = await oidc.authorizationCodeGrant(config, await logIn(browser(base), url, 'reused', PASSWORD), { pkceCodeVerifier: verifier, expectedState: 's' });
    // The successor used, then the old token again: a reuse (before the successor's use it would be a retry).
    const next = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    await oidc.refreshTokenGrant(config, next.refresh_token!);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    const events = await auditOf(userId, (e) => typesOf(e).includes('user.oidc.grant.revoked'));
    expect(events.find((e) => e.type === 'user.oidc.grant.revoked')!.payload).toMatchObject({ clientId: app.clientId, reason: 'reuse' });
  }, 60_000);

  it('a code redeemed a second time revokes the grant, recorded with the reason reuse', async () => {
    const userId = await addUser('code-reused');
    const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', devMode: true });
    const config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.ClientSecretBasic(app.clientSecret!), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: 's' });
    const back = await logIn(browser(base), url, 'code-reused', PASSWORD);
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: 's' });
    await expect(oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: 's' })).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await oidc.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: false });
    const events = await auditOf(userId, (e) => typesOf(e).includes('user.oidc.grant.revoked'));
    expect(events.find((e) => e.type === 'user.oidc.grant.revoked')?.payload).toMatchObject({ clientId: app.clientId, reason: 'reuse' });
  }, 60_000);

  it('the wrong password that engages the throttle is recorded (by account), once, without the password', async () => {
    const userId = await addUser('throttled');
    const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
    const url = new URL(`${base}/oauth/v2/authorize`);
    url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSstw-cM', code_challenge_method: 'S256' }).toString();
    const b = browser(base);
    const first = await b.follow(url);
    const toPassword = await b.request(new URL(formAction(first.html!, 'username')!, base), { form: { form_token: formToken(first.html!), username: 'throttled' } });
    const pw = await b.follow(new URL(toPassword.headers.get('location')!, base));
    const attempt = (p: string) => b.request(new URL(formAction(pw.html!, 'password')!, base), { form: { form_token: formToken(pw.html!), password: p } });
    for (let i = 0; i < BUCKETS['password.account.client'].free - 1; i++) await attempt(`guess number ${i}`);
    expect(typesOf(await auditOf(userId, () => true))).not.toContain('user.login.throttled');
    await attempt('guess number last');
    // Refused during the delay: not recorded again.
    expect(await (await attempt('guess during delay')).text()).toMatch(/Too many attempts/);
    const events = await auditOf(userId, (e) => typesOf(e).includes('user.login.throttled'));
    const throttled = events.filter((e) => e.type === 'user.login.throttled');
    expect(throttled).toHaveLength(1);
    expect(throttled[0]!.payload).toEqual({ clientId: app.clientId, by: 'account', waitSeconds: 5 });
    expect(events.filter((e) => e.type === 'user.password.check.failed')).toHaveLength(BUCKETS['password.account.client'].free);
    expect(JSON.stringify(events)).not.toMatch(/guess number/);
  }, 60_000);

  // Last: once the client IP's throttle engages, every later try from it waits.
  it('spraying names nobody holds: the IP throttle engaging is an event of the instance, once, without the names or passwords', async () => {
    const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
    const url = new URL(`${base}/oauth/v2/authorize`);
    url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSstw-cM', code_challenge_method: 'S256' }).toString();
    /** One wrong password for a name of its own (spraying: one try per name). */
    const attempt = async (n: number) => {
      const b = browser(base);
      const first = await b.follow(url);
      const toPassword = await b.request(new URL(formAction(first.html!, 'username')!, base), { form: { form_token: formToken(first.html!), username: `nobody-sprayed-${n}` } });
      const pw = await b.follow(new URL(toPassword.headers.get('location')!, base));
      return (await b.request(new URL(formAction(pw.html!, 'password')!, base), { form: { form_token: formToken(pw.html!), password: `spray ${n}` } })).text();
    };
    const instanceEvents = async () =>
      ((await kh.rest('POST', '/admin/v1/events/_search', { aggregateTypes: ['instance'], eventTypes: ['instance.login.throttled'], asc: true })).body.events ?? []) as Listed[];
    expect(await instanceEvents()).toEqual([]);
    // Earlier tests' wrong passwords from this IP count too: try until the page says to wait.
    let tries = 0;
    while (!/Too many attempts/.test(await attempt(tries))) {
      tries++;
      expect(tries).toBeLessThanOrEqual(BUCKETS['password.address'].free);
    }
    const events = await instanceEvents();
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toEqual({ clientId: app.clientId, clientIp: expect.stringMatching(/127\.0\.0\.1|::1/), waitSeconds: 5 });
    expect(JSON.stringify(events)).not.toMatch(/nobody-sprayed|spray \d/);
  }, 60_000);
});
