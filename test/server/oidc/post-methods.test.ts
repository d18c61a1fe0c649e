// POST at the authorization and end-session endpoints (OpenID Connect Core
// §3.1.2.1, RP-Initiated Logout §2), as a relying party sends it: its page on
// another site (127.0.0.1, while Keyhold is localhost) submits a form to
// Keyhold in Chromium. Keyhold's cookies stay SameSite=Lax, so the browser
// sends none with that cross-site POST; Keyhold's continue page sends the same
// form again from its own origin, and the user's session counts
// (src/server/oidc/post-methods.ts, docs/security.md 13.).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import Provider from 'oidc-provider';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../../support/chromium.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, sendWithNodeHttp, type AppCreated } from '../../support/oidc-login.js';
import { ExtensionCheckFailed } from '../../../src/server/oidc/extensions.js';
import { applyPostMethods, checkPostMethods } from '../../../src/server/oidc/post-methods.js';
import { OIDC_ROUTES, POST_METHOD_PATHS } from '../../../src/server/oidc/configuration.js';

const skip = !chromiumAvailable();
announceChromiumSkip('POST at the authorization and end-session endpoints in Chromium');

const USERNAME = 'posting';
const PASSWORD = 'a long and memorable passphrase';

let kh: TestKeyhold;
let base: string;
let app: AppCreated;
let config: oidc.Configuration;
/** The relying party: another site, whose pages submit forms to Keyhold. */
let rp: http.Server;
let rpBase: string;
/** Launched while Keyhold starts. */
let launching: Promise<Browser> | undefined;
const forms = new Map<string, { action: string; fields: Record<string, string> }>();
const arrived: string[] = [];

/** The relying party's page that posts `fields` to Keyhold's `path` as soon as it loads. */
function postPage(path: string, fields: Record<string, string>): string {
  const id = String(forms.size);
  forms.set(id, { action: `${base}${path}`, fields });
  return `${rpBase}/post/${id}`;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

beforeAll(async () => {
  rp = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://rp');
    const form = url.pathname.startsWith('/post/') ? forms.get(url.pathname.slice(6)) : undefined;
    if (form) {
      const inputs = Object.entries(form.fields).map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v)}">`).join('');
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><form method="post" action="${escape(form.action)}">${inputs}</form><script>document.forms[0].submit()</script>`);
      return;
    }
    arrived.push(`${rpBase}${req.url}`);
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<p>app</p>');
  });
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  rpBase = `http://127.0.0.1:${(rp.address() as AddressInfo).port}`;
  if (!skip) {
    launching = launchChromium();
    // A failed launch is reported by the browser tests' own beforeAll, not as an unhandled rejection.
    launching.catch(() => undefined);
  }
  kh = await startTestKeyhold();
  base = `http://localhost:${kh.port}`;
  const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Posting' })).body.id;
  const created = await kh.rest('POST', '/v2/users/human', {
    username: USERNAME,
    profile: { givenName: 'Post', familyName: 'Form' },
    email: { email: 'posting@example.com' },
    password: { password: PASSWORD, changeRequired: false },
  });
  expect(created.status).toBe(200);
  app = await addApp(kh, projectId, {
    redirectUris: [`${rpBase}/cb`],
    postLogoutRedirectUris: [`${rpBase}/bye`],
    appType: 'OIDC_APP_TYPE_USER_AGENT',
    authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
    devMode: true,
  });
  config = await oidc.discovery(new URL(base), app.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
}, 60_000);
afterAll(async () => {
  await (await launching?.catch(() => undefined))?.close();
  await kh?.close();
  await new Promise((resolve) => rp?.close(resolve));
});

/** An authorization request's fields and what redeeming its code needs. */
async function authorization(extra: Record<string, string> = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const fields = {
    client_id: app.clientId,
    redirect_uri: `${rpBase}/cb`,
    response_type: 'code',
    scope: 'openid profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...extra,
  };
  return { fields, verifier, state };
}

describe.skipIf(skip)('a relying party on another site POSTs to Keyhold in Chromium', () => {
  let chromium: Browser;
  let context: BrowserContext;
  let page: Page;
  /** Every request the browser sent to Keyhold: method and path. */
  const sent: string[] = [];
  /** An ID token of the signed-in session, for end-session's hint. */
  let idToken: string;
  const posts: Promise<string>[] = [];

  beforeAll(async () => {
    chromium = await launching!;
    context = await chromium.newContext({ locale: 'en-US' });
    page = await context.newPage();
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.origin === base) sent.push(`${r.method()} ${url.pathname}`);
    });
    // The POSTs' answers, with the Fetch Metadata the browser sent (known once the request went out).
    page.on('response', (res) => {
      const r = res.request();
      const url = new URL(r.url());
      if (url.origin === base && r.method() === 'POST') posts.push(r.allHeaders().then((h) => `${url.pathname} ${h['sec-fetch-site']} ${res.status()}`));
    });
  }, 30_000);

  /** Opens the relying party's page posting to `path` and waits until the browser is back at the relying party. */
  async function postFromRp(path: string, fields: Record<string, string>, back: string): Promise<void> {
    sent.length = 0;
    await page.goto(postPage(path, fields));
    if (back) await page.waitForURL(`${rpBase}${back}**`);
  }

  const returned = (prefix: string) => new URL([...arrived].reverse().find((u) => u.startsWith(`${rpBase}${prefix}`))!);

  it('the user signs in after a cross-site POST, and the code redeems', async () => {
    const { fields, verifier, state } = await authorization({ nonce: 'n-1' });
    sent.length = 0;
    posts.length = 0;
    await page.goto(postPage(OIDC_ROUTES.authorization, fields));
    await page.getByLabel('Username').fill(USERNAME);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${rpBase}/cb**`);
    // The relying party's POST came from another site: Keyhold's continue page (200) sent it again from Keyhold, answered as the GET (303).
    expect((await Promise.all(posts)).slice(0, 2)).toEqual([`${OIDC_ROUTES.authorization} cross-site 200`, `${OIDC_ROUTES.authorization} same-origin 303`]);
    const tokens = await oidc.authorizationCodeGrant(config, returned('/cb'), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: 'n-1' });
    expect(tokens.claims()!.aud).toBe(app.clientId);
    const info = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
    expect(info.preferred_username).toBe(USERNAME);
  }, 20_000);

  it('a second POST with prompt=none gets a code from the existing session, without a login page', async () => {
    const { fields, verifier, state } = await authorization({ prompt: 'none' });
    await postFromRp(OIDC_ROUTES.authorization, fields, '/cb');
    expect(sent.filter((s) => s.includes('/ui/login'))).toEqual([]);
    const back = returned('/cb');
    expect(back.searchParams.get('error')).toBeNull();
    const tokens = await oidc.authorizationCodeGrant(config, back, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.claims()!.aud).toBe(app.clientId);
    idToken = tokens.id_token!;
  });

  it('a POST never skips a prompt: prompt=login shows the login page although signed in', async () => {
    const { fields } = await authorization({ prompt: 'login' });
    await postFromRp(OIDC_ROUTES.authorization, fields, '');
    await page.getByLabel('Username').waitFor();
  });

  it('a POST to end-session without id_token_hint only asks: the session stays until the user answers', async () => {
    await postFromRp(OIDC_ROUTES.end_session, { post_logout_redirect_uri: `${rpBase}/bye` }, '');
    await page.getByText('Do you want to sign out of Keyhold?').waitFor();
    // Not answered: the session goes on.
    const { fields } = await authorization({ prompt: 'none' });
    await postFromRp(OIDC_ROUTES.authorization, fields, '/cb');
    expect(returned('/cb').searchParams.get('code')).toBeTruthy();
  });

  it('a POST to end-session with id_token_hint and post_logout_redirect_uri ends the session and goes back to the app', async () => {
    await postFromRp(OIDC_ROUTES.end_session, { id_token_hint: idToken, post_logout_redirect_uri: `${rpBase}/bye`, state: 'bye-state' }, '');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${rpBase}/bye**`);
    expect(returned('/bye').searchParams.get('state')).toBe('bye-state');

    const again = await authorization({ prompt: 'none' });
    await postFromRp(OIDC_ROUTES.authorization, again.fields, '/cb');
    expect(returned('/cb').searchParams.get('error')).toBe('login_required');
  });
});

describe('a POST Keyhold refuses: 400 invalid_request saying why', () => {
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    sendWithNodeHttp(new URL(path, base), 'POST', { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', ...headers }, body);
  const valid = () => new URLSearchParams({ client_id: app.clientId, redirect_uri: `${rpBase}/cb`, response_type: 'code', scope: 'openid', code_challenge: 'c'.repeat(43), code_challenge_method: 'S256' }).toString();

  it('a content type other than a UTF-8 form, a parameter twice, a query beside the form, bad encoding, U+0000, a body over 16 KiB', async () => {
    const cases: [string, string, Record<string, string>, RegExp][] = [
      [OIDC_ROUTES.authorization, JSON.stringify({ client_id: app.clientId }), { 'content-type': 'application/json' }, /content type must be application\/x-www-form-urlencoded/],
      [OIDC_ROUTES.authorization, valid(), { 'content-type': 'multipart/form-data; boundary=x' }, /content type must be/],
      [OIDC_ROUTES.end_session, 'state=x', { 'content-type': 'text/plain' }, /content type must be/],
      [OIDC_ROUTES.authorization, valid(), { 'content-type': 'application/x-www-form-urlencoded; charset=iso-8859-1' }, /must be UTF-8/],
      [OIDC_ROUTES.authorization, `${valid()}&scope=openid+email`, {}, /parameter &quot;scope&quot; must not be provided twice/],
      [OIDC_ROUTES.end_session, 'state=a&client_id=x&state=b', {}, /parameter &quot;state&quot; must not be provided twice/],
      [`${OIDC_ROUTES.authorization}?client_id=${app.clientId}`, valid(), {}, /in the form body, not in the query/],
      [OIDC_ROUTES.authorization, `${valid()}&state=%FF`, {}, /not valid percent-encoded UTF-8/],
      [OIDC_ROUTES.end_session, 'state=a%00b', {}, /parameter &quot;state&quot; contains the NUL character/],
      [OIDC_ROUTES.authorization, `${valid()}&pad=${'a'.repeat(20 * 1024)}`, {}, /larger than 16 KiB/],
    ];
    for (const [path, body, headers, said] of cases) {
      const res = await post(path, body, headers);
      const html = await res.text();
      expect([path, res.status], html).toEqual([path, 400]);
      expect(html).toContain('invalid_request');
      expect(html).toMatch(said);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
    const json = await post(OIDC_ROUTES.authorization, 'a=1&a=2', { accept: 'application/json' });
    expect([json.status, await json.json()]).toEqual([400, { error: 'invalid_request', error_description: 'parameter "a" must not be provided twice' }]);
  });

  it('a well-formed POST is the GET it stands for: 303 to the login; from another origin (no Fetch Metadata), the continue page', async () => {
    const direct = await post(OIDC_ROUTES.authorization, valid());
    expect(direct.status).toBe(303);
    expect(direct.headers.get('location')).toMatch(new RegExp(`^${base}/ui/login/`));

    const foreign = await post(OIDC_ROUTES.authorization, `${valid()}&state=${encodeURIComponent('"><script>alert(1)</script>')}`, { origin: rpBase });
    const html = await foreign.text();
    expect(foreign.status).toBe(200);
    expect(html).toContain(`action="${base}${OIDC_ROUTES.authorization}"`);
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(html).not.toContain('<script>alert');
    expect(html).toMatch(/<noscript>.*<button type="submit">Continue<\/button><\/noscript>/);
    expect(foreign.headers.get('content-security-policy')).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(foreign.headers.get('x-frame-options')).toBe('DENY');
    expect(foreign.headers.get('cache-control')).toBe('no-store');
    expect(foreign.headers.get('set-cookie')).toBeNull();
    // The re-sent form carries Keyhold's Origin in any browser: no meta tag overrides the header's policy.
    expect(foreign.headers.get('referrer-policy')).toBe('same-origin');
    expect(html).toContain('<meta name="referrer" content="same-origin">');
    expect(html).not.toContain('no-referrer');
  });
});

describe('the start-up self-check', () => {
  const provider = () => new Provider('http://localhost:1', { routes: OIDC_ROUTES, features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } } });

  it('passes with the extension on the pinned library, fails without it (the library answers POST 404)', async () => {
    const extended = provider();
    applyPostMethods(extended, { paths: POST_METHOD_PATHS });
    await expect(checkPostMethods(extended, { paths: POST_METHOD_PATHS })).resolves.toBeUndefined();
    await expect(checkPostMethods(provider(), { paths: POST_METHOD_PATHS })).rejects.toThrow(ExtensionCheckFailed);
  });
});
