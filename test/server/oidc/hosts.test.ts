// Configuration, not the request: every URL Keyhold advertises or redirects to
// is the issuer's, whatever Host, X-Forwarded-Host or -Proto a client sends;
// discovery and the key set say how long they may be cached; X-Forwarded-For
// is believed from a trusted proxy only (the address of the rate limit, the
// login's and the token endpoint's throttles); the wrong-redirect-URI page lists the registered URIs only
// for a devMode app. Plain HTTP (node:http, which sends the Host it is given).
import { createClient, ConnectError, Code, type Interceptor } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { FREE_CLIENT_FAILURES } from '../../../src/server/oidc/throttle.js';
import { BUCKETS } from '../../../src/domain/identity/attempt-budget.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken, logIn, sendOverHttp, sendWithNodeHttp, type Send } from '../../support/oidc-login.js';

const FOREIGN = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', 'x-forwarded-port': '443' };
const REDIRECT = 'http://localhost:5177/cb';
const USERNAME = 'hosted';
const PASSWORD = 'a password for the right host';

/** Every absolute http(s) URL in a JSON document or a page. */
const urlsIn = (text: string) => [...text.matchAll(/https?:\/\/[^\s"'<>&]+/g)].map((m) => m[0]);

describe('a foreign Host, X-Forwarded-Host and -Proto', () => {
  let kh: TestKeyhold;
  let issuer: string;
  let projectId: string;
  beforeAll(async () => {
    kh = await startTestKeyhold();
    issuer = `http://localhost:${kh.port}`;
    projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Hosts' })).body.id;
    expect((await kh.rest('POST', '/v2/users/human', { username: USERNAME, profile: { givenName: 'H', familyName: 'O' }, email: { email: 'h@example.com' }, password: { password: PASSWORD, changeRequired: false } })).status).toBe(200);
  }, 60_000);
  afterAll(async () => kh?.close());

  it("discovery advertises the issuer's URLs only; discovery and the key set say how long they may be cached", async () => {
    const discovery = await sendWithNodeHttp(new URL(`${issuer}/.well-known/openid-configuration`), 'GET', FOREIGN, undefined);
    expect(discovery.status).toBe(200);
    const text = await discovery.text();
    const doc = JSON.parse(text);
    expect(doc.issuer).toBe(issuer);
    for (const name of ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'userinfo_endpoint', 'end_session_endpoint', 'introspection_endpoint', 'revocation_endpoint', 'device_authorization_endpoint']) {
      expect(doc[name], name).toMatch(new RegExp(`^${issuer}/`));
    }
    expect(urlsIn(text).filter((u) => !u.startsWith(`${issuer}/`) && u !== issuer)).toEqual([]);
    expect(discovery.headers.get('cache-control')).toBe('public, max-age=300');
    const keys = await sendWithNodeHttp(new URL(`${issuer}/oauth/v2/keys`), 'GET', FOREIGN, undefined);
    expect(keys.status).toBe(200);
    // Half the default publish lead of a successor key (1 h), at most 5 minutes.
    expect(keys.headers.get('cache-control')).toBe('public, max-age=300');
  });

  it("a login sent with them on every request: every redirect and page names the issuer, and the app gets its code", async () => {
    const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
    const locations: string[] = [];
    const pages: string[] = [];
    const recording: Send = async (url, method, headers, body) => {
      const res = await sendWithNodeHttp(url, method, headers, body);
      if (res.headers.get('location')) locations.push(res.headers.get('location')!);
      const text = await res.clone().text();
      if (text) pages.push(text);
      return res;
    };
    const url = new URL(`${issuer}/oauth/v2/authorize`);
    url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 'st', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSstw-cM', code_challenge_method: 'S256' }).toString();
    const back = await logIn(browser(issuer, FOREIGN, recording), url, USERNAME, PASSWORD);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('code')).toBeTruthy();
    expect(back.searchParams.get('iss')).toBe(issuer);
    // authorize → login, username → password, password → resume, resume → app: each absolute, each the issuer's (or the app's).
    expect(locations.length).toBeGreaterThanOrEqual(4);
    for (const location of locations) expect(location.startsWith(`${issuer}/`) || location.startsWith(`${REDIRECT}?`), location).toBe(true);
    expect(pages.join('\n')).not.toContain('evil.example');
  });
});

describe('X-Forwarded-For from a trusted proxy only (KEYHOLD_TRUSTED_PROXIES=127.0.0.1)', () => {
  // The test's connections come from loopback addresses of their own: 127.0.0.1 is the trusted proxy, the others are not.
  const PROXY = '127.0.0.1';
  let kh: TestKeyhold;
  let base: string;
  let clientId: string;
  beforeAll(async () => {
    kh = await startTestKeyhold({ env: { KEYHOLD_TRUSTED_PROXIES: `${PROXY}, fd00::/8`, KEYHOLD_RATE_LIMIT_PER_SECOND: '1', KEYHOLD_RATE_LIMIT_BURST: '1' } });
    base = `http://localhost:${kh.port}`;
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Sprayed' })).body.id;
    // The admin's token has a bucket of one per second as well.
    await new Promise((r) => setTimeout(r, 1100));
    clientId = (await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true })).clientId;
  }, 60_000);
  afterAll(async () => kh?.close());

  /** An unauthenticated REST call (the address's bucket is taken before authentication): 401, or 429 once the bucket is empty. */
  const call = async (from: string, forwardedFor: string) =>
    (await sendOverHttp({ localAddress: from })(new URL(`${base}/management/v1/projects/_search`), 'POST', { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor }, '{}')).status;

  it('the rate limit: behind the trusted proxy each forwarded client has its own bucket; from any other peer the header changes nothing', async () => {
    expect(await call(PROXY, '203.0.113.1')).toBe(401);
    expect(await call(PROXY, '203.0.113.1')).toBe(429);
    expect(await call(PROXY, '203.0.113.2')).toBe(401);
    // What a client wrote left of the address the proxy appended is not believed.
    expect(await call(PROXY, '203.0.113.2, 203.0.113.3')).toBe(401);
    expect(await call(PROXY, '198.51.100.9, 203.0.113.3')).toBe(429);
    const other = '127.0.0.23';
    expect(await call(other, '203.0.113.4')).toBe(401);
    expect(await call(other, '203.0.113.5')).toBe(429);
  });

  it('the same on gRPC (the fast path fastify never sees)', async () => {
    const grpc = (from: string, forwardedFor: string) => {
      const header: Interceptor = (next) => (req) => {
        req.header.set('x-forwarded-for', forwardedFor);
        return next(req);
      };
      const transport = createGrpcTransport({ baseUrl: `http://127.0.0.1:${kh.port}`, interceptors: [header], nodeOptions: { localAddress: from } as never });
      return createClient(ManagementService, transport)
        .listProjects({})
        .then(
          () => 'ok' as const,
          (e: unknown) => ConnectError.from(e).code,
        );
    };
    expect(await grpc(PROXY, '203.0.113.11')).toBe(Code.Unauthenticated);
    expect(await grpc(PROXY, '203.0.113.11')).toBe(Code.ResourceExhausted);
    expect(await grpc(PROXY, '203.0.113.12')).toBe(Code.Unauthenticated);
    expect(await grpc('127.0.0.24', '203.0.113.13')).toBe(Code.Unauthenticated);
    expect(await grpc('127.0.0.24', '203.0.113.14')).toBe(Code.ResourceExhausted);
  });

  it("the login's per-IP throttle counts the forwarded client behind the trusted proxy (an IPv6 client by its /64), and the peer itself otherwise", async () => {
    const authorize = new URL(`${base}/oauth/v2/authorize`);
    authorize.search = new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSstw-cM', code_challenge_method: 'S256' }).toString();
    /** From `from`: each attempt names another name nobody holds (spraying) and sends one wrong password claiming to be for `forwardedFor`. */
    let sprayed = 0;
    const sprayer = async (from: string) => {
      const b = browser(base, {}, sendOverHttp({ localAddress: from }));
      return async (forwardedFor: string) => {
        const first = await b.follow(authorize);
        const named = await b.request(new URL(formAction(first.html!, 'username')!, base), { form: { form_token: formToken(first.html!), username: `nobody-${++sprayed}` } });
        const form = await b.follow(new URL(named.headers.get('location')!, base));
        return (await b.request(new URL(formAction(form.html!, 'password')!, base), { form: { form_token: formToken(form.html!), password: 'wrong' }, headers: { 'x-forwarded-for': forwardedFor } })).text();
      };
    };
    const throttledIps = async () =>
      (await kh.database.sql.query<{ payload: { clientIp: string } }>({ text: `select payload from events where type = 'instance.login.throttled' order by position`, params: [] })).map((r) => r.payload.clientIp);

    const viaProxy = await sprayer(PROXY);
    for (let i = 0; i < BUCKETS['password.address'].free; i++) expect(await viaProxy('203.0.113.7')).toContain('The username or the password is wrong.');
    expect(await viaProxy('203.0.113.7')).toMatch(/Too many attempts/);
    // Another client behind the same proxy is not slowed.
    expect(await viaProxy('198.51.100.2')).toContain('The username or the password is wrong.');
    expect(await throttledIps()).toEqual(['203.0.113.7']);

    const direct = '127.0.0.25';
    const spray = await sprayer(direct);
    for (let i = 0; i < BUCKETS['password.address'].free; i++) expect(await spray(`198.51.100.${100 + i}`)).toContain('The username or the password is wrong.');
    expect(await spray('198.51.100.250')).toMatch(/Too many attempts/);
    expect(await throttledIps()).toEqual(['203.0.113.7', direct]);

    // IPv6 clients behind the proxy: a new address of one /64 for every try is still one guesser; the next /64 is another.
    for (let i = 0; i < BUCKETS['password.address'].free; i++) expect(await viaProxy(`2001:db8:0:7::${(i + 1).toString(16)}`)).toContain('The username or the password is wrong.');
    expect(await viaProxy('2001:db8:0:7:ffff::99')).toMatch(/Too many attempts/);
    expect(await viaProxy('2001:db8:0:8::1')).toContain('The username or the password is wrong.');
  }, 120_000);
});

describe("the token endpoint's client-secret throttle behind a trusted proxy", () => {
  let kh: TestKeyhold;
  let base: string;
  beforeAll(async () => {
    kh = await startTestKeyhold({ env: { KEYHOLD_TRUSTED_PROXIES: '127.0.0.1' } });
    base = `http://localhost:${kh.port}`;
  }, 60_000);
  afterAll(async () => kh?.close());

  it('wrong secrets spread over clients slow the forwarded client behind the proxy, and the peer itself otherwise', async () => {
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Secrets behind a proxy' })).body.id;
    const confidential = () => addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', devMode: true });
    const token = async (from: string, forwardedFor: string, clientId: string, secret: string) => {
      const basic = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
      const body = new URLSearchParams({ grant_type: 'authorization_code', code: 'no-such-code', redirect_uri: REDIRECT }).toString();
      return (await sendOverHttp({ localAddress: from })(new URL(`${base}/oauth/v2/token`), 'POST', { authorization: basic, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': forwardedFor }, body)).status;
    };
    /** FREE_CLIENT_FAILURES.ip wrong secrets, each client below its own allowance; `forwardedFor(i)` names the client of the i-th. */
    const spray = async (from: string, forwardedFor: (i: number) => string) => {
      for (let n = 0; n < FREE_CLIENT_FAILURES.ip; ) {
        const app = await confidential();
        for (let i = 0; i < FREE_CLIENT_FAILURES.client - 1 && n < FREE_CLIENT_FAILURES.ip; i++, n++) expect(await token(from, forwardedFor(n), app.clientId, `wrong-${i}`)).toBe(401);
      }
    };
    await spray('127.0.0.1', () => '203.0.113.50');
    const fresh = await confidential();
    expect(await token('127.0.0.1', '203.0.113.50', fresh.clientId, fresh.clientSecret!)).toBe(429);
    // The right secret from another client behind the proxy is checked (the code is what is wrong).
    expect(await token('127.0.0.1', '203.0.113.51', fresh.clientId, fresh.clientSecret!)).toBe(400);

    const direct = '127.0.0.26';
    await spray(direct, (i) => `198.51.100.${i + 1}`);
    const other = await confidential();
    expect(await token(direct, '198.51.100.200', other.clientId, other.clientSecret!)).toBe(429);
  }, 120_000);
});

describe('an unregistered redirect_uri', () => {
  let kh: TestKeyhold;
  let projectId: string;
  beforeAll(async () => {
    kh = await startTestKeyhold();
    projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Redirects' })).body.id;
  }, 60_000);
  afterAll(async () => kh?.close());

  const page = async (devMode: boolean) => {
    const app = await addApp(kh, projectId, { redirectUris: [REDIRECT, 'https://secret-staging.example/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode });
    const url = new URL(`http://localhost:${kh.port}/oauth/v2/authorize`);
    url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: 'http://localhost:5177/db', response_type: 'code', scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' }).toString();
    const res = await fetch(url, { redirect: 'manual', headers: { 'accept-language': 'en' } });
    expect(res.status).toBe(400);
    return res.text();
  };

  it("outside devMode the page names none of the app's registered URIs, only that this one is not registered and where its developer sees them", async () => {
    const html = await page(false);
    expect(html).toContain('invalid_redirect_uri');
    expect(html).toContain('The redirect_uri sent by the application is not registered for it.');
    expect(html).toContain('http://localhost:5177/db');
    expect(html).not.toContain(REDIRECT);
    expect(html).not.toContain('secret-staging.example');
    expect(html).toContain('GetAppByID');
  });

  it('in devMode the list and where the closest one differs stay', async () => {
    const html = await page(true);
    expect(html).toContain(REDIRECT);
    expect(html).toContain('secret-staging.example');
    expect(html).toContain('differs at character 23');
  });
});
