// The login surface as a browser meets it, over plain HTTP with a cookie jar:
// every page Keyhold renders there — the username and password steps, a
// refused authorization, an unknown interaction, the device code pages, the
// sign-out question — comes with the strict headers (no script, no framing,
// no base URL, no referrer, never cached, no sniffing), and what a client or a
// link chose (an app's name, login_hint, a redirect_uri, a prefilled user
// code) is shown as text, never as markup. The API answers CORS only to
// KEYHOLD_CORS_ORIGINS, and never with credentials.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken, logIn, type AppCreated } from '../../support/oidc-login.js';
import { createHash } from 'node:crypto';
import { chromiumAvailable, launchChromium } from '../../support/chromium.js';

/** Markup a hostile app owner or link would try: quotes to leave an attribute, a script, an image with a handler. */
const MARKUP = `"'><script>alert(1)</script><img src=x onerror=alert(2)>`;
const ESCAPED = '&quot;&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;';
const REDIRECT = 'http://localhost:5182/cb';
const USERNAME = 'page.reader';
const PASSWORD = 'pages are read as text 19';
const CONSOLE_ORIGIN = 'https://console.example';

let kh: TestKeyhold;
let base: string;
let web: AppCreated;
let device: AppCreated;

/** The headers of every login page (src/login/pages/layout.ts LOGIN_HEADERS). */
function expectStrictPage(res: Response, html: string, label: string, ownScript = false): void {
  expect(res.headers.get('content-type'), label).toBe('text/html; charset=utf-8');
  const csp = res.headers.get('content-security-policy') ?? '';
  for (const directive of ["default-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"]) expect(csp, label).toContain(directive);
  // A page offering a passkey loads Keyhold's own script (script-src 'self'), nothing inline.
  if (ownScript) expect(csp, label).toContain("script-src 'self'");
  expect(csp, label).not.toMatch(ownScript ? /unsafe-inline|unsafe-eval/ : /script-src|unsafe-inline|unsafe-eval/);
  expect(res.headers.get('x-frame-options'), label).toBe('DENY');
  expect(res.headers.get('x-content-type-options'), label).toBe('nosniff');
  expect(res.headers.get('referrer-policy'), label).toBe('no-referrer');
  expect(res.headers.get('cache-control'), label).toBe('no-store');
  // No script and no element a client could have slipped in.
  const own = ownScript ? html.replace(/<script src="\/ui\/login\/assets\/key-step-[\w-]+\.js" defer><\/script>/, '') : html;
  expect(own, label).not.toMatch(/<script|<img/i);
}

function authorizeUrl(clientId: string, extra: Record<string, string> = {}): URL {
  const url = new URL(`${base}/oauth/v2/authorize`);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSstw-cM',
    code_challenge_method: 'S256',
    ...extra,
  }).toString();
  return url;
}

beforeAll(async () => {
  kh = await startTestKeyhold({ env: { KEYHOLD_CORS_ORIGINS: CONSOLE_ORIGIN } });
  base = `http://localhost:${kh.port}`;
  const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Pages' })).body.id;
  const user = await kh.rest('POST', '/v2/users/human', {
    username: USERNAME,
    profile: { givenName: 'Page', familyName: 'Reader' },
    email: { email: 'reader@example.com' },
    password: { password: PASSWORD, changeRequired: false },
  });
  expect(user.status).toBe(200);
  // An app's name is its owner's to choose: symbols are allowed in display names.
  web = await addApp(kh, projectId, { name: `Web ${MARKUP}`, redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
  device = await addApp(kh, projectId, {
    name: `TV ${MARKUP}`,
    appType: 'OIDC_APP_TYPE_NATIVE',
    authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
    responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
    grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'],
  });
}, 60_000);
afterAll(async () => kh?.close());

describe('login pages', () => {
  it('the username and password steps: strict headers; the app name and login_hint shown as text', async () => {
    const b = browser(base);
    const first = await b.follow(authorizeUrl(web.clientId, { login_hint: MARKUP }));
    expect(first.page!.status).toBe(200);
    expectStrictPage(first.page!, first.html!, 'username step', true);
    expect(first.html).toContain(`Web ${ESCAPED}`);
    expect(first.html).toContain(`value="${ESCAPED}"`);

    // An unknown name goes on to the password step like any other; it is shown back as text.
    const next = await b.request(new URL(formAction(first.html!, 'username')!, base), { form: { form_token: formToken(first.html!), username: MARKUP } });
    const password = await b.follow(new URL(next.headers.get('location')!, base));
    expectStrictPage(password.page!, password.html!, 'password step');
    expect(formAction(password.html!, 'password')).toBeTruthy();
    expect(password.html).toContain(ESCAPED);
  });

  it('a refused authorization (unregistered redirect_uri): strict headers; the URI sent shown as text, no redirect', async () => {
    const res = await fetch(authorizeUrl(web.clientId, { redirect_uri: `${REDIRECT}?next=${MARKUP}` }), { redirect: 'manual' });
    const html = await res.text();
    expect([res.status, res.headers.get('location')]).toEqual([400, null]);
    expectStrictPage(res, html, 'error page');
    expect(html).toContain('invalid_redirect_uri');
    expect(html).toContain(`${REDIRECT}?next=${ESCAPED}`);
  });

  it('an unknown interaction and a form without its token: strict headers, 400', async () => {
    const unknown = await fetch(`${base}/ui/login/nosuchinteraction`);
    const html = await unknown.text();
    expect(unknown.status).toBe(400);
    expectStrictPage(unknown, html, 'unknown interaction');
    const forged = await fetch(`${base}/ui/login/nosuchinteraction/username`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `username=${encodeURIComponent(MARKUP)}` });
    const forgedHtml = await forged.text();
    expect(forged.status).toBe(400);
    expectStrictPage(forged, forgedHtml, 'form without its token');
  });

  it('the device code page: a user code from a link is prefilled as text; the confirmation names the app as text', async () => {
    const linked = await fetch(`${base}/ui/login/device?user_code=${encodeURIComponent(MARKUP)}`);
    const linkedHtml = await linked.text();
    expect(linked.status).toBe(200);
    expectStrictPage(linked, linkedHtml, 'code page from a link');
    expect(linkedHtml).toContain(`value="${ESCAPED}"`);

    const started = await fetch(`${base}/oauth/v2/device_authorization`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: device.clientId, scope: 'openid' }) });
    const { user_code: userCode } = (await started.json()) as { user_code: string };
    const b = browser(base);
    const entry = await b.follow(`${base}/ui/login/device`);
    expectStrictPage(entry.page!, entry.html!, 'code page');
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(entry.html!)![1]!;
    const confirm = await b.request(`${base}/ui/login/device`, { form: { xsrf, user_code: userCode } });
    const confirmHtml = await confirm.text();
    expect(confirm.status).toBe(200);
    expectStrictPage(confirm, confirmHtml, 'device confirmation');
    expect(confirmHtml).toContain(`TV ${ESCAPED}`);
    expect(confirmHtml).toContain(userCode);
  });

  it('the sign-out question of a signed-in user: strict headers', async () => {
    const b = browser(base);
    await logIn(b, authorizeUrl(web.clientId), USERNAME, PASSWORD);
    const question = await b.follow(`${base}/oidc/v1/end_session?client_id=${web.clientId}`);
    expect(question.page!.status).toBe(200);
    expect(question.html).toMatch(/name="xsrf"/);
    expectStrictPage(question.page!, question.html!, 'sign-out question');
  });
});

/** The policy of the library's own auto-submitting pages: no framing, and only their own inline script (by its hash). */
function expectOwnScriptOnly(res: Response, html: string, label: string): void {
  const csp = res.headers.get('content-security-policy') ?? '';
  for (const directive of ["default-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"]) expect(csp, label).toContain(directive);
  expect(csp, label).not.toMatch(/unsafe-inline|unsafe-eval/);
  expect(res.headers.get('x-frame-options'), label).toBe('DENY');
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
  expect(scripts, label).toHaveLength(1);
  expect(csp, label).toContain(`'sha256-${createHash('sha256').update(scripts[0]!).digest('base64')}'`);
}

describe("the library's own auto-submitting pages", () => {
  it('a sign-out without a session and a form_post answer: framing refused, only their own script allowed', async () => {
    const signOut = await fetch(`${base}/oidc/v1/end_session`);
    const signOutHtml = await signOut.text();
    expect(signOut.status).toBe(200);
    expectOwnScriptOnly(signOut, signOutHtml, 'sign-out without a session');

    const b = browser(base);
    await logIn(b, authorizeUrl(web.clientId), USERNAME, PASSWORD);
    const posted = await b.request(authorizeUrl(web.clientId, { response_mode: 'form_post' }));
    const postedHtml = await posted.text();
    expect(postedHtml).toContain(`action="${REDIRECT}"`);
    expectOwnScriptOnly(posted, postedHtml, 'response_mode=form_post');
  });

  it.skipIf(!chromiumAvailable())('in Chromium the sign-out without a session still submits itself and ends on the signed-out page', async () => {
    const chromium = await launchChromium();
    try {
      const page = await chromium.newPage();
      const blocked: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) blocked.push(m.text());
      });
      await page.goto(`${base}/oidc/v1/end_session`);
      await page.waitForURL(/\/oidc\/v1\/end_session\/success/, { timeout: 10_000 });
      expect(blocked).toEqual([]);
    } finally {
      await chromium.close();
    }
  });
});

describe('the API and browsers of other origins', () => {
  it('CORS answers only KEYHOLD_CORS_ORIGINS, never with credentials', async () => {
    const preflight = (origin: string) =>
      fetch(`${base}/management/v1/projects`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });
    const listed = await preflight(CONSOLE_ORIGIN);
    expect([listed.status, listed.headers.get('access-control-allow-origin')]).toEqual([204, CONSOLE_ORIGIN]);
    expect(listed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(listed.headers.get('access-control-allow-credentials')).toBeNull();

    const other = await preflight('https://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('access-control-allow-methods')).toBeNull();
    // A simple request from another origin is answered (bearer tokens are never ambient), but not readable there.
    const read = await fetch(`${base}/auth/v1/users/me`, { headers: { origin: 'https://evil.example', authorization: `Bearer ${kh.adminToken}` } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    await read.text();
  });
});
