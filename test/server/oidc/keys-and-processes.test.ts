// The OpenID Provider's keys and shared state: the master key (required with
// DATABASE_URL, generated 0600 on the embedded default), private keys sealed at
// rest, and two Keyhold processes on one PostgreSQL serving one login
// (authorize and the login UI on one, the token endpoint on the other); what
// one process deactivates (an app, a machine user) the other refuses within
// 2 s (PATs and users' API tokens: personal-access-tokens.test.ts,
// user-lifecycle.test.ts).
import { statSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/server/config.js';
import { startKeyhold, type RunningKeyhold } from '../../../src/server/start.js';
import { announcePostgresSkip, postgresAvailable, tempDir, TEST_MASTER_KEY } from '../../support/databases.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, logIn, sendTo } from '../../support/oidc-login.js';

describe('master key', () => {
  it('with DATABASE_URL and no KEYHOLD_MASTERKEY the configuration is refused, naming the variable', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/db' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/db' })).toThrow(/KEYHOLD_MASTERKEY/);
    expect(() => loadConfig({ KEYHOLD_MASTERKEY: 'too short' })).toThrow(/KEYHOLD_MASTERKEY: must be at least 32 characters/);
    expect(() => loadConfig({ KEYHOLD_ISSUER: 'ftp://x' })).toThrow(/KEYHOLD_ISSUER/);
  });

  it('on the embedded default it is generated into the data directory with mode 0600; the stored private keys are sealed', async () => {
    const kh = await startTestKeyhold();
    try {
      const file = path.join(kh.dataDir, 'masterkey');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const rows = await kh.database.sql.query<{ kid: string; use: string; sealed: string; public_jwk: any }>({ text: 'select kid, use, sealed, public_jwk from oidc_keys', params: [] });
      expect(rows.filter((r) => r.use === 'sig')).toHaveLength(2);
      for (const r of rows) {
        // Sealed: not JSON, no private exponent in sight; the public half carries none either.
        expect(() => JSON.parse(Buffer.from(r.sealed, 'base64url').toString('utf8'))).toThrow();
        expect(r.public_jwk?.d).toBeUndefined();
      }
      // The provider's state table keys tokens by hash: nothing there is a token (checked after a login in login-flow.suite.ts's flows).
    } finally {
      await kh.close();
    }
  }, 60_000);
});

announcePostgresSkip('two Keyhold processes serving one login');

describe.skipIf(!postgresAvailable)('two processes on one PostgreSQL', () => {
  const ISSUER = 'http://keyhold.test';
  let a: TestKeyhold;
  let b: RunningKeyhold;

  beforeAll(async () => {
    a = await startTestKeyhold({ postgres: true, env: { KEYHOLD_ISSUER: ISSUER } });
    const config = loadConfig({
      KEYHOLD_PORT: '0',
      KEYHOLD_DATA_DIR: await tempDir('keyhold-b-'),
      DATABASE_URL: a.config.databaseUrl!,
      KEYHOLD_MASTERKEY: TEST_MASTER_KEY,
      KEYHOLD_ISSUER: ISSUER,
      KEYHOLD_LOG_LEVEL: 'silent',
    });
    b = await startKeyhold(config, pino({ level: 'silent' }));
  }, 90_000);
  afterAll(async () => {
    await b?.stop();
    await a?.close();
  });

  it('both publish the same keys; authorize and login on one, token and userinfo on the other', async () => {
    const baseA = `http://localhost:${a.port}`;
    const baseB = `http://localhost:${b.port}`;
    const jwksA = await (await fetch(`${baseA}/oauth/v2/keys`)).json();
    const jwksB = await (await fetch(`${baseB}/oauth/v2/keys`)).json();
    expect(jwksB).toEqual(jwksA);

    const projectId = (await a.rest('POST', '/management/v1/projects', { name: 'Two' })).body.id;
    expect((await a.rest('POST', '/v2/users/human', { username: 'twin', profile: { givenName: 'T', familyName: 'W' }, email: { email: 't@example.com' }, password: { password: 'two processes one login', changeRequired: false } })).status).toBe(200);
    const app = await addApp(a, projectId, { redirectUris: ['http://localhost:5173/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', devMode: true });

    const verifier = oidc.randomPKCECodeVerifier();
    // The browser at the issuer's URLs (every redirect names them), its requests reaching A.
    const authorize = new URL(`${ISSUER}/oauth/v2/authorize`);
    authorize.search = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: 'http://localhost:5173/cb',
      response_type: 'code',
      scope: 'openid profile',
      nonce: 'n-2',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const back = await logIn(browser(ISSUER, {}, sendTo(baseA)), authorize, 'twin', 'two processes one login');
    expect(back.searchParams.get('iss')).toBe(ISSUER);

    const token = await fetch(`${baseB}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: 'http://localhost:5173/cb', code_verifier: verifier }),
    });
    expect(token.status).toBe(200);
    const tokens = (await token.json()) as { id_token: string; access_token: string };
    const { payload } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(`${baseB}/oauth/v2/keys`)), { issuer: ISSUER, audience: app.clientId });
    expect(payload.nonce).toBe('n-2');
    const info = await fetch(`${baseA}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(await info.json()).toMatchObject({ sub: payload.sub, preferred_username: 'twin' });
    // No token is stored as itself: the state table holds hashes of them.
    const rows = await a.database.sql.query<{ key: string; payload: unknown }>({ text: 'select key, payload from oidc_payloads', params: [] });
    expect(JSON.stringify(rows)).not.toContain(tokens.access_token);
  }, 60_000);

  it('a deactivated app gets no token from the other process within 2 s (code), nor a deactivated machine user (client_credentials); reactivated, both work again', async () => {
    const baseB = `http://localhost:${b.port}`;
    const REDIRECT = 'http://localhost:5173/cb';
    const projectId = (await a.rest('POST', '/management/v1/projects', { name: 'Two, deactivated' })).body.id;
    expect((await a.rest('POST', '/v2/users/human', { username: 'twin-off', profile: { givenName: 'T', familyName: 'O' }, email: { email: 'to@example.com' }, password: { password: 'two processes one switch', changeRequired: false } })).status).toBe(200);
    const app = await addApp(a, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', devMode: true });
    const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

    /** A code from a login on A, with its PKCE verifier. */
    const codeFromA = async () => {
      const verifier = oidc.randomPKCECodeVerifier();
      const authorize = new URL(`${ISSUER}/oauth/v2/authorize`);
      authorize.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' }).toString();
      const back = await logIn(browser(ISSUER, {}, sendTo(`http://localhost:${a.port}`)), authorize, 'twin-off', 'two processes one switch');
      return { code: back.searchParams.get('code')!, verifier };
    };
    const exchangeOnB = async ({ code, verifier }: { code: string; verifier: string }) => {
      const res = await fetch(`${baseB}/oauth/v2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(app.clientId, app.clientSecret!) },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }),
      });
      return { status: res.status, body: (await res.json()) as { error?: string; access_token?: string } };
    };
    /** B's authorize for the app: a redirect to its login while the app is a client, an error page once it is none. */
    const authorizeOnB = async () =>
      (await fetch(`${baseB}/oauth/v2/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`, { redirect: 'manual' })).status;
    /** Polls `refused` on B every 50 ms: ms until it holds, or Infinity after 3 s. */
    const refusedWithin = async (refused: () => Promise<boolean>) => {
      const from = Date.now();
      while (Date.now() - from < 3000) {
        if (await refused()) return Date.now() - from;
        await new Promise((r) => setTimeout(r, 50));
      }
      return Infinity;
    };

    // Accepted before: a code from A becomes tokens on B; B's authorize knows the client.
    expect((await exchangeOnB(await codeFromA())).status).toBe(200);
    expect(await authorizeOnB()).toBe(303);
    const pending = await codeFromA();

    // The machine user logs in by client_credentials on B.
    const bot = await a.rest('POST', '/management/v1/users/machine', { userName: 'twin-bot', name: 'twin-bot' });
    const secret = (await a.rest('PUT', `/management/v1/users/${bot.body.userId}/secret`, {})).body as { clientId: string; clientSecret: string };
    const clientCredentialsOnB = async () =>
      (
        await fetch(`${baseB}/oauth/v2/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(secret.clientId, secret.clientSecret) },
          body: new URLSearchParams({ grant_type: 'client_credentials' }),
        })
      ).status;
    expect(await clientCredentialsOnB()).toBe(200);

    // Deactivated through A: B gives the app no token and no login, and the machine no token.
    expect((await a.rest('POST', `/management/v1/projects/${projectId}/apps/${app.appId}/_deactivate`, {})).status).toBe(200);
    const appRefused = await refusedWithin(async () => (await authorizeOnB()) !== 303);
    expect(appRefused).toBeLessThanOrEqual(2000);
    const late = await exchangeOnB(pending);
    expect(late.status).toBe(401);
    expect(late.body.error).toBe('invalid_client');
    expect(late.body.access_token).toBeUndefined();
    expect((await a.rest('POST', `/v2/users/${bot.body.userId}/deactivate`, {})).status).toBe(200);
    const machineRefused = await refusedWithin(async () => (await clientCredentialsOnB()) === 401);
    expect(machineRefused).toBeLessThanOrEqual(2000);
    console.info(`refused on the other process after: app ${appRefused} ms, machine user ${machineRefused} ms`);

    // Reactivated through A: both are accepted on B again.
    expect((await a.rest('POST', `/management/v1/projects/${projectId}/apps/${app.appId}/_reactivate`, {})).status).toBe(200);
    expect(await refusedWithin(async () => (await authorizeOnB()) === 303)).toBeLessThanOrEqual(2000);
    expect((await exchangeOnB(await codeFromA())).status).toBe(200);
    expect((await a.rest('POST', `/v2/users/${bot.body.userId}/reactivate`, {})).status).toBe(200);
    expect(await refusedWithin(async () => (await clientCredentialsOnB()) === 200)).toBeLessThanOrEqual(2000);
  }, 90_000);

  it('a process with another master key refuses to start, naming KEYHOLD_MASTERKEY', async () => {
    const config = loadConfig({
      KEYHOLD_PORT: '0',
      KEYHOLD_DATA_DIR: await tempDir('keyhold-c-'),
      DATABASE_URL: a.config.databaseUrl!,
      KEYHOLD_MASTERKEY: 'a different master key of 32+ characters',
      KEYHOLD_LOG_LEVEL: 'silent',
    });
    await expect(startKeyhold(config, pino({ level: 'silent' }))).rejects.toThrow(/KEYHOLD_MASTERKEY/);
  }, 60_000);
});
