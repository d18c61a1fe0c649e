// What an operator sees of the login and the OpenID Provider, on one Keyhold
// behind a trusted proxy (KEYHOLD_TRUSTED_PROXIES=127.0.0.1): real logins over
// the login pages, code and refresh-token grants, client credentials, a
// security key and a recovery code — then the request log lines (client
// address through the proxy and despite a spoofed X-Forwarded-For, the
// User-Agent made safe, the OAuth client, the OAuth error of a refusal; no
// code, token, secret, password or cookie) and GET /metrics (each counter
// moved by exactly what happened, every label from a closed set).
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { MAX_USER_AGENT, userAgentOf } from '../../../src/server/http/requests.js';
import { noteOAuthErrors } from '../../../src/server/oidc/error-notes.js';
import { BUCKETS } from '../../../src/domain/identity/attempt-budget.js';
import { loopback } from '../../support/client-address.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { scrape, type Sample } from '../../support/metrics.js';
import { addApp, browser, formAction, formToken, logIn, sendOverHttp, type AppCreated, type Browser } from '../../support/oidc-login.js';
import { createSoftAuthenticator } from '../../support/soft-authenticator.js';
import { startRegistration } from '../../support/u2f.js';

const PASSWORD = 'an operator test passphrase';
const REDIRECT = 'https://app.example/cb';
const UA = 'OperatorTest/1.0 (signals)';
/** PKCE for the single-page app. */
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const IDENTITY_METRICS = ['keyhold_logins_total', 'keyhold_second_factors_total', 'keyhold_tokens_issued_total', 'keyhold_token_reuse_detected_total'];

let kh: TestKeyhold;
let base: string;
let projectId: string;
let web: AppCreated;
let spa: AppCreated;
/** Everything secret this file saw: none may be in any log line. */
const secrets = new Set<string>([PASSWORD]);
let n = 0;

/** Every series of these metrics that moved between the scrapes, as `name{labels}` → how much. */
function movedSeries(before: readonly Sample[], after: readonly Sample[], names = IDENTITY_METRICS): Record<string, number> {
  const key = (s: Sample) => `${s.name}{${Object.entries(s.labels).map(([k, v]) => `${k}=${v}`).join(',')}}`;
  const was = new Map(before.map((s) => [key(s), s.value]));
  const out: Record<string, number> = {};
  for (const s of after) {
    if (!names.includes(s.name)) continue;
    const delta = s.value - (was.get(key(s)) ?? 0);
    if (delta !== 0) out[key(s)] = delta;
  }
  return out;
}

/** The request log lines (JSON) so far. */
const requestLines = () => kh.logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
const lineOf = (requestId: string) => {
  const lines = requestLines().filter((l) => l.requestId === requestId);
  expect(lines, `one line for ${requestId}`).toHaveLength(1);
  return lines[0]!;
};
/** The line is written when the response closes, just after the client has read it. */
const settled = () => new Promise((r) => setTimeout(r, 50));

/** A human user with PASSWORD, or with no password at all (null). */
async function addUser(prefix: string, password: string | null = PASSWORD): Promise<{ userId: string; username: string }> {
  const username = `${prefix}-${++n}`;
  const res = await kh.rest('POST', '/v2/users/human', {
    username,
    profile: { givenName: 'Op', familyName: 'Signals' },
    email: { email: `${username}@example.com` },
    ...(password === null ? {} : { password: { password, changeRequired: false } }),
  });
  expect(res.status).toBe(200);
  return { userId: res.body.userId, username };
}

function authorizeUrl(app: AppCreated, extra: Record<string, string> = {}): URL {
  const url = new URL(`${base}/oauth/v2/authorize`);
  url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', ...extra }).toString();
  return url;
}

const basic = (app: AppCreated) => `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`;

/** POST /oauth/v2/token as the web app (Basic), with a request id; the status and body. */
async function token(form: Record<string, string>, requestId: string, app = web): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/oauth/v2/token`, {
    method: 'POST',
    headers: {
      ...(app.clientSecret ? { authorization: basic(app) } : {}),
      'content-type': 'application/x-www-form-urlencoded',
      'x-request-id': requestId,
      'user-agent': UA,
    },
    body: new URLSearchParams(form),
  });
  const body = await res.json();
  for (const k of ['access_token', 'refresh_token', 'id_token']) if (typeof body[k] === 'string') secrets.add(body[k]);
  return { status: res.status, body };
}

/** The password page of `username` in browser `b`; answers a function posting one password there. */
async function passwordPage(b: Browser, app: AppCreated, username: string, extra: Record<string, string> = {}) {
  const first = await b.follow(authorizeUrl(app, { prompt: 'login', ...extra }));
  const toPassword = await b.request(new URL(formAction(first.html!, 'username')!, base), { form: { form_token: formToken(first.html!), username } });
  const pw = await b.follow(new URL(toPassword.headers.get('location')!, base));
  return async (password: string) => b.request(new URL(formAction(pw.html!, 'password')!, base), { form: { form_token: formToken(pw.html!), password } });
}

/** A code for `app` after a login with the right password (the app's own browser, sending UA). */
async function codeFor(app: AppCreated, username: string, extra: Record<string, string> = {}): Promise<string> {
  const back = await logIn(browser(base, { 'user-agent': UA }), authorizeUrl(app, extra), username, PASSWORD);
  const code = back.searchParams.get('code');
  expect(code, `a code: ${back}`).toBeTruthy();
  secrets.add(code!);
  return code!;
}

beforeAll(async () => {
  kh = await startTestKeyhold({ env: { KEYHOLD_TRUSTED_PROXIES: '127.0.0.1' } });
  base = `http://localhost:${kh.port}`;
  projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Signals' })).body.id;
  web = await addApp(kh, projectId, {
    redirectUris: [REDIRECT],
    authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
    grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
  });
  secrets.add(web.clientSecret!);
  spa = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT' });
}, 60_000);
afterAll(async () => kh?.close());

describe('request log lines', () => {
  it('a token request with a wrong code: the OAuth error, its description, the client, the address and the User-Agent — not the code', async () => {
    const wrongCode = 'a-code-nobody-issued-3e9d';
    const refused = await token({ grant_type: 'authorization_code', code: wrongCode, redirect_uri: REDIRECT }, 'wrong-code');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
    await settled();
    expect(lineOf('wrong-code')).toMatchObject({
      level: 30,
      route: 'POST /oauth/v2/token',
      httpStatus: 400,
      code: 'INVALID_ARGUMENT',
      reason: 'invalid_grant',
      description: 'grant request is invalid',
      clientId: web.clientId,
      clientAddress: '127.0.0.1',
      userAgent: UA,
    });
    expect(kh.logLines.join('\n')).not.toContain(wrongCode);
  });

  it('a login: its password pages and the code redemption name the app, the address and the User-Agent', async () => {
    const { username } = await addUser('logs');
    const b = browser(base, { 'user-agent': UA, 'x-request-id': 'login-page' });
    const wrong = await (await passwordPage(b, web, username))('not the password');
    expect(wrong.status).toBe(200);
    await wrong.text();
    const code = await codeFor(web, username, { scope: 'openid offline_access' });
    const granted = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, 'code-redeemed');
    expect(granted.status).toBe(200);
    expect(granted.body.refresh_token).toBeTruthy();
    await settled();
    expect(lineOf('code-redeemed')).toMatchObject({ route: 'POST /oauth/v2/token', httpStatus: 200, clientId: web.clientId, clientAddress: '127.0.0.1', userAgent: UA });
    expect(lineOf('code-redeemed').reason).toBeUndefined();
    // The login pages (one browser sent this id on each: the lines of its password step).
    const pages = requestLines().filter((l) => l.requestId === 'login-page' && String(l.route).startsWith('POST /ui/login/'));
    expect(pages.length).toBeGreaterThanOrEqual(2);
    for (const line of pages) expect(line).toMatchObject({ clientId: web.clientId, clientAddress: '127.0.0.1', userAgent: UA });
  });

  it('the client address: through the trusted proxy the forwarded one, from an untrusted peer its own whatever it forwards — on the provider, REST and gRPC', async () => {
    // From 127.0.0.1, the trusted proxy: the nearest untrusted hop of X-Forwarded-For (what the client wrote left of it is not believed).
    const viaProxy = await fetch(`${base}/.well-known/openid-configuration`, { headers: { 'x-forwarded-for': '203.0.113.5, 198.51.100.7', 'x-request-id': 'via-proxy' } });
    await viaProxy.text();
    const rest = await kh.rest('GET', `/management/v1/projects/${projectId}`, undefined, { 'x-forwarded-for': '198.51.100.8', 'x-request-id': 'rest-via-proxy' });
    expect(rest.status).toBe(200);
    const grpc = kh.client(ManagementService, 'grpc', undefined, { 'x-forwarded-for': '198.51.100.9', 'x-request-id': 'grpc-via-proxy' });
    await grpc.getProjectByID({ id: projectId });
    // From another loopback address, not a trusted proxy: its spoofed header is ignored.
    const untrusted = loopback(7);
    const spoofed = await sendOverHttp({ localAddress: untrusted })(new URL(`${base}/.well-known/openid-configuration`), 'GET', { 'x-forwarded-for': '198.51.100.66', 'x-request-id': 'spoofed' }, undefined);
    expect(spoofed.status).toBe(200);
    await settled();
    expect(lineOf('via-proxy')).toMatchObject({ route: 'GET /.well-known/openid-configuration', clientAddress: '198.51.100.7' });
    expect(lineOf('rest-via-proxy')).toMatchObject({ protocol: 'rest', clientAddress: '198.51.100.8' });
    expect(lineOf('grpc-via-proxy')).toMatchObject({ protocol: 'grpc', code: 'OK', clientAddress: '198.51.100.9' });
    expect(lineOf('spoofed')).toMatchObject({ clientAddress: untrusted });
    expect(kh.logLines.join('\n')).not.toContain('198.51.100.66');
  });

  it('the User-Agent: control characters escaped, at most 256 characters; one sent over raw HTTP/1.1', async () => {
    // Node's client sends a tab and Latin-1 bytes as they are (a C1 control, U+0085 NEL, arrives as such).
    const sent = `evil\tagent\u0085next-line${'x'.repeat(400)}`;
    await new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: kh.port, path: '/.well-known/openid-configuration', headers: { 'user-agent': sent, 'x-request-id': 'odd-agent' } }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });
    await settled();
    const logged = String(lineOf('odd-agent').userAgent);
    expect(logged.startsWith('evil\\x09agent\\x85next-linexxx')).toBe(true);
    expect(logged).toHaveLength(MAX_USER_AGENT);
    expect(logged).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
    // The rule itself: separators and bidi controls, a backslash, never an escape cut in half.
    expect(userAgentOf('a\r\nb\u2028c\u202ed\\e')).toBe('a\\x0d\\x0ab\\u2028c\\u202ed\\\\e');
    expect(userAgentOf(`${'y'.repeat(254)}\u0001`)).toBe('y'.repeat(254));
    expect(userAgentOf(['a', 'b'])).toBe('a, b');
    expect(userAgentOf(undefined)).toBeUndefined();
  });
});

describe("the provider's own failure", () => {
  it('is noted as server_error with the client it was for (its cause has a line of its own)', () => {
    const emitter = new EventEmitter() as EventEmitter & { use: (m: unknown) => void };
    emitter.use = () => {};
    const notes: unknown[] = [];
    noteOAuthErrors(emitter, (req, note) => notes.push({ req, ...note }));
    const req = {};
    emitter.emit('server_error', { req, oidc: { client: { clientId: 'app-1' } } }, new Error('boom'));
    expect(notes).toEqual([{ req, error: 'server_error', clientId: 'app-1' }]);
  });
});

describe('GET /metrics', () => {
  it('logins, a refresh, a refresh-token reuse and a code reuse: each counter moves by exactly what happened', async () => {
    const { username } = await addUser('counted');
    const before = await scrape(base);
    // One wrong password, then two logins.
    const wrong = await (await passwordPage(browser(base), web, username))('not it');
    expect(wrong.status).toBe(200);
    const replayed = await codeFor(web, username);
    expect((await token({ grant_type: 'authorization_code', code: replayed, redirect_uri: REDIRECT }, 'first-use')).status).toBe(200);
    expect((await token({ grant_type: 'authorization_code', code: replayed, redirect_uri: REDIRECT }, 'code-reuse')).body.error).toBe('invalid_grant');
    const code = await codeFor(web, username, { scope: 'openid offline_access' });
    const first = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, 'rt-0');
    const second = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token }, 'rt-1');
    expect(second.status).toBe(200);
    const third = await token({ grant_type: 'refresh_token', refresh_token: second.body.refresh_token }, 'rt-2');
    expect(third.status).toBe(200);
    // The first refresh token again, after its successor was used: a reuse (the grant is revoked).
    const reused = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token }, 'rt-reuse');
    expect(reused.body.error).toBe('invalid_grant');
    const after = await scrape(base);
    expect(movedSeries(before, after)).toEqual({
      'keyhold_logins_total{outcome=failed,reason=wrong_password}': 1,
      'keyhold_logins_total{outcome=succeeded,reason=none}': 2,
      'keyhold_tokens_issued_total{grant_type=authorization_code,app_type=web}': 2,
      'keyhold_tokens_issued_total{grant_type=refresh_token,app_type=web}': 2,
      'keyhold_token_reuse_detected_total{token=authorization_code}': 1,
      'keyhold_token_reuse_detected_total{token=refresh_token}': 1,
    });
  });

  it('failed logins by reason, a throttled one, second factors and a single-page app’s code: counted by reason and kind', async () => {
    const locked = await addUser('locked');
    expect((await kh.rest('POST', `/v2/users/${locked.userId}/lock`, {})).status).toBe(200);
    const inactive = await addUser('inactive');
    expect((await kh.rest('POST', `/v2/users/${inactive.userId}/deactivate`, {})).status).toBe(200);
    const passwordless = await addUser('passwordless', null);
    // A user with a security key (registered by the administrator, so no recovery codes exist).
    const keyed = await addUser('keyed');
    const reg = await startRegistration(kh, keyed.userId);
    const key = createSoftAuthenticator();
    await kh.client(UserService, 'grpc').verifyU2FRegistration({
      userId: keyed.userId,
      u2fId: reg.u2fId,
      publicKeyCredential: key.makeRegistration({ challenge: reg.challenge, origin: base, rpId: reg.rpId }) as never,
      tokenName: 'k',
    });
    const before = await scrape(base);

    // A name nobody holds, from an address of its own: the free allowance, then a throttled try.
    const guesser = browser(base, {}, sendOverHttp({ localAddress: loopback(11) }));
    const guess = await passwordPage(guesser, web, 'nobody-holds-this-name');
    const free = BUCKETS['password.account.client'].free;
    for (let i = 0; i < free; i++) expect(await (await guess(`guess ${i}`)).text()).toContain('The username or the password is wrong.');
    expect(await (await guess('one more')).text()).toMatch(/Wait \d+ seconds/);
    for (const user of [locked, inactive, passwordless]) expect((await (await passwordPage(browser(base), web, user.username))(PASSWORD)).status).toBe(200);

    // The key step: a cancelled ceremony, a wrong recovery code, then the key.
    const b = browser(base);
    const toKey = await (await passwordPage(b, spa, keyed.username, { code_challenge: CHALLENGE, code_challenge_method: 'S256' }))(PASSWORD);
    expect(toKey.status).toBe(303);
    let step = await b.follow(new URL(toKey.headers.get('location')!, base));
    const keyAction = new URL(formAction(step.html!, 'key')!, step.url);
    const cancelled = await b.request(keyAction, { form: { form_token: formToken(step.html!), response: '', failure: 'NotAllowedError' } });
    expect(await cancelled.text()).toContain('data-reason="U2F_LOGIN_CANCELLED"');
    const recovery = await b.follow(new URL(/href="([^"]*\?recovery=1)"/.exec(step.html!)![1]!.replaceAll('&amp;', '&'), step.url));
    const wrongCode = await b.request(new URL(formAction(recovery.html!, 'recovery')!, recovery.url), { form: { form_token: formToken(recovery.html!), code: 'aaaaaa-aaaaaa' } });
    const wrongHtml = await wrongCode.text();
    expect(wrongHtml).toContain('data-reason="RECOVERY_CODE_WRONG"');
    // Back to the key: the recovery page's button (it moves the login's state back).
    const toKeyAgain = await b.request(new URL(formAction(wrongHtml, 'use-key')!, recovery.url), { form: { form_token: formToken(wrongHtml) } });
    expect(toKeyAgain.status).toBe(303);
    step = await b.follow(new URL(toKeyAgain.headers.get('location')!, step.url));
    const options = JSON.parse(/data-options="([^"]+)"/.exec(step.html!)![1]!.replaceAll('&quot;', '"'));
    const answer = key.makeAssertion({ challenge: options.challenge, origin: base, rpId: reg.rpId, signCount: 1 });
    const signedIn = await b.request(new URL(formAction(step.html!, 'key')!, step.url), { form: { form_token: formToken(step.html!), response: JSON.stringify(answer), failure: '' } });
    const back = (await b.follow(new URL(signedIn.headers.get('location')!, step.url))).left!;
    const code = back.searchParams.get('code')!;
    secrets.add(code);
    const spaToken = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: spa.clientId, code_verifier: VERIFIER }, 'spa-code', spa);
    expect(spaToken.status, JSON.stringify(spaToken.body)).toBe(200);

    const after = await scrape(base);
    expect(movedSeries(before, after)).toEqual({
      'keyhold_logins_total{outcome=failed,reason=unknown_user}': free,
      'keyhold_logins_total{outcome=throttled,reason=attempt_budget}': 1,
      'keyhold_logins_total{outcome=failed,reason=locked}': 1,
      'keyhold_logins_total{outcome=failed,reason=inactive}': 1,
      'keyhold_logins_total{outcome=failed,reason=no_password}': 1,
      'keyhold_logins_total{outcome=succeeded,reason=none}': 1,
      'keyhold_second_factors_total{kind=security_key,outcome=failed}': 1,
      'keyhold_second_factors_total{kind=recovery_code,outcome=failed}': 1,
      'keyhold_second_factors_total{kind=security_key,outcome=succeeded}': 1,
      'keyhold_tokens_issued_total{grant_type=authorization_code,app_type=user_agent}': 1,
    });
  });

  it('client credentials of a machine user: counted as the machine’s', async () => {
    const added = await kh.rest('POST', '/management/v1/users/machine', { userName: 'signals-bot', name: 'Signals bot' });
    const secret = await kh.rest('PUT', `/management/v1/users/${added.body.userId}/secret`, {});
    secrets.add(secret.body.clientSecret);
    const before = await scrape(base);
    const machine = { appId: '', clientId: secret.body.clientId, clientSecret: secret.body.clientSecret };
    expect((await token({ grant_type: 'client_credentials' }, 'machine-token', machine)).status).toBe(200);
    await settled();
    expect(lineOf('machine-token')).toMatchObject({ httpStatus: 200, clientId: machine.clientId });
    expect(movedSeries(before, await scrape(base))).toEqual({ 'keyhold_tokens_issued_total{grant_type=client_credentials,app_type=machine}': 1 });
  });

  it('the sweep: expired rows counted before they are deleted, none left after, the time of the sweep', async () => {
    await kh.database.sql.query({
      text: "insert into oidc_payloads (model, key, payload, expires_at) values ('Session', 'swept-1', '{}', now() - interval '1 hour'), ('Session', 'swept-2', '{}', now() - interval '1 hour'), ('Interaction', 'swept-3', '{}', now() - interval '1 minute')",
      params: [],
    });
    const seen = vi.spyOn(kh.metrics.sweep, 'backlog');
    const start = Date.now() / 1000;
    await kh.housekeeping.sweep();
    const oidc = seen.mock.calls.filter(([table]) => table === 'oidc_payloads').map(([, rows]) => rows);
    seen.mockRestore();
    expect(oidc).toEqual([3, 0]);
    const samples = await scrape(base);
    for (const table of ['oidc_payloads', 'attempt_budgets', 'idempotent_answers', 'email_codes', 'u2f_tokens']) {
      expect(samples.find((s) => s.name === 'keyhold_expired_rows' && s.labels.table === table)?.value, table).toBe(0);
      expect(samples.find((s) => s.name === 'keyhold_sweep_last_success_timestamp_seconds' && s.labels.table === table)?.value, table).toBeGreaterThanOrEqual(Math.floor(start));
    }
  });

  it('labels are closed sets: no client id, user id, name or address in any series', async () => {
    const samples = (await scrape(base)).filter((s) => s.name.startsWith('keyhold_'));
    const values = samples.flatMap((s) => Object.values(s.labels));
    for (const forbidden of [web.clientId, spa.clientId, projectId, '127.0.0.1', '198.51.100', 'nobody-holds-this-name', 'counted-', 'keyed-']) {
      expect(values.filter((v) => v.includes(forbidden)), forbidden).toEqual([]);
    }
    const allowed: Record<string, readonly string[]> = {
      outcome: ['succeeded', 'failed', 'throttled'],
      reason: ['none', 'wrong_password', 'unknown_user', 'locked', 'inactive', 'no_password', 'attempt_budget'],
      kind: ['security_key', 'recovery_code', 'one_time_code', 'unavailable', 'storage_full', 'storage_unavailable', 'conflict', 'unique_violation', 'other'],
      grant_type: ['authorization_code', 'refresh_token', 'client_credentials', 'device_code', 'implicit', 'other'],
      app_type: ['web', 'user_agent', 'native', 'machine', 'other'],
      token: ['refresh_token', 'authorization_code', 'device_code'],
      table: ['oidc_payloads', 'attempt_budgets', 'idempotent_answers', 'email_codes', 'u2f_tokens'],
      by: ['address', 'token'],
    };
    for (const s of samples) for (const [label, value] of Object.entries(s.labels)) if (allowed[label]) expect(allowed[label], `${s.name} ${label}`).toContain(value);
  });
});

describe('the whole log', () => {
  it('holds no password, code, token, client secret, cookie or Authorization value', () => {
    const log = kh.logLines.join('\n');
    expect(secrets.size).toBeGreaterThan(10);
    for (const secret of secrets) expect(log, 'a secret in the log').not.toContain(secret);
    expect(log).not.toMatch(/authorization|cookie|bearer|basic /i);
    expect(log).not.toContain('_interaction');
  });
});
