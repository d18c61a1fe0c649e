// The login's throttle over HTTP: beyond an account's free allowance even the
// right password waits and the page says how long; the account is never
// locked by it. Client secrets at the token endpoint: per client and per
// address, in the process's memory. The budgets' rules themselves:
// test/domain/identity/attempt-budget.test.ts; bursts and known browsers:
// guess-budgets.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS, FIRST_DELAY_SECONDS } from '../../../src/domain/identity/attempt-budget.js';
import { FREE_CLIENT_FAILURES } from '../../../src/server/oidc/throttle.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken, sendOverHttp } from '../../support/oidc-login.js';
import { loopback } from '../../support/client-address.js';

const FREE = BUCKETS['password.account.client'].free;

describe('at the login', () => {
  let kh: TestKeyhold;
  beforeAll(async () => {
    kh = await startTestKeyhold();
  }, 60_000);
  afterAll(async () => kh?.close());

  it('after repeated wrong passwords even the right one waits; the page says how long; the account is not locked', async () => {
    const base = `http://localhost:${kh.port}`;
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Throttle' })).body.id;
    const password = 'the right password 17';
    expect((await kh.rest('POST', '/v2/users/human', { username: 'guessed', profile: { givenName: 'G', familyName: 'U' }, email: { email: 'g@example.com' }, password: { password, changeRequired: false } })).status).toBe(200);
    const app = await addApp(kh, projectId, { redirectUris: ['http://localhost:5175/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
    const url = new URL(`${base}/oauth/v2/authorize`);
    url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: 'http://localhost:5175/cb', response_type: 'code', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSstw-cM', code_challenge_method: 'S256' }).toString();
    const b = browser(base);
    const first = await b.follow(url);
    const toPassword = await b.request(new URL(formAction(first.html!, 'username')!, base), { form: { form_token: formToken(first.html!), username: 'guessed' } });
    const pw = await b.follow(new URL(toPassword.headers.get('location')!, base));
    const attempt = async (p: string) => (await b.request(new URL(formAction(pw.html!, 'password')!, base), { form: { form_token: formToken(pw.html!), password: p } }));
    for (let i = 0; i < FREE; i++) expect(await (await attempt(`wrong ${i}`)).text()).toContain('The username or the password is wrong.');
    const slowed = await (await attempt(password)).text();
    expect(slowed).toMatch(/Too many attempts\. Wait \d+ seconds and try again\./);
    // Not locked: after the delay the right password goes through.
    await new Promise((r) => setTimeout(r, FIRST_DELAY_SECONDS * 1000 + 200));
    const ok = await attempt(password);
    expect(ok.status).toBe(303);
  }, 60_000);

  // Client authentication at the token endpoint (secret guessing): BASIC apps, plain HTTP.
  const tokenCall = (base: string, clientId: string, secret: string) =>
    fetch(`${base}/oauth/v2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'no-such-code', redirect_uri: 'http://localhost:5175/cb' }),
    });
  /** The same call from another loopback address (another machine, to Keyhold). */
  const tokenCallFrom = (from: string, base: string, clientId: string, secret: string) =>
    sendOverHttp({ localAddress: from })(
      new URL(`${base}/oauth/v2/token`),
      'POST',
      { authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      new URLSearchParams({ grant_type: 'authorization_code', code: 'no-such-code', redirect_uri: 'http://localhost:5175/cb' }).toString(),
    );
  const confidential = async () => {
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Secrets' })).body.id;
    return addApp(kh, projectId, { redirectUris: ['http://localhost:5175/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', devMode: true });
  };

  it('token endpoint: after repeated wrong secrets of one client from one address even the right one waits there (429, Retry-After); the same client elsewhere and other clients are not slowed', async () => {
    const base = `http://localhost:${kh.port}`;
    const app = await confidential();
    const other = await confidential();
    for (let i = 0; i < FREE_CLIENT_FAILURES.client; i++) {
      const res = await tokenCall(base, app.clientId, `wrong-${i}`);
      expect(res.status).toBe(401);
      expect((await res.json()).error).toBe('invalid_client');
    }
    const slowed = await tokenCall(base, app.clientId, app.clientSecret!);
    expect(slowed.status).toBe(429);
    expect(Number(slowed.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await slowed.json()).toMatchObject({ error: 'slow_down', error_description: expect.stringMatching(/wait \d+ seconds/) });
    // The same client from another address is not slowed: a client id is public, so wrong secrets
    // sent by anyone who knows it must not keep the app's own backend out.
    const elsewhere = await tokenCallFrom(loopback(41), base, app.clientId, app.clientSecret!);
    expect([elsewhere.status, (await elsewhere.json()).error]).toEqual([400, 'invalid_grant']);
    // Another client from the same address is not slowed (its secret is checked: the code is what is wrong).
    const fine = await tokenCall(base, other.clientId, other.clientSecret!);
    expect(fine.status).toBe(400);
    expect((await fine.json()).error).toBe('invalid_grant');
    // After the delay the right secret goes through.
    await new Promise((r) => setTimeout(r, FIRST_DELAY_SECONDS * 1000 + 200));
    const after = await tokenCall(base, app.clientId, app.clientSecret!);
    expect(after.status).toBe(400);
    expect((await after.json()).error).toBe('invalid_grant');
  }, 60_000);

  it('token endpoint: wrong secrets spread over many clients from one IP slow that IP', async () => {
    const base = `http://localhost:${kh.port}`;
    // Each client stays below its own allowance; the IP's allowance is reached (earlier tests in this file count too).
    const perClient = FREE_CLIENT_FAILURES.client - 1;
    let sent = 0;
    spraying: for (let n = 0; n * perClient < FREE_CLIENT_FAILURES.ip; n++) {
      const app = await confidential();
      for (let i = 0; i < perClient; i++) {
        const status = (await tokenCall(base, app.clientId, `wrong-${i}`)).status;
        if (status === 429) break spraying;
        expect(status).toBe(401);
        sent++;
      }
    }
    expect(sent).toBeLessThanOrEqual(FREE_CLIENT_FAILURES.ip);
    const fresh = await confidential();
    const slowed = await tokenCall(base, fresh.clientId, fresh.clientSecret!);
    expect(slowed.status).toBe(429);
    expect(slowed.headers.get('retry-after')).toBeTruthy();
  }, 60_000);
});
