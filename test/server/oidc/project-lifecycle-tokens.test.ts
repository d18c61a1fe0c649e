// What a project's life does to its apps' logins and tokens: a removed role
// is gone from the next introspection answer; a deactivated project's app
// cannot start a login or have its tokens accepted (userinfo, introspection),
// and can again once the project is reactivated; a removed project's app and
// tokens are gone. Another process on the same PostgreSQL refuses within the
// client cache's bound (1 s). Real clients: openid-client, the login UI over HTTP, a child Keyhold.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildKeyhold, type ChildKeyhold } from '../../support/child-keyhold.js';
import { announcePostgresSkip, postgresAvailable, tempDir } from '../../support/databases.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, logIn } from '../../support/oidc-login.js';

const PASSWORD = 'projects end their tokens 9';
const REDIRECT = 'http://localhost:5174/cb';
const ROLES = 'urn:keyhold:iam:org:project:roles';

interface Setup {
  projectId: string;
  config: oidc.Configuration;
  /** Tokens of a fresh login with the roles scope. */
  login(): Promise<oidc.TokenEndpointResponse>;
}

/** A project with roles editor and viewer, a user granted both, and a web app of the project. */
async function setUp(kh: TestKeyhold, name: string): Promise<Setup> {
  const base = `http://localhost:${kh.port}`;
  const projectId = (await kh.rest('POST', '/management/v1/projects', { name })).body.id as string;
  for (const roleKey of ['editor', 'viewer']) expect((await kh.rest('POST', `/management/v1/projects/${projectId}/roles`, { roleKey, displayName: roleKey })).status).toBe(200);
  const username = `${name.toLowerCase()}.user`;
  const user = await kh.rest('POST', '/v2/users/human', { username, profile: { givenName: 'P', familyName: 'L' }, email: { email: `${username}@example.com` }, password: { password: PASSWORD, changeRequired: false } });
  expect(user.status).toBe(200);
  expect((await kh.rest('POST', `/management/v1/users/${user.body.userId}/grants`, { projectId, roleKeys: ['editor', 'viewer'] })).status).toBe(200);
  const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', devMode: true });
  const config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.ClientSecretBasic(app.clientSecret!), { execute: [oidc.allowInsecureRequests] });
  const login = async () => {
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: `openid ${ROLES}`, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    const back = await logIn(browser(base), url, username, PASSWORD);
    return oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier });
  };
  return { projectId, config, login };
}

const userinfoAt = async (base: string, token: string) => (await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status;

/** Whether a login with the app can start: the authorization request reaches the login page (not an error). */
async function loginStarts(base: string, config: oidc.Configuration): Promise<boolean> {
  const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' });
  const step = await browser(base).follow(url);
  return step.page?.status === 200 && /name="username"/.test(step.html ?? '');
}

describe('one process', () => {
  let kh: TestKeyhold;
  let base: string;
  beforeAll(async () => {
    kh = await startTestKeyhold();
    base = `http://localhost:${kh.port}`;
  }, 60_000);
  afterAll(async () => kh?.close());

  it('a removed role is gone from the next introspection answer of a token issued before', async () => {
    const { projectId, config, login } = await setUp(kh, 'Roles');
    const tokens = await login();
    expect(Object.keys((await oidc.tokenIntrospection(config, tokens.access_token))[ROLES] as object).sort()).toEqual(['editor', 'viewer']);
    expect((await kh.rest('DELETE', `/management/v1/projects/${projectId}/roles/editor`)).status).toBe(200);
    expect(Object.keys((await oidc.tokenIntrospection(config, tokens.access_token))[ROLES] as object)).toEqual(['viewer']);
  });

  it('a deactivated project: no login starts, its tokens are refused at userinfo and introspection; reactivated, both work again', async () => {
    const { projectId, config, login } = await setUp(kh, 'Paused');
    const tokens = await login();
    expect(await userinfoAt(base, tokens.access_token)).toBe(200);
    expect(await loginStarts(base, config)).toBe(true);
    expect((await kh.rest('POST', `/management/v1/projects/${projectId}/_deactivate`, {})).status).toBe(200);
    expect(await userinfoAt(base, tokens.access_token)).toBe(401);
    await expect(oidc.tokenIntrospection(config, tokens.access_token)).rejects.toThrow();
    expect(await loginStarts(base, config)).toBe(false);
    expect((await kh.rest('POST', `/management/v1/projects/${projectId}/_reactivate`, {})).status).toBe(200);
    expect(await userinfoAt(base, tokens.access_token)).toBe(200);
    expect(await loginStarts(base, config)).toBe(true);
  });

  it('a removed project: its app cannot log in and its tokens are refused for good', async () => {
    const { projectId, config, login } = await setUp(kh, 'Removed');
    const tokens = await login();
    expect(await userinfoAt(base, tokens.access_token)).toBe(200);
    expect((await kh.rest('DELETE', `/management/v1/projects/${projectId}`)).status).toBe(200);
    expect(await userinfoAt(base, tokens.access_token)).toBe(401);
    await expect(oidc.tokenIntrospection(config, tokens.access_token)).rejects.toThrow();
    expect(await loginStarts(base, config)).toBe(false);
  });
});

announcePostgresSkip('project lifecycle tokens across two processes');

describe.skipIf(!postgresAvailable)('two processes on one PostgreSQL', () => {
  let a: TestKeyhold;
  let b: ChildKeyhold;
  beforeAll(async () => {
    a = await startTestKeyhold({ postgres: true });
    b = await startChildKeyhold({ dataDir: await tempDir('keyhold-projects-b-'), databaseUrl: a.config.databaseUrl!, env: { KEYHOLD_ISSUER: `http://localhost:${a.port}` } });
  }, 120_000);
  afterAll(async () => {
    await b?.kill('SIGTERM');
    await a?.close();
  });

  /** How long after `change` the other process refuses the token at userinfo (ms), polling every 50 ms up to 3 s. */
  async function refusedAfter(token: string, change: () => Promise<unknown>): Promise<number> {
    expect(await userinfoAt(b.url, token)).toBe(200);
    await change();
    const started = Date.now();
    while (Date.now() - started < 3000) {
      if ((await userinfoAt(b.url, token)) === 401) return Date.now() - started;
      await new Promise((r) => setTimeout(r, 50));
    }
    return Infinity;
  }

  it("a project deactivated or removed on one process: the other refuses its app's tokens within the caches' bound", async () => {
    const { projectId, login } = await setUp(a, 'Shared');
    const tokens = await login();
    const deactivated = await refusedAfter(tokens.access_token, () => a.rest('POST', `/management/v1/projects/${projectId}/_deactivate`, {}));
    expect(deactivated).toBeLessThanOrEqual(1_500); // 1 s cache + polling and request time
    expect((await a.rest('POST', `/management/v1/projects/${projectId}/_reactivate`, {})).status).toBe(200);
    // Back within the bound too.
    const started = Date.now();
    while ((await userinfoAt(b.url, tokens.access_token)) !== 200 && Date.now() - started < 3000) await new Promise((r) => setTimeout(r, 50));
    expect(Date.now() - started).toBeLessThanOrEqual(1_500);
    const removed = await refusedAfter(tokens.access_token, () => a.rest('DELETE', `/management/v1/projects/${projectId}`));
    expect(removed).toBeLessThanOrEqual(1_500);
  }, 60_000);
});
