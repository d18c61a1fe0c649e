// One-time artifacts under concurrency (docs/security.md §4), with real
// clients: plain HTTP for the token endpoint and the login's pages, the user's
// cookie jar from test/support/oidc-login.ts, a software authenticator for
// the key step. Every case sends AT_ONCE requests with one artifact at the
// same moment, ROUNDS times, spread over the servers given (one Keyhold, or
// two processes on one PostgreSQL): exactly one wins each round, the others
// are refused as a replay, and what a client checks afterwards holds.
import { request as httpRequest } from 'node:http';
import * as oidc from 'openid-client';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import type { TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken, logIn, type AppCreated, type Browser } from '../../support/oidc-login.js';
import { createSoftAuthenticator } from '../../support/soft-authenticator.js';
import { createSoftPasskey } from '../../support/soft-passkey.js';
import { startRegistration } from '../../support/u2f.js';

export const ROUNDS = 20;
export const AT_ONCE = 8;

export interface SingleUseServers {
  /** The Keyhold of this process: its admin API, the issuer's origin. */
  kh: TestKeyhold;
  /** Where the requests of one round are sent, in turn (`http://localhost:<port>` each). */
  bases: string[];
  close(): Promise<void>;
}

const PASSWORD = 'one time means one time 17';
const REDIRECT = 'http://localhost:5179/cb';
const API_SCOPE = 'urn:keyhold:iam:api:aud';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

interface Sent {
  status: number;
  location: string | null;
  setCookie: string[];
  /** Retry-After, on a 503: the server was too busy to answer now. */
  retryAfter: string | null;
  text: string;
  json(): any;
}

/**
 * One request over node:http (not fetch): to 127.0.0.1 from `localAddress`
 * when given, so each request of a burst can come from its own client address.
 */
function send(base: string, path: string, init: { method?: string; headers?: Record<string, string>; form?: Record<string, string>; localAddress?: string } = {}): Promise<Sent> {
  const url = new URL(path, base);
  const body = init.form ? new URLSearchParams(init.form).toString() : undefined;
  const headers: Record<string, string> = { host: url.host, ...init.headers, ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) } : {}) };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: url.port, path: url.pathname + url.search, method: init.method ?? (body !== undefined ? 'POST' : 'GET'), headers, localAddress: init.localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, location: res.headers.location ?? null, setCookie: res.headers['set-cookie'] ?? [], retryAfter: (res.headers['retry-after'] as string | undefined) ?? null, text, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const unescapeHtml = (text: string) => text.replace(/&(quot|#39|lt|gt|amp);/g, (_m, e: string) => ({ quot: '"', '#39': "'", lt: '<', gt: '>', amp: '&' })[e]!);
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const basic = (app: AppCreated) => `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`;

/** Exactly one of the answers passes `won`; the winner and the rest. */
function oneWinner(answers: Sent[], won: (a: Sent) => boolean): { winner: Sent; losers: Sent[] } {
  const winners = answers.filter(won);
  expect(winners.map((a) => a.status), `exactly one winner of ${answers.map((a) => `${a.status} ${a.location ?? a.text.slice(0, 120)}`).join(' | ')}`).toHaveLength(1);
  return { winner: winners[0]!, losers: answers.filter((a) => !won(a)) };
}

/** The losers of a token-endpoint race: each invalid_grant. */
function allInvalidGrant(losers: Sent[]): void {
  expect(losers.map((a) => [a.status, a.json().error])).toEqual(losers.map(() => [400, 'invalid_grant']));
}

export function singleUseSuite(label: string, setup: () => Promise<SingleUseServers>, skip = false): void {
  describe.skipIf(skip)(`one-time artifacts under concurrency: ${label}`, () => {
    let servers: SingleUseServers;
    let kh: TestKeyhold;
    let base: string;
    let bases: string[];
    let projectId: string;
    /** The server request `i` of a burst goes to. */
    const at = (i: number) => bases[i % bases.length]!;

    beforeAll(async () => {
      servers = await setup();
      ({ kh, bases } = servers);
      base = bases[0]!;
      projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Single use' })).body.id;
    }, 120_000);
    afterAll(async () => servers?.close());

    let users = 0;
    async function addUser(): Promise<{ userId: string; username: string }> {
      const username = `single-${++users}-${process.pid}`;
      const res = await kh.rest('POST', '/v2/users/human', { username, profile: { givenName: 'S', familyName: 'U' }, email: { email: `${username}@example.com` }, password: { password: PASSWORD, changeRequired: false } });
      expect(res.status).toBe(200);
      return { userId: res.body.userId, username };
    }

    /** Events of one aggregate from the audit log (types `types`), oldest first; waits until `until` holds (the provider's events are recorded in the background). */
    async function audit(aggregateId: string, types: string[], until: (events: { type: string; payload: any }[]) => boolean = () => true) {
      let events: { type: string; payload: any }[] = [];
      for (let i = 0; i < 50; i++) {
        const res = await kh.rest('POST', '/admin/v1/events/_search', { aggregateId, eventTypes: types, asc: true, limit: 1000 });
        expect(res.status).toBe(200);
        events = res.body.events ?? [];
        if (until(events)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      return events;
    }

    function authorizeUrl(clientId: string, redirect: string, challenge: string, extra: Record<string, string> = {}): URL {
      const url = new URL('/oauth/v2/authorize', base);
      url.search = new URLSearchParams({ client_id: clientId, redirect_uri: redirect, response_type: 'code', scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256', ...extra }).toString();
      return url;
    }

    /** A browser with a session of the user (one password login). */
    async function signedIn(app: AppCreated, username: string, redirect = REDIRECT): Promise<Browser> {
      const b = browser(base);
      const back = await logIn(b, authorizeUrl(app.clientId, redirect, await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier())), username, PASSWORD);
      expect(back.searchParams.get('code')).toBeTruthy();
      return b;
    }

    /** Follows `from` in `b`, consenting where asked, until Keyhold sends the browser back to the app. */
    async function backToApp(b: Browser, from: URL): Promise<URL> {
      let step = await b.follow(from);
      while (!step.left) {
        const action = formAction(step.html ?? '', 'consent');
        if (!action) throw new Error(`no way on from ${step.url}: ${step.html?.slice(0, 400)}`);
        const res = await b.request(new URL(action, step.url), { form: { form_token: formToken(step.html!), decision: 'allow' } });
        step = await b.follow(new URL(res.headers.get('location')!, step.url));
      }
      return step.left;
    }

    /** A code for `app` from the signed-in browser `b`, and its PKCE verifier. */
    async function codeFor(b: Browser, app: AppCreated, extra: Record<string, string>, redirect = REDIRECT): Promise<{ code: string; verifier: string }> {
      const verifier = oidc.randomPKCECodeVerifier();
      const back = await backToApp(b, authorizeUrl(app.clientId, redirect, await oidc.calculatePKCECodeChallenge(verifier), extra));
      const code = back.searchParams.get('code');
      expect(code, back.href).toBeTruthy();
      return { code: code!, verifier };
    }

    const tokenAt = (server: string, fields: Record<string, string>, app?: AppCreated) =>
      send(server, '/oauth/v2/token', { form: app?.clientSecret ? fields : { ...fields, ...(app ? { client_id: app.clientId } : {}) }, headers: app?.clientSecret ? { authorization: basic(app) } : {} });

    const userinfo = (accessToken: string) => send(base, '/oidc/v1/userinfo', { headers: { authorization: `Bearer ${accessToken}` } });
    const introspect = async (app: AppCreated, token: string) => (await send(base, '/oauth/v2/introspect', { form: app.clientSecret ? { token } : { token, client_id: app.clientId }, headers: app.clientSecret ? { authorization: basic(app) } : {} })).json();

    it(`an authorization code redeemed by ${AT_ONCE} at once: one token set, the rest invalid_grant; the grant is revoked, the winner's tokens with it, and recorded as a reuse`, async () => {
      const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'], devMode: true });
      const user = await addUser();
      const b = await signedIn(app, user.username);
      for (let round = 0; round < ROUNDS; round++) {
        const { code, verifier } = await codeFor(b, app, { scope: 'openid offline_access', prompt: 'consent' });
        const fields = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
        const answers = await Promise.all(range(AT_ONCE).map((i) => tokenAt(at(i), fields, app)));
        const { winner, losers } = oneWinner(answers, (a) => a.status === 200);
        allInvalidGrant(losers);
        const tokens = winner.json();
        expect(tokens.refresh_token).toBeTruthy();
        // What the app sees afterwards: every token of the grant is dead.
        expect((await userinfo(tokens.access_token)).status).toBe(401);
        expect(await introspect(app, tokens.access_token)).toEqual({ active: false });
        expect(await introspect(app, tokens.refresh_token)).toEqual({ active: false });
        const refreshed = await tokenAt(at(round), { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, app);
        expect([refreshed.status, refreshed.json().error]).toEqual([400, 'invalid_grant']);
      }
      // Each round's grant (stored at its consent) was revoked as a reuse, in the user's audit trail.
      const saved = await audit(user.userId, ['user.oidc.grant.saved']);
      const grants = new Set(saved.slice(-ROUNDS).map((e) => e.payload.grantId));
      expect(grants.size).toBe(ROUNDS);
      const revoked = await audit(user.userId, ['user.oidc.grant.revoked'], (events) => [...grants].every((g) => events.some((e) => e.payload.grantId === g)));
      for (const grantId of grants) expect(revoked.filter((e) => e.payload.grantId === grantId).map((e) => [e.payload.reason, e.payload.clientId])).toContainEqual(['reuse', app.clientId]);
    }, 180_000);

    it(`a code for Keyhold's API redeemed by ${AT_ONCE} at once: the winner's access token is refused by the API`, async () => {
      const user = await addUser();
      const console = { appId: '', clientId: 'keyhold-console' };
      const redirect = `${base}/console/`;
      const b = await signedIn(console, user.username, redirect);
      const me = (token: string) => send(base, '/auth/v1/users/me', { headers: { authorization: `Bearer ${token}` } });
      // Redeemed alone, such a token calls the API: the refusals below are the revocation's.
      const alone = await codeFor(b, console, { scope: `openid ${API_SCOPE}` }, redirect);
      const own = await tokenAt(base, { grant_type: 'authorization_code', code: alone.code, redirect_uri: redirect, code_verifier: alone.verifier }, console);
      expect((await me(own.json().access_token)).status).toBe(200);
      for (let round = 0; round < ROUNDS; round++) {
        const { code, verifier } = await codeFor(b, console, { scope: `openid ${API_SCOPE}` }, redirect);
        const fields = { grant_type: 'authorization_code', code, redirect_uri: redirect, code_verifier: verifier };
        const answers = await Promise.all(range(AT_ONCE).map((i) => tokenAt(at(i), fields, console)));
        const { winner, losers } = oneWinner(answers, (a) => a.status === 200);
        allInvalidGrant(losers);
        expect((await me(winner.json().access_token)).status).toBe(401);
        expect((await userinfo(winner.json().access_token)).status).toBe(401);
      }
    }, 180_000);

    it(`a refresh token refreshed by ${AT_ONCE} at once: at most one live pair; any other pair's token, used, ends the whole family`, async () => {
      const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'], devMode: true });
      const user = await addUser();
      const b = await signedIn(app, user.username);
      for (let round = 0; round < ROUNDS; round++) {
        const { code, verifier } = await codeFor(b, app, { scope: 'openid offline_access', prompt: 'consent' });
        const first = (await tokenAt(base, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, app)).json();
        expect(first.refresh_token).toBeTruthy();
        const answers = await Promise.all(range(AT_ONCE).map((i) => tokenAt(at(i), { grant_type: 'refresh_token', refresh_token: first.refresh_token }, app)));
        // Each request after the first is decided as a retry of the same rotation (it supersedes the
        // pair before it) or, once a pair's token was used, as a replay (invalid_grant, family revoked).
        const pairs = answers.filter((a) => a.status === 200).map((a) => a.json());
        allInvalidGrant(answers.filter((a) => a.status !== 200));
        expect(pairs.length).toBeGreaterThan(0);
        // Each pair's token used in turn: at most one refreshes, and a superseded one is a replay that ends the family.
        const uses = [];
        for (const pair of pairs) uses.push((await tokenAt(at(round), { grant_type: 'refresh_token', refresh_token: pair.refresh_token }, app)).status);
        expect(uses.filter((s) => s === 200).length).toBeLessThanOrEqual(1);
        if (pairs.length > 1) expect(uses).toContain(400);
        // The revocation took every token of the grant (one statement): the first and last pairs stand for them all.
        for (const token of [pairs[0].access_token, pairs.at(-1).refresh_token]) expect(await introspect(app, token)).toEqual({ active: false });
        expect((await userinfo(pairs[0].access_token)).status).toBe(401);
      }
    }, 180_000);

    describe('device codes', () => {
      let device: AppCreated;
      let owner: { userId: string; username: string };
      let b: Browser;

      beforeAll(async () => {
        device = await addApp(kh, projectId, { name: 'Single use TV', appType: 'OIDC_APP_TYPE_NATIVE', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', responseTypes: ['OIDC_RESPONSE_TYPE_CODE'], grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'] });
        owner = await addUser();
        b = browser(base);
      }, 60_000);

      const startDevice = async () => {
        const started = await send(base, '/oauth/v2/device_authorization', { form: { client_id: device.clientId, scope: 'openid' } });
        expect(started.status).toBe(200);
        return started.json() as { device_code: string; user_code: string };
      };
      const xsrfOf = (html: string) => /name="xsrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
      const poll = (server: string, deviceCode: string) => tokenAt(server, { grant_type: DEVICE_GRANT, device_code: deviceCode }, device);

      // The library consumes a device code before it looks at the grant: a loser's revocation may reach the
      // grant before the poll that consumed the code does, and then no poll gets tokens at all.
      it(`an approved device code polled by ${AT_ONCE} at once: at most one token set, revoked; the rest invalid_grant`, async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const started = await startDevice();
          // The user enters the code, confirms, and signs in (the first round with the password; then the session).
          const page = await b.follow(new URL('/ui/login/device', base));
          const confirm = await b.request(new URL('/ui/login/device', base), { form: { xsrf: xsrfOf(page.html!), user_code: started.user_code, confirm: 'yes' } });
          let step = await b.follow(new URL(confirm.headers.get('location')!, base));
          if (formAction(step.html!, 'username')) {
            const post = async (name: string, form: Record<string, string>) => {
              const res = await b.request(new URL(formAction(step.html!, name)!, step.url), { form: { form_token: formToken(step.html!), ...form } });
              step = await b.follow(new URL(res.headers.get('location')!, step.url));
            };
            await post('username', { username: owner.username });
            await post('password', { password: PASSWORD });
          }
          expect(step.html).toContain('Your device is signed in');
          const answers = await Promise.all(range(AT_ONCE).map((i) => poll(at(i), started.device_code)));
          const winners = answers.filter((a) => a.status === 200);
          expect(winners.length, 'at most one token set').toBeLessThanOrEqual(1);
          allInvalidGrant(answers.filter((a) => a.status !== 200));
          for (const winner of winners) expect((await userinfo(winner.json().access_token)).status).toBe(401);
        }
      }, 180_000);

      it(`one user code confirmed by ${AT_ONCE} browsers at once: one goes on to sign in, the others are told it was used`, async () => {
        let refused = 0;
        let toldToRetry = 0;
        for (let round = 0; round < ROUNDS; round++) {
          const started = await startDevice();
          const browsers = await Promise.all(
            range(AT_ONCE).map(async (i) => {
              const own = browser(at(i));
              const page = await own.follow(new URL('/ui/login/device', at(i)));
              return { own, xsrf: xsrfOf(page.html!) };
            }),
          );
          const confirm = (i: number) => {
            const { own, xsrf } = browsers[i]!;
            return send(at(i), '/ui/login/device', { form: { xsrf, user_code: started.user_code, confirm: 'yes' }, headers: { cookie: own.jar.header(new URL('/ui/login/device', at(i))) } });
          };
          const answers = await Promise.all(range(AT_ONCE).map(confirm));
          const { losers } = oneWinner(answers, (a) => a.status === 303 || a.status === 302);
          // Refused on the code page: as the library answers a code it finds taken (200), or as Keyhold finds it taken meanwhile (400).
          // On a loaded machine a loser may wait on the winner's row past the lock bound: it is told to retry (503 with
          // Retry-After), and its retry is refused as used.
          for (const first of losers) {
            let lost = first;
            for (let retry = 0; lost.status === 503 && lost.retryAfter !== null && retry < 3; retry++) {
              toldToRetry++;
              lost = await confirm(answers.indexOf(first));
            }
            refused++;
            expect([lost.status, lost.text.includes('This code was already used.')]).toEqual([expect.toSatisfy((s: number) => s === 200 || s === 400), true]);
          }
          // Nobody has signed in: the device is still waiting.
          const pending = await poll(base, started.device_code);
          expect(pending.json().error).toBe('authorization_pending');
        }
        // Most losers are refused in the race itself, not on a retry.
        expect(toldToRetry, `${toldToRetry} answers of ${refused} losers said to retry`).toBeLessThan(refused / 2);
      }, 180_000);
    });

    it(`a finished login resumed by ${AT_ONCE} at once: one authorization code`, async () => {
      const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', devMode: true });
      const user = await addUser();
      const b = await signedIn(app, user.username);
      for (let round = 0; round < ROUNDS; round++) {
        const verifier = oidc.randomPKCECodeVerifier();
        const step = await b.follow(authorizeUrl(app.clientId, REDIRECT, await oidc.calculatePKCECodeChallenge(verifier), { prompt: 'consent' }));
        const consented = await b.request(new URL(formAction(step.html!, 'consent')!, step.url), { form: { form_token: formToken(step.html!), decision: 'allow' } });
        const resume = new URL(consented.headers.get('location')!, step.url);
        const cookie = b.jar.header(resume);
        const answers = await Promise.all(range(AT_ONCE).map((i) => send(at(i), resume.pathname + resume.search, { headers: { cookie } })));
        const { winner, losers } = oneWinner(answers, (a) => a.location?.startsWith(`${REDIRECT}?`) === true && new URL(a.location).searchParams.has('code'));
        for (const lost of losers) expect(lost.status).toBe(400);
        // The browser keeps the winner's cookies; its code is good.
        b.jar.take(new Response(null, { headers: winner.setCookie.map((c) => ['set-cookie', c] as [string, string]) }));
        const code = new URL(winner.location!).searchParams.get('code')!;
        const redeemed = await tokenAt(base, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, app);
        expect(redeemed.status).toBe(200);
      }
    }, 180_000);

    describe('the second factor', () => {
      let app: AppCreated;
      let holder: { userId: string; username: string };
      let keyId: string;
      const key = createSoftAuthenticator();

      /** The holder's own token for Keyhold's API (through the console), to make its recovery codes. */
      let selfToken: string;

      beforeAll(async () => {
        app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', devMode: true });
        holder = await addUser();
        const consoleApp = { appId: '', clientId: 'keyhold-console' };
        const redirect = `${base}/console/`;
        const verifier = oidc.randomPKCECodeVerifier();
        const back = await logIn(browser(base), authorizeUrl(consoleApp.clientId, redirect, await oidc.calculatePKCECodeChallenge(verifier), { scope: `openid ${API_SCOPE}` }), holder.username, PASSWORD);
        selfToken = (await tokenAt(base, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: redirect, code_verifier: verifier }, consoleApp)).json().access_token;
        expect(selfToken).toBeTruthy();
        const reg = await startRegistration(kh, holder.userId);
        await kh.client(UserService, 'grpc').verifyU2FRegistration({ userId: holder.userId, u2fId: reg.u2fId, publicKeyCredential: key.makeRegistration({ challenge: reg.challenge, origin: base, rpId: reg.rpId }) as never, tokenName: 'k' });
        keyId = reg.u2fId;
      }, 60_000);

      /** The answer that finished the login: back to the authorization, to resume it. */
      const resumes = (a: Sent) => a.status === 303 && /\/oauth\/v2\/authorize\/[\w-]+$/.test(new URL(a.location ?? '/', base).pathname);

      /** A new login of the holder (prompt=login) up to the security-key page. */
      async function atKeyPage(b: Browser): Promise<{ uid: string; html: string; url: URL }> {
        let step = await b.follow(authorizeUrl(app.clientId, REDIRECT, await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), { prompt: 'login' }));
        for (const [name, form] of [
          ['username', { username: holder.username }],
          ['password', { password: PASSWORD }],
        ] as const) {
          const res = await b.request(new URL(formAction(step.html!, name)!, step.url), { form: { form_token: formToken(step.html!), ...form } });
          step = await b.follow(new URL(res.headers.get('location')!, step.url));
        }
        expect(step.html).toContain('id="key-step"');
        return { uid: step.url.pathname.split('/').pop()!, html: step.html!, url: step.url };
      }

      it(`one answer to a key challenge sent ${AT_ONCE} times at once: checked once; the others are replays`, async () => {
        const used = async () => (await audit(keyId, ['u2f.used'])).length;
        const before = await used();
        for (let round = 0; round < ROUNDS; round++) {
          const b = browser(base);
          const page = await atKeyPage(b);
          const options = JSON.parse(unescapeHtml(/data-options="([^"]*)"/.exec(page.html)![1]!));
          const answer = JSON.stringify(key.makeAssertion({ challenge: options.challenge, origin: base, rpId: options.rpId }));
          const path = `/ui/login/${page.uid}/key`;
          const cookie = b.jar.header(new URL(path, base));
          const answers = await Promise.all(range(AT_ONCE).map((i) => send(at(i), path, { form: { form_token: formToken(page.html), response: answer, failure: '' }, headers: { cookie } })));
          const { winner, losers } = oneWinner(answers, resumes);
          // A replay of the taken challenge; or, arriving after the winner finished, no key step left (back to the login's page).
          for (const lost of losers) expect(lost.text.includes('data-reason="U2F_LOGIN_REPLAYED"') || new URL(lost.location ?? '/', base).pathname === `/ui/login/${page.uid}`, `${lost.status} ${lost.location}`).toBe(true);
          // The losers changed nothing: the winner's login ends with a code.
          const back = await b.follow(new URL(winner.location!, base));
          expect(back.left?.searchParams.get('code'), back.html?.slice(0, 300)).toBeTruthy();
        }
        expect(await used()).toBe(before + ROUNDS);
      }, 180_000);

      it(`one recovery code typed ${AT_ONCE} times at once: spent once; the others are refused`, async () => {
        const spent = async () => (await audit(holder.userId, ['user.recovery.code.used'])).length;
        const before = await spent();
        for (let round = 0; round < ROUNDS; round++) {
          // A new set each round: its first code is the one typed (and the account's count of wrong codes starts again).
          const set = await kh.rest('POST', `/v2/users/${holder.userId}/recovery_codes`, {}, { authorization: `Bearer ${selfToken}` });
          expect(set.status).toBe(200);
          const code: string = set.body.recoveryCodes[0];
          const b = browser(base);
          const page = await atKeyPage(b);
          const form = await b.follow(new URL(`${page.url.pathname}?recovery=1`, base));
          const path = formAction(form.html!, 'recovery')!;
          const cookie = b.jar.header(new URL(path, base));
          // Each from its own client address: the per-address throttle of wrong codes stays out of it.
          const answers = await Promise.all(
            range(AT_ONCE).map((i) => send(at(i), path, { form: { form_token: formToken(form.html!), code }, headers: { cookie }, localAddress: `127.0.${1 + round}.${10 + i}` })),
          );
          const { winner, losers } = oneWinner(answers, resumes);
          // The spent code is wrong now (or already slowed down); or, arriving after the winner finished, no step left.
          for (const lost of losers) expect(/data-reason="RECOVERY_CODE_(WRONG|SLOW_DOWN)"/.test(lost.text) || new URL(lost.location ?? '/', base).pathname === `/ui/login/${page.uid}`, `${lost.status} ${lost.location}`).toBe(true);
          const back = await b.follow(new URL(winner.location!, base));
          expect(back.left?.searchParams.get('code'), back.html?.slice(0, 300)).toBeTruthy();
        }
        expect(await spent()).toBe(before + ROUNDS);
      }, 180_000);
    });

    describe('the passkey', () => {
      let app: AppCreated;
      let passkeyId: string;
      const passkey = createSoftPasskey();

      beforeAll(async () => {
        app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', devMode: true });
        const holder = await addUser();
        const reg = await kh.rest('POST', `/v2/users/${holder.userId}/passkeys`, {});
        passkeyId = reg.body.passkeyId;
        const verified = await kh.rest('POST', `/v2/users/${holder.userId}/passkeys/${passkeyId}`, { publicKeyCredential: passkey.register(reg.body.publicKeyCredentialCreationOptions, base), passkeyName: 'p' });
        expect(verified.status).toBe(200);
      }, 60_000);

      const resumes = (a: Sent) => a.status === 303 && /\/oauth\/v2\/authorize\/[\w-]+$/.test(new URL(a.location ?? '/', base).pathname);

      it(`one passkey answer to the first page's challenge sent ${AT_ONCE} times at once: checked once; the others are replays`, async () => {
        const used = async () => (await audit(passkeyId, ['passkey.used'])).length;
        const before = await used();
        for (let round = 0; round < ROUNDS; round++) {
          const b = browser(base);
          const step = await b.follow(authorizeUrl(app.clientId, REDIRECT, await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), { prompt: 'login' }));
          const options = JSON.parse(unescapeHtml(/id="passkey-step" data-options="([^"]*)"/.exec(step.html!)![1]!));
          const answer = JSON.stringify(passkey.assert(options.challenge, base, options.rpId));
          const path = formAction(step.html!, 'passkey')!;
          const cookie = b.jar.header(new URL(path, base));
          const answers = await Promise.all(range(AT_ONCE).map((i) => send(at(i), path, { form: { form_token: formToken(step.html!), response: answer, failure: '' }, headers: { cookie } })));
          const { winner, losers } = oneWinner(answers, resumes);
          // A replay of the taken challenge; or, arriving after the winner finished, no passkey step left.
          for (const lost of losers) expect(lost.text.includes('data-reason="PASSKEY_LOGIN_REPLAYED"') || new URL(lost.location ?? '/', base).pathname === new URL(step.url).pathname, `${lost.status} ${lost.location}`).toBe(true);
          const back = await b.follow(new URL(winner.location!, base));
          expect(back.left?.searchParams.get('code'), back.html?.slice(0, 300)).toBeTruthy();
        }
        expect(await used()).toBe(before + ROUNDS);
      }, 180_000);
    });

    it(`the recovery codes page of a first factor acknowledged ${AT_ONCE} times at once: one login recorded, one finish`, async () => {
      const CODES_ROUNDS = 4;
      const app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC', devMode: true });
      const orgId = (await kh.rest('POST', '/v2/organizations', { name: `Codes once ${process.pid}` })).body.organizationId as string;
      expect((await kh.rest('POST', '/management/v1/policies/login', { forceMfa: true }, { 'x-service-orgid': orgId })).status).toBe(200);
      const resumes = (a: Sent) => a.status === 303 && /\/oauth\/v2\/authorize\/[\w-]+$/.test(new URL(a.location ?? '/', base).pathname);
      for (let round = 0; round < CODES_ROUNDS; round++) {
        const username = `codes-${round}-${process.pid}`;
        const added = await kh.rest('POST', '/v2/users/human', { username, organization: { orgId }, profile: { givenName: 'C', familyName: 'O' }, email: { email: `${username}@example.com` }, password: { password: PASSWORD, changeRequired: false } });
        expect(added.status).toBe(200);
        const b = browser(base);
        let step = await b.follow(authorizeUrl(app.clientId, REDIRECT, await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier())));
        // Name, password, the authenticator app chosen at the forced enrolment, its first code: the codes page.
        for (const [name, form] of [
          ['username', { username }],
          ['password', { password: PASSWORD }],
          ['enrol-method', { method: 'totp' }],
        ] as const) {
          const res = await b.request(new URL(formAction(step.html!, name)!, step.url), { form: { form_token: formToken(step.html!), ...form } });
          step = await b.follow(new URL(res.headers.get('location')!, step.url));
        }
        const secret = /id="totp-secret">([^<]+)</.exec(step.html!)![1]!.replaceAll(' ', '');
        const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate();
        const shown = await b.request(new URL(formAction(step.html!, 'totp')!, step.url), { form: { form_token: formToken(step.html!), code } });
        const codesPage = await shown.text();
        expect(codesPage).toContain('id="recovery-codes"');
        const path = formAction(codesPage, 'key')!;
        const cookie = b.jar.header(new URL(path, base));
        const answers = await Promise.all(range(AT_ONCE).map((i) => send(at(i), path, { form: { form_token: formToken(codesPage) }, headers: { cookie } })));
        const { winner, losers } = oneWinner(answers, resumes);
        // Arriving after the winner stored the login finished: the login's page as it is now.
        for (const lost of losers) expect(new URL(lost.location ?? '/', base).pathname, `${lost.status} ${lost.text.slice(0, 200)}`).toBe(new URL(path, base).pathname.replace(/\/key$/, ''));
        const back = await b.follow(new URL(winner.location!, base));
        expect(back.left?.searchParams.get('code'), back.html?.slice(0, 300)).toBeTruthy();
        const userId = added.body.userId as string;
        expect((await audit(userId, ['user.login.succeeded'])).length).toBe(1);
      }
    }, 180_000);
  });
}
