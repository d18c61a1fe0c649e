// The OpenID Provider and the waits on PostgreSQL while the database struggles,
// as clients see them. One Keyhold (in this process, 3 pooled connections)
// reaches PostgreSQL through the relay of outage-relay.ts, so the shared server
// is never touched:
// - server stopped: every OpenID endpoint family answers its protocol's
//   "temporarily unavailable" with Retry-After (JSON 503, a redirect to the
//   app's registered redirect_uri, a 503 page in the user's language), and
//   serves again by itself when the server is back;
// - a table locked by another session, more requests than connections: every
//   request answers 503 within the wait bound, and /readyz within its own;
// - a statement past statement_timeout: 503, logged once with a count, never
//   with the statement's values.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_WAIT_BOUNDS } from '../../src/store/wait-bounds.js';
import { addApp, browser } from '../support/oidc-login.js';
import { announcePostgresSkip, createPostgresDatabase, postgresAvailable, type PostgresDatabase } from '../support/databases.js';
import { startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { Relay } from './outage-relay.js';

announcePostgresSkip('OpenID Provider and wait bounds during database faults on PostgreSQL');

const POOL_SIZE = 3;
/** A request's answer: the wait bound and a margin for a busy machine. */
const ANSWER_LIMIT_MS = DATABASE_WAIT_BOUNDS.waitMs + 1_500;
const READY_LIMIT_MS = DATABASE_WAIT_BOUNDS.readyMs + 1_000;
const REDIRECT_URI = 'https://app.example/cb';

const form = (fields: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams(fields).toString(),
  redirect: 'manual',
});

async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('not recovered in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!postgresAvailable)('database faults: the OpenID Provider and bounded waits (PostgreSQL via a relay)', () => {
  let pg: PostgresDatabase | undefined;
  let relay: Relay | undefined;
  let kh: TestKeyhold;
  let admin: postgres.Sql | undefined;
  let base: string;
  let projectId: string;
  let web: { clientId: string; clientSecret?: string };
  let device: { clientId: string };
  let basic: string;

  beforeAll(async () => {
    pg = await createPostgresDatabase();
    const direct = new URL(pg.url);
    relay = new Relay({ host: direct.hostname, port: Number(direct.port || 5432) });
    await relay.listen();
    const viaRelay = new URL(pg.url);
    viaRelay.hostname = '127.0.0.1';
    viaRelay.port = String(relay.port);
    kh = await startTestKeyhold({ env: { DATABASE_URL: viaRelay.toString(), KEYHOLD_DATABASE_POOL_SIZE: String(POOL_SIZE) } });
    admin = postgres(pg.url, { max: 2, onnotice: () => {} });
    base = `http://localhost:${kh.port}`;
    const project = await kh.rest('POST', '/management/v1/projects', { name: 'faults' });
    projectId = project.body.id;
    web = await addApp(kh, projectId, { redirectUris: [REDIRECT_URI], responseTypes: ['OIDC_RESPONSE_TYPE_CODE'], grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'], devMode: true });
    device = await addApp(kh, projectId, { appType: 'OIDC_APP_TYPE_NATIVE', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'] });
    basic = `Basic ${Buffer.from(`${encodeURIComponent(web.clientId)}:${encodeURIComponent(web.clientSecret!)}`).toString('base64')}`;
  }, 60_000);

  afterAll(async () => {
    await kh?.close();
    await admin?.end({ timeout: 5 });
    await relay?.close();
    await pg?.drop();
  });

  const authorizeUrl = (clientId: string) =>
    `${base}/oauth/v2/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT_URI, response_type: 'code', scope: 'openid', state: 'st4te', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`;

  /** Every endpoint family, asked once; each answer as the test checks it. */
  function askAll(loginUrl: string, cookies: string) {
    const jsonCall = (path: string, init: RequestInit) => fetch(base + path, init);
    return {
      token: jsonCall('/oauth/v2/token', form({ grant_type: 'authorization_code', code: 'no-such-code', redirect_uri: REDIRECT_URI, code_verifier: 'x'.repeat(43) }, { authorization: basic })),
      introspection: jsonCall('/oauth/v2/introspect', form({ token: 'no-such-token' }, { authorization: basic })),
      revocation: jsonCall('/oauth/v2/revoke', form({ token: 'no-such-token' }, { authorization: basic })),
      userinfo: jsonCall('/oidc/v1/userinfo', { headers: { authorization: 'Bearer no-such-token' } }),
      deviceAuthorization: jsonCall('/oauth/v2/device_authorization', form({ client_id: device.clientId, scope: 'openid' })),
      devicePage: fetch(`${base}/ui/login/device`, { headers: { accept: 'text/html', 'accept-language': 'de' } }),
      loginPage: fetch(loginUrl, { headers: { accept: 'text/html', 'accept-language': 'de', cookie: cookies } }),
    };
  }

  it('every OpenID endpoint family answers "temporarily unavailable" with Retry-After while the server is stopped, and serves again when it is back', async () => {
    // A sign-in in progress, to come back to during the outage.
    const b = browser(base);
    const started = await b.request(authorizeUrl(web.clientId));
    expect(started.status).toBe(303);
    const loginUrl = new URL(started.headers.get('location')!, base).toString();
    const cookies = b.jar.header(new URL(loginUrl));
    expect((await fetch(loginUrl, { headers: { cookie: cookies } })).status).toBe(200);

    await relay!.stop();
    try {
      // The app was read a moment ago (client cache): the authorization endpoint can redirect to its
      // registered redirect_uri with the protocol's error; an app it cannot read gets a 503 page.
      const authorize = await fetch(authorizeUrl(web.clientId), { redirect: 'manual' });
      expect(authorize.status).toBe(303);
      const back = new URL(authorize.headers.get('location')!);
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
      expect(back.searchParams.get('error')).toBe('temporarily_unavailable');
      expect(back.searchParams.get('state')).toBe('st4te');
      const unknownApp = await fetch(authorizeUrl('no-such-client'), { redirect: 'manual', headers: { accept: 'text/html', 'accept-language': 'de' } });
      expect(unknownApp.status).toBe(503);
      expect(unknownApp.headers.get('retry-after')).toBe('1');
      expect(await unknownApp.text()).toContain('Datenbank');

      const answers = askAll(loginUrl, cookies);
      for (const name of ['token', 'introspection', 'revocation', 'userinfo', 'deviceAuthorization'] as const) {
        const res = await answers[name];
        const body = await res.json();
        expect({ name, status: res.status, error: body.error, retryAfter: res.headers.get('retry-after') }).toEqual({ name, status: 503, error: 'temporarily_unavailable', retryAfter: '1' });
        expect(body.error_description).toMatch(/database/);
      }
      for (const name of ['devicePage', 'loginPage'] as const) {
        const res = await answers[name];
        expect({ name, status: res.status, retryAfter: res.headers.get('retry-after'), type: res.headers.get('content-type') }).toEqual({ name, status: 503, retryAfter: '1', type: 'text/html; charset=utf-8' });
        expect(await res.text()).toContain('Der Server erreicht gerade seine Datenbank nicht');
      }
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toBe('1');
    } finally {
      await relay!.restore();
    }

    // Back by itself: the same requests get their ordinary answers.
    await until(async () => (await fetch(`${base}/readyz`)).status === 200, 10_000);
    const answers = askAll(loginUrl, cookies);
    expect((await (await answers.token).json()).error).toBe('invalid_grant');
    expect((await (await answers.introspection).json()).active).toBe(false);
    expect((await answers.revocation).status).toBe(200);
    expect((await answers.userinfo).status).toBe(401);
    expect((await answers.deviceAuthorization).status).toBe(200);
    expect((await answers.devicePage).status).toBe(200);
    expect((await answers.loginPage).status).toBe(200);
    const authorize = await fetch(authorizeUrl(web.clientId), { redirect: 'manual' });
    expect(authorize.status).toBe(303);
    expect(authorize.headers.get('location')).toContain('/ui/login/');
  }, 40_000);

  it('with a table locked by another session and more requests than connections, every request answers 503 within the wait bound and /readyz within its own', async () => {
    // Warm: the caller's token and the app are cached, so what waits is the locked tables themselves.
    expect((await kh.rest('GET', `/management/v1/projects/${projectId}`)).status).toBe(200);
    const locked = admin!.reserve();
    const holder = await locked;
    await holder`begin`;
    await holder`lock table projects, oidc_payloads in access exclusive mode`;
    try {
      const t0 = Date.now();
      const timed = async (run: () => Promise<{ status: number; error?: string; retryAfter: string | null }>) => ({ ...(await run()), ms: Date.now() - t0 });
      const api = () =>
        timed(async () => {
          const res = await kh.rest('GET', `/management/v1/projects/${projectId}`);
          return { status: res.status, error: res.body?.details?.[0]?.reason ?? res.body?.code, retryAfter: res.headers.get('retry-after') };
        });
      const introspect = () =>
        timed(async () => {
          const res = await fetch(`${base}/oauth/v2/introspect`, form({ token: 'no-such-token' }, { authorization: basic }));
          return { status: res.status, error: (await res.json()).error, retryAfter: res.headers.get('retry-after') };
        });
      const requests = [...Array.from({ length: 5 }, api), ...Array.from({ length: 5 }, introspect)];
      await new Promise((r) => setTimeout(r, 200));
      const readyStarted = Date.now();
      const ready = await fetch(`${base}/readyz`);
      const readyMs = Date.now() - readyStarted;
      const answers = await Promise.all(requests);
      console.log(
        `[faults] table locked, ${requests.length} requests on ${POOL_SIZE} connections: all 503 in ${Math.min(...answers.map((a) => a.ms))}–${Math.max(...answers.map((a) => a.ms))} ms ` +
          `(bound ${DATABASE_WAIT_BOUNDS.waitMs} ms, lock_timeout ${DATABASE_WAIT_BOUNDS.lockTimeoutMs} ms); /readyz ${ready.status} in ${readyMs} ms`,
      );
      for (const a of answers) {
        expect(a.status).toBe(503);
        expect(a.retryAfter).toBe('1');
        expect(a.ms).toBeLessThan(ANSWER_LIMIT_MS);
      }
      expect(answers.slice(5).every((a) => a.error === 'temporarily_unavailable')).toBe(true);
      expect(readyMs).toBeLessThan(READY_LIMIT_MS);
    } finally {
      await holder`rollback`;
      holder.release();
    }
    await until(async () => (await kh.rest('GET', `/management/v1/projects/${projectId}`)).status === 200, 10_000);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  }, 40_000);

  it('a statement past statement_timeout answers 503 and is logged once with a count, without its values', async () => {
    await admin!.unsafe(`create function keyhold_test_slow() returns trigger language plpgsql as $$ begin perform pg_sleep(${DATABASE_WAIT_BOUNDS.statementTimeoutMs / 1000 + 1}); return new; end $$`);
    await admin!.unsafe('create trigger keyhold_test_slow before insert on events for each row execute function keyhold_test_slow()');
    const logFrom = kh.logLines.length;
    const secretName = `secret-project-name-${Math.random().toString(36).slice(2)}`;
    try {
      const t0 = Date.now();
      const answers = await Promise.all([1, 2, 3].map((i) => kh.rest('POST', '/management/v1/projects', { name: `${secretName}-${i}` })));
      const ms = Date.now() - t0;
      for (const a of answers) {
        expect(a.status).toBe(503);
        expect(a.headers.get('retry-after')).toBe('1');
      }
      expect(ms).toBeLessThan(DATABASE_WAIT_BOUNDS.statementTimeoutMs + 2_000);
    } finally {
      await admin!.unsafe('drop trigger keyhold_test_slow on events');
      await admin!.unsafe('drop function keyhold_test_slow()');
    }
    // The count of the repeats is written at the end of the interval, or at shutdown.
    await kh.stop();
    // The server's statement_timeout and Keyhold's own wait bound are both 5 s: on a loaded machine either
    // may end a statement first, and a write that ran beside the stalled one may instead wait on its lock
    // past lock_timeout. Each kind is one line, then a count: a first line stands for one failure, a count
    // line for as many as it says — the three failures, in at most two lines per kind.
    // (Only AddProject's: the count lines of the test before, flushed at the stop, are another RPC's.)
    const errorLines = kh.logLines.slice(logFrom).filter((l) => JSON.parse(l).level >= 50);
    const lines = errorLines.filter((l) => l.includes('"rpc":"AddProject"'));
    const counted = lines.reduce((n, l) => n + ((JSON.parse(l).repeated as number | undefined) ?? 1), 0);
    expect(counted, `AddProject's failures in the log:\n${errorLines.join('\n')}`).toBe(3);
    for (const l of lines) expect(l).toMatch(/statement timeout|lock timeout|did not answer in time/);
    const kindOf = (l: string) => (JSON.parse(l).err as { message: string }).message;
    expect(lines.length).toBeLessThanOrEqual(2 * new Set(lines.map(kindOf)).size);
    expect(kh.logLines.slice(logFrom).join('\n')).not.toContain(secretName);
  }, 40_000);
});
