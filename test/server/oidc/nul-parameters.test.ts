// A client's authorization parameters travel into what the provider stores
// (the login's interaction), and PostgreSQL's JSON cannot hold U+0000: a NUL
// in nonce, state, login_hint, ui_locales or acr_values was a 500. It is the
// client's error: the app's redirect URI is told invalid_request, naming the
// parameter, and nothing is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp } from '../../support/oidc-login.js';

const REDIRECT = 'https://app.example/cb';

describe('authorization parameters holding U+0000', () => {
  let kh: TestKeyhold;
  let base: string;
  let clientId: string;

  beforeAll(async () => {
    kh = await startTestKeyhold({});
    base = `http://localhost:${kh.port}`;
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Nul' })).body.id;
    ({ clientId } = await addApp(kh, projectId, {
      appType: 'OIDC_APP_TYPE_USER_AGENT',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      redirectUris: [REDIRECT],
    }));
  }, 60_000);
  afterAll(async () => kh?.close());

  const authorize = (extra: Record<string, string>) => {
    const url = new URL(`${base}/oauth/v2/authorize`);
    url.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: REDIRECT,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      ...extra,
    }).toString();
    return fetch(url, { redirect: 'manual' });
  };

  it.each(['nonce', 'state', 'login_hint', 'ui_locales', 'acr_values'])('%s: invalid_request at the redirect URI, naming it', async (name) => {
    const res = await authorize({ [name]: 'a\u0000b' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toBe(`${name}: contains the NUL character (U+0000)`);
  });

  it('a client_id, interaction id or token holding U+0000 is unknown: 4xx, never a 500', async () => {
    const form = (body: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });
    const answers = await Promise.all([
      fetch(`${base}/oauth/v2/token`, form({ grant_type: 'client_credentials', client_id: 'a\u0000b', client_secret: 'x' })),
      fetch(`${base}/oauth/v2/authorize?client_id=a%00b&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(REDIRECT)}`, { redirect: 'manual' }),
      fetch(`${base}/oauth/v2/token`, form({ grant_type: 'refresh_token', client_id: clientId, refresh_token: 'a\u0000b' })),
      fetch(`${base}/ui/login/a%00b`, { redirect: 'manual' }),
    ]);
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s >= 400 && s < 500), String(statuses)).toBe(true);
    expect((await answers[0]!.json()).error).toBe('invalid_client');
  });

  it('the same request without the NUL goes on to the login', async () => {
    const res = await authorize({ nonce: 'ab', state: 'ab' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${base}/ui/login/`));
  });
});
