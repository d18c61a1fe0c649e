// Introspection answers `active: true` only to a token's audience — the client
// it was issued to, or a confidential app of the same project — and only while
// what the token stands on is: its app an active client, its user active, a
// machine user's token only to that machine. Everyone else (another project,
// another org, a public app, a machine) learns nothing: `{active: false}`, no
// sub, scope, client_id or amr. Revocation: only the client the token was
// issued to, and nobody else is told the token exists. Real clients:
// openid-client's tokenIntrospection and tokenRevocation, each caller
// authenticated as itself.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg, inOrg } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { browser, logIn } from '../../support/oidc-login.js';

const REDIRECT = 'http://localhost:5177/cb';
const PASSWORD = 'introspected by few 3';
let kh: TestKeyhold;
let base: string;

beforeAll(async () => {
  kh = await startTestKeyhold();
  base = `http://localhost:${kh.port}`;
}, 60_000);
afterAll(async () => kh?.close());

const discover = (clientId: string, auth: oidc.ClientAuth) => oidc.discovery(new URL(base), clientId, undefined, auth, { execute: [oidc.allowInsecureRequests] });

async function project(name: string, orgId?: string): Promise<string> {
  const res = await kh.rest('POST', '/management/v1/projects', { name }, orgId ? inOrg(orgId) : {});
  expect(res.status).toBe(200);
  return res.body.id;
}

/** An app of the project and openid-client's configuration for it (BASIC, or NONE for a public one). */
async function app(projectId: string, orgId?: string, kind: 'confidential' | 'public' = 'confidential') {
  const body = {
    name: `app-${Math.random().toString(36).slice(2)}`,
    redirectUris: [REDIRECT],
    devMode: true,
    ...(kind === 'public' ? { authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT' } : { authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC' }),
  };
  const res = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, body, orgId ? inOrg(orgId) : {});
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const config = await discover(res.body.clientId, kind === 'public' ? oidc.None() : oidc.ClientSecretBasic(res.body.clientSecret));
  return { appId: res.body.appId as string, clientId: res.body.clientId as string, projectId, orgId, config };
}
type App = Awaited<ReturnType<typeof app>>;

async function machine(name: string) {
  const added = await kh.rest('POST', '/management/v1/users/machine', { userName: name, name });
  const secret = await kh.rest('PUT', `/management/v1/users/${added.body.userId}/secret`, {});
  const config = await discover(secret.body.clientId, oidc.ClientSecretBasic(secret.body.clientSecret));
  return { userId: added.body.userId as string, config, token: async () => (await oidc.clientCredentialsGrant(config)).access_token };
}

async function user(username: string): Promise<string> {
  const res = await kh.rest('POST', '/v2/users/human', { username, profile: { givenName: 'I', familyName: 'T' }, email: { email: `${username}@example.com` }, password: { password: PASSWORD, changeRequired: false } });
  expect(res.status).toBe(200);
  return res.body.userId;
}

async function tokenOf(a: App, username: string) {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(a.config, { redirect_uri: REDIRECT, scope: 'openid profile', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
  return (await oidc.authorizationCodeGrant(a.config, await logIn(browser(base), url, username, PASSWORD), { pkceCodeVerifier: verifier })).access_token;
}

const introspect = (by: { config: oidc.Configuration }, token: string) => oidc.tokenIntrospection(by.config, token);

describe('who may introspect', () => {
  it("a user's token: the app it was issued to and confidential apps of its project; no public app, other project, other org or machine", async () => {
    const orgB = await addOrg(kh, 'Introspection tenant');
    const p1 = await project('Audience');
    const [issuedTo, sameProject, publicSameProject, otherProject, otherOrg] = await Promise.all([
      app(p1),
      app(p1),
      app(p1, undefined, 'public'),
      project('Elsewhere').then((p) => app(p)),
      project('Tenant', orgB).then((p) => app(p, orgB)),
    ]);
    const m = await machine('introspecting-machine');
    const userId = await user('introspected.one');
    const token = await tokenOf(issuedTo, 'introspected.one');

    const answers = {
      issuedTo: await introspect(issuedTo, token),
      sameProject: await introspect(sameProject, token),
      publicSameProject: await introspect(publicSameProject, token),
      otherProject: await introspect(otherProject, token),
      otherOrg: await introspect(otherOrg, token),
      machine: await introspect(m, token),
    };
    expect(answers.issuedTo).toMatchObject({ active: true, sub: userId, client_id: issuedTo.clientId });
    expect(answers.sameProject).toMatchObject({ active: true, sub: userId, client_id: issuedTo.clientId });
    // Nothing else is told: not even who the token is for.
    for (const who of ['publicSameProject', 'otherProject', 'otherOrg', 'machine'] as const) expect(answers[who], who).toEqual({ active: false });
  });

  it('revocation: only the app the token was issued to; anyone else gets the answer an unknown token gets, and the token stays', async () => {
    const orgB = await addOrg(kh, 'Revocation tenant');
    const p = await project('Revoked');
    const [issuedTo, sameProject, otherOrg] = [await app(p), await app(p), await project('Other tenant', orgB).then((q) => app(q, orgB))];
    await user('revoked.one');
    const token = await tokenOf(issuedTo, 'revoked.one');
    for (const who of [otherOrg, sameProject]) {
      // Resolves as for any token it may not touch (RFC 7009: 200) — no "not yours" telling it the token exists.
      await oidc.tokenRevocation(who.config, token);
      expect(await introspect(issuedTo, token)).toMatchObject({ active: true });
    }
    await oidc.tokenRevocation(issuedTo.config, token);
    expect(await introspect(issuedTo, token)).toEqual({ active: false });
  });

  it("a machine user's token: only that machine", async () => {
    const [m1, m2] = [await machine('introspected-m1'), await machine('introspected-m2')];
    const someApp = await app(await project('Machines watched'));
    const token = await m1.token();
    expect(await introspect(m1, token)).toMatchObject({ active: true, client_id: m1.config.clientMetadata().client_id });
    expect(await introspect(m2, token)).toEqual({ active: false });
    expect(await introspect(someApp, token)).toEqual({ active: false });
  });
});

describe('while what the token stands on is', () => {
  it("inactive while the app it was issued to is deactivated; active again once it is reactivated", async () => {
    const p = await project('Paused app');
    const [issuedTo, sibling] = [await app(p), await app(p)];
    await user('introspected.paused');
    const token = await tokenOf(issuedTo, 'introspected.paused');
    expect(await introspect(sibling, token)).toMatchObject({ active: true });
    expect((await kh.rest('POST', `/management/v1/projects/${p}/apps/${issuedTo.appId}/_deactivate`, {})).status).toBe(200);
    expect(await introspect(sibling, token)).toEqual({ active: false });
    expect((await kh.rest('POST', `/management/v1/projects/${p}/apps/${issuedTo.appId}/_reactivate`, {})).status).toBe(200);
    expect(await introspect(sibling, token)).toMatchObject({ active: true });
  });

  it('inactive while its user is locked or deactivated — even a token that outlived the change (stored before tokens named their user)', async () => {
    const a = await app(await project('Users watched'));
    const userId = await user('introspected.locked');
    const token = await tokenOf(a, 'introspected.locked');
    expect(await introspect(a, token)).toMatchObject({ active: true });
    // As rows stored before tokens named their user: the lock cannot delete them, the state still counts.
    await kh.database.sql.query({ text: `update oidc_payloads set account_id = null where account_id = $1`, params: [userId] });
    for (const [step, undo] of [['lock', 'unlock'], ['deactivate', 'reactivate']]) {
      expect((await kh.rest('POST', `/v2/users/${userId}/${step}`, {})).status).toBe(200);
      expect(await introspect(a, token), step).toEqual({ active: false });
      expect((await kh.rest('POST', `/v2/users/${userId}/${undo}`, {})).status).toBe(200);
    }
  });

  it("a machine user's token ends with its lock: inactive after the unlock too", async () => {
    const m = await machine('introspected-locked-machine');
    const token = await m.token();
    expect(await introspect(m, token)).toMatchObject({ active: true });
    expect((await kh.rest('POST', `/v2/users/${m.userId}/lock`, {})).status).toBe(200);
    expect((await kh.rest('POST', `/v2/users/${m.userId}/unlock`, {})).status).toBe(200);
    expect(await introspect(m, token)).toEqual({ active: false });
    expect(await introspect(m, await m.token())).toMatchObject({ active: true });
  });
});
