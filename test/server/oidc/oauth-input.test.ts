// What a client sends to the OpenID Provider's endpoints and the login forms is
// read without guessing, like the API's JSON: a parameter sent twice is
// invalid_request (never the first or the last copy), a body past the bound is
// refused, and neither is ever a 500. Plain HTTP, as a hostile client sends it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken, type AppCreated } from '../../support/oidc-login.js';

const REDIRECT = 'http://localhost:5183/cb';
let kh: TestKeyhold;
let base: string;
let app: AppCreated;

const form = (body: string) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

beforeAll(async () => {
  kh = await startTestKeyhold();
  base = `http://localhost:${kh.port}`;
  const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Input' })).body.id;
  app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'] });
}, 60_000);
afterAll(async () => kh?.close());

describe('the OpenID Provider’s endpoints', () => {
  it('a parameter sent twice is invalid_request: at the token endpoint, and at authorize (told at the registered URI, no code)', async () => {
    const token = await fetch(`${base}/oauth/v2/token`, form(`grant_type=authorization_code&code=abc&client_id=${app.clientId}&client_id=${app.clientId}&redirect_uri=${REDIRECT}&code_verifier=${'v'.repeat(43)}`));
    expect([token.status, ((await token.json()) as { error: string }).error]).toEqual([400, 'invalid_request']);

    const url = new URL(`${base}/oauth/v2/authorize`);
    url.search = `client_id=${app.clientId}&redirect_uri=${REDIRECT}&redirect_uri=https://evil.example/cb&response_type=code&scope=openid&code_challenge=${'c'.repeat(43)}&code_challenge_method=S256`;
    const authorize = await fetch(url, { redirect: 'manual' });
    const back = new URL(authorize.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect([back.searchParams.get('error'), back.searchParams.has('code')]).toEqual(['invalid_request', false]);
    expect(back.searchParams.get('error_description')).toContain('redirect_uri');
  });

  it('a body over the bound is a 400 invalid_request, not read on', async () => {
    const big = await fetch(`${base}/oauth/v2/token`, form(`grant_type=authorization_code&client_id=${app.clientId}&pad=${'a'.repeat(100_000)}`));
    expect([big.status, ((await big.json()) as { error: string }).error]).toEqual([400, 'invalid_request']);
    const introspect = await fetch(`${base}/oauth/v2/introspect`, form(`token=${'t'.repeat(100_000)}&client_id=${app.clientId}`));
    expect(introspect.status).toBe(400);
    await introspect.text();
  });
});

describe('the login forms', () => {
  it('a form body past the listener’s bound is 413; the same login goes on after it', async () => {
    const url = new URL(`${base}/oauth/v2/authorize`);
    url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', code_challenge: 'c'.repeat(43), code_challenge_method: 'S256' }).toString();
    const b = browser(base);
    const first = await b.follow(url);
    const action = new URL(formAction(first.html!, 'username')!, base);
    const huge = await b.request(action, { form: { form_token: formToken(first.html!), username: 'u'.repeat(3 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
    await huge.text();
    const next = await b.request(action, { form: { form_token: formToken(first.html!), username: 'someone' } });
    expect(next.status).toBe(303);
  });
});
