// The device's side of RFC 8628 (§3.4, §3.5), as its HTTP requests see it:
// authorization_pending while the user has not signed in, slow_down (and an
// interval that grows by 5 seconds) when it polls too fast, expired_token —
// not invalid_grant — for a code that ran out. Short lifetimes keep it fast;
// the configuration is refused when out of bounds; bad input is never a 500;
// with TEST_DATABASE_URL, two processes on one PostgreSQL share one count.
import * as oidc from 'openid-client';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/server/config.js';
import { startKeyhold, type RunningKeyhold } from '../../../src/server/start.js';
import { announcePostgresSkip, postgresAvailable, TEST_MASTER_KEY, tempDir } from '../../support/databases.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken, sendTo } from '../../support/oidc-login.js';

/**
 * Long enough for the slow_down test's four polls on a loaded machine (3 s was not: a code
 * ran out before the fourth poll), short enough for the expiry test to wait it out.
 */
const LIFETIME = 8;

describe('device polling', () => {
  let kh: TestKeyhold;
  let base: string;
  let config: oidc.Configuration;
  let clientId: string;
  /** The expiry test's code, started before the other tests so that their time counts toward its lifetime. */
  let expiring: oidc.DeviceAuthorizationResponse;
  let expiringAt: number;

  /** One poll as a device sends it: the token endpoint's status and JSON answer. */
  async function poll(deviceCode: string): Promise<{ status: number; body: Record<string, any> }> {
    const res = await fetch(`${base}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode, client_id: clientId }),
    });
    return { status: res.status, body: await res.json() };
  }

  beforeAll(async () => {
    kh = await startTestKeyhold({ env: { KEYHOLD_DEVICE_CODE_LIFETIME_SECONDS: String(LIFETIME), KEYHOLD_DEVICE_POLL_INTERVAL_SECONDS: '1' } });
    base = `http://localhost:${kh.port}`;
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Kiosk' })).body.id;
    ({ clientId } = await addApp(kh, projectId, {
      appType: 'OIDC_APP_TYPE_NATIVE',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'],
    }));
    config = await oidc.discovery(new URL(base), clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    expiring = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    expiringAt = Date.now();
  }, 60_000);
  afterAll(async () => kh?.close());

  it('the configuration: defaults of 300 s and 5 s; values out of bounds are refused naming the variable', () => {
    const { lifetimes } = loadConfig({}).oidc;
    expect([lifetimes.deviceCode, lifetimes.devicePollInterval]).toEqual([300, 5]);
    expect(() => loadConfig({ KEYHOLD_DEVICE_CODE_LIFETIME_SECONDS: '5m' })).toThrow(/KEYHOLD_DEVICE_CODE_LIFETIME_SECONDS: expected a whole number/);
    expect(() => loadConfig({ KEYHOLD_DEVICE_POLL_INTERVAL_SECONDS: '0' })).toThrow(ConfigError);
  });

  it('a first poll right away is authorization_pending; polling faster than the interval is slow_down, and the interval grows by 5 s each time', async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    expect(started.interval).toBe(1);
    expect(started.expires_in).toBe(LIFETIME);
    expect(await poll(started.device_code)).toMatchObject({ status: 400, body: { error: 'authorization_pending' } });
    const second = await poll(started.device_code);
    expect(second).toMatchObject({ status: 400, body: { error: 'slow_down' } });
    expect(second.body.error_description).toMatch(/wait at least 6 seconds between polls/);
    const third = await poll(started.device_code);
    expect(third.body.error).toBe('slow_down');
    expect(third.body.error_description).toMatch(/wait at least 11 seconds/);
    // Past the configured interval, but not the grown one: still too fast.
    await new Promise((r) => setTimeout(r, 1_200));
    const fourth = await poll(started.device_code);
    expect(fourth.body.error).toBe('slow_down');
    expect(fourth.body.error_description).toMatch(/wait at least 16 seconds/);
  }, 30_000);

  it('a device keeping to the interval is never told to slow down', async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    for (let i = 0; i < 2; i++) {
      expect((await poll(started.device_code)).body.error).toBe('authorization_pending');
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }, 30_000);

  it('bad input gets a clear 4xx or the page with its message, never a 500', async () => {
    const form = (body: Record<string, string>) => ({ method: 'POST', redirect: 'manual' as const, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });
    const answers = await Promise.all([
      fetch(`${base}/oauth/v2/device_authorization`, form({})),
      fetch(`${base}/oauth/v2/device_authorization`, form({ client_id: clientId, scope: 'openid \u0000' })),
      fetch(`${base}/oauth/v2/token`, form({ client_id: clientId, grant_type: 'urn:ietf:params:oauth:grant-type:device_code' })),
      fetch(`${base}/oauth/v2/token`, form({ client_id: clientId, grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: 'x'.repeat(5000) })),
      fetch(`${base}/ui/login/device`, form({ user_code: 'BCDF-GHJK' })),
      fetch(`${base}/ui/login/device?user_code=${'%00'.repeat(100)}`),
      fetch(`${base}/ui/login/device/no-such-interaction`, { redirect: 'manual' }),
    ]);
    const statuses = answers.map((a) => a.status);
    expect(statuses).toEqual([400, 400, 400, 400, 303, 200, 303]);
    // Without the page's session: back to the code page.
    expect(answers[4]!.headers.get('location')).toBe(`${base}/ui/login/device`);
    // With the session but without the form's token: the page says the form expired.
    const page = await fetch(`${base}/ui/login/device`);
    const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const stale = await fetch(`${base}/ui/login/device`, { ...form({ user_code: 'BCDF-GHJK', xsrf: 'stale' }), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie } });
    expect(stale.status).toBe(400);
    expect(await stale.text()).toContain('This form has expired. Enter the code again.');
  }, 30_000);

  // Last on purpose: its code was started in beforeAll, so its lifetime runs out while the tests above run.
  it('a code that ran out answers expired_token (kept past its expiry), and its page says so', async () => {
    const started = expiring;
    await new Promise((r) => setTimeout(r, Math.max(0, expiringAt + (LIFETIME + 1) * 1000 - Date.now())));
    const late = await poll(started.device_code);
    expect(late).toMatchObject({ status: 400, body: { error: 'expired_token' } });
    // openid-client's poller ends with it too.
    await expect(oidc.pollDeviceAuthorizationGrant(config, started)).rejects.toMatchObject({ error: 'expired_token' });
    // The user who types the code now is told it expired (the page's form, as a browser without script sends it).
    const page = await fetch(`${base}/ui/login/device`, { headers: { 'accept-language': 'en' } });
    const cookies = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const typed = await fetch(`${base}/ui/login/device`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies, 'accept-language': 'en' },
      body: new URLSearchParams({ xsrf, user_code: started.user_code }),
    });
    expect(await typed.text()).toContain('This code has expired. Start the sign-in on your device again.');
  }, 30_000);
});

announcePostgresSkip('device flow across two Keyhold processes');

describe.skipIf(!postgresAvailable)('device flow across two processes on one PostgreSQL', () => {
  const ISSUER = 'http://keyhold.test';
  let a: TestKeyhold;
  let b: RunningKeyhold;

  beforeAll(async () => {
    const env = { KEYHOLD_ISSUER: ISSUER, KEYHOLD_DEVICE_POLL_INTERVAL_SECONDS: '1' };
    a = await startTestKeyhold({ postgres: true, env });
    const config = loadConfig({ KEYHOLD_PORT: '0', KEYHOLD_DATA_DIR: await tempDir('keyhold-b-'), DATABASE_URL: a.config.databaseUrl!, KEYHOLD_MASTERKEY: TEST_MASTER_KEY, KEYHOLD_LOG_LEVEL: 'silent', ...env });
    b = await startKeyhold(config, pino({ level: 'silent' }));
  }, 90_000);
  afterAll(async () => {
    await b?.stop();
    await a?.close();
  });

  it('the code from one process is entered and signed in on it, polled on the other: slow_down counted across both, tokens at the end', async () => {
    const baseA = `http://localhost:${a.port}`;
    const baseB = `http://localhost:${b.port}`;
    const projectId = (await a.rest('POST', '/management/v1/projects', { name: 'Two rooms' })).body.id;
    expect((await a.rest('POST', '/v2/users/human', { username: 'roomie', profile: { givenName: 'R', familyName: 'M' }, email: { email: 'r@example.com' }, password: { password: 'one code two processes', changeRequired: false } })).status).toBe(200);
    const { clientId } = await addApp(a, projectId, { appType: 'OIDC_APP_TYPE_NATIVE', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'] });
    const started = await (await fetch(`${baseA}/oauth/v2/device_authorization`, { method: 'POST', body: new URLSearchParams({ client_id: clientId, scope: 'openid' }) })).json();
    const pollAt = async (base: string) =>
      (await fetch(`${base}/oauth/v2/token`, { method: 'POST', body: new URLSearchParams({ client_id: clientId, grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: started.device_code }) })).json();
    expect((await pollAt(baseA)).error).toBe('authorization_pending');
    expect((await pollAt(baseB)).error).toBe('slow_down');

    // The user, on process A's pages, without script: the code, the confirmation, the login.
    // The browser at the issuer's URLs (every redirect names them), its requests reaching A.
    const user = browser(ISSUER, {}, sendTo(baseA));
    const codePage = await (await user.request('/ui/login/device')).text();
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(codePage)![1]!;
    const confirm = await (await user.request('/ui/login/device', { form: { xsrf, user_code: started.user_code } })).text();
    expect(confirm).toContain(started.user_code);
    const toLogin = await user.request('/ui/login/device', { form: { xsrf: /name="xsrf" value="([^"]+)"/.exec(confirm)![1]!, user_code: started.user_code, confirm: 'yes' } });
    let step = await user.follow(new URL(toLogin.headers.get('location')!, ISSUER));
    const submit = async (name: string, form: Record<string, string>) => {
      const res = await user.request(new URL(formAction(step.html!, name)!, step.url), { form: { form_token: formToken(step.html!), ...form } });
      step = await user.follow(new URL(res.headers.get('location')!, step.url));
    };
    await submit('username', { username: 'roomie' });
    await submit('password', { username: 'roomie', password: 'one code two processes' });
    expect(step.html).toContain('Your device is signed in');

    // Signed in: the next poll, on B, gets the tokens (only a pending code is throttled).
    const tokens = await pollAt(baseB);
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.id_token).toBeTypeOf('string');
  }, 60_000);
});
