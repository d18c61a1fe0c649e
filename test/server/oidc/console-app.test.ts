// The console's app and who may call Keyhold's API with an OpenID access token:
// bootstrap makes a `Keyhold` project with a USER_AGENT app (NONE + PKCE,
// redirect `<issuer>/console/`) once, at every start, allowed Keyhold's API;
// an access token granted the scope urn:keyhold:iam:api:aud calls the API as
// its user; a token an app got for its own use is refused (401), as is a revoked one.
import fs from 'node:fs';
import * as oidc from 'openid-client';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/server/config.js';
import { startKeyhold } from '../../../src/server/start.js';
import { tempDir } from '../../support/databases.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, logIn } from '../../support/oidc-login.js';

const API_SCOPE = 'urn:keyhold:iam:api:aud';
let kh: TestKeyhold;
let base: string;

beforeAll(async () => {
  kh = await startTestKeyhold();
  base = `http://localhost:${kh.port}`;
  expect((await kh.rest('POST', '/v2/users/human', { username: 'operator', profile: { givenName: 'O', familyName: 'P' }, email: { email: 'o@example.com' }, password: { password: 'operates the console 17', changeRequired: false } })).status).toBe(200);
}, 60_000);
afterAll(async () => kh?.close());

async function tokenFor(config: oidc.Configuration, redirect: string, scope: string) {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, { redirect_uri: redirect, scope, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
  const back = await logIn(browser(base), url, 'operator', 'operates the console 17');
  return oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier });
}

const me = (token: string) => fetch(`${base}/auth/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });

describe('the console app', () => {
  it('exists after bootstrap: project Keyhold, public USER_AGENT app keyhold-console redirecting to <issuer>/console/', async () => {
    const projects = await kh.rest('POST', '/management/v1/projects/_search', {});
    const listed = (projects.body.result ?? []) as { id: string; name: string }[];
    expect(listed.filter((p) => p.name === 'Keyhold')).toHaveLength(1);
    const config = await oidc.discovery(new URL(base), 'keyhold-console', undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const tokens = await tokenFor(config, `${base}/console/`, `openid profile ${API_SCOPE}`);
    // Its token calls the API as the user.
    const res = await me(tokens.access_token);
    expect(res.status).toBe(200);
    expect((await res.json()).user.username).toBe('operator');
    // Without PKCE a public client is refused (the library's rule for NONE apps).
    const plain = new URL(`${base}/oauth/v2/authorize`);
    plain.search = new URLSearchParams({ client_id: 'keyhold-console', redirect_uri: `${base}/console/`, response_type: 'code', scope: 'openid' }).toString();
    const refused = await fetch(plain, { redirect: 'manual' });
    expect(new URL(refused.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  it('another start finds it and makes no second one; it is allowed the API once, and a refusal stays', async () => {
    const dataDir = await tempDir('keyhold-console-');
    const config = loadConfig({ KEYHOLD_PORT: '0', KEYHOLD_DATA_DIR: dataDir, KEYHOLD_LOG_LEVEL: 'silent' });
    const query = async (running: Awaited<ReturnType<typeof startKeyhold>>, text: string) =>
      Number((await running.database.sql.query<{ n: number | string }>({ text, params: [] }))[0]!.n);
    const apps = "select count(*) as n from apps where client_id = 'keyhold-console'";
    const allowed = "select count(*) as n from apps where client_id = 'keyhold-console' and api_access";
    const decisions = "select count(*) as n from events where aggregate_id = 'keyhold-console' and type = 'app.api.access.changed'";
    const state = [];
    for (let i = 0; i < 5; i++) {
      const running = await startKeyhold(config, pino({ level: 'silent' }));
      try {
        state.push([await query(running, apps), await query(running, allowed), await query(running, decisions)]);
        // After the second start: an instance from before the setting (no decision, not allowed) …
        if (i === 1) await running.database.sql.query({ text: "delete from events where aggregate_id = 'keyhold-console' and type = 'app.api.access.changed'", params: [] });
        if (i === 1) await running.database.sql.query({ text: "update apps set api_access = false where client_id = 'keyhold-console'", params: [] });
        // … and after the third: an administrator's refusal.
        if (i === 2) {
          const admin = fs.readFileSync(config.adminPatFile, 'utf8').trim();
          const res = await fetch(`http://127.0.0.1:${running.port}/management/v1/projects/keyhold/apps/keyhold-console/api_access`, {
            method: 'PUT',
            headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
            body: JSON.stringify({ allowed: false }),
          });
          expect(res.status).toBe(200);
        }
      } finally {
        await running.stop();
      }
    }
    // [apps, allowed, decisions] at each start: one app, allowed once; the older instance allowed at its start; the refusal kept.
    expect(state).toEqual([
      [1, 1, 1],
      [1, 1, 1],
      [1, 1, 1],
      [1, 0, 2],
      [1, 0, 2],
    ]);
  }, 90_000);
});

describe('OpenID access tokens at the API', () => {
  it("a token an app got for its own use is refused (401); with the API scope (once allowed, after consent) it is accepted; revoked, refused", async () => {
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Third party' })).body.id;
    const app = await addApp(kh, projectId, { redirectUris: ['http://localhost:5178/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', devMode: true });
    const config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.ClientSecretBasic(app.clientSecret!), { execute: [oidc.allowInsecureRequests] });
    const own = await tokenFor(config, 'http://localhost:5178/cb', 'openid profile');
    expect((await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${own.access_token}` } })).status).toBe(200);
    expect((await me(own.access_token)).status).toBe(401);
    // The API scope is for apps an instance administrator allowed (test/server/oidc/api-audience.test.ts).
    await expect(tokenFor(config, 'http://localhost:5178/cb', `openid ${API_SCOPE}`)).rejects.toMatchObject({ error: 'invalid_scope' });
    expect((await kh.rest('PUT', `/management/v1/projects/${projectId}/apps/${app.appId}/api_access`, { allowed: true })).status).toBe(200);
    const forApi = await tokenFor(config, 'http://localhost:5178/cb', `openid ${API_SCOPE}`);
    expect((await me(forApi.access_token)).status).toBe(200);
    await oidc.tokenRevocation(config, forApi.access_token);
    expect((await me(forApi.access_token)).status).toBe(401);
  });
});
