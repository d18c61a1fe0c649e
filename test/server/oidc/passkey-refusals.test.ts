// The passkey step's refusals over plain HTTP, a software passkey answering
// the first page's challenge: what a refused credential tells the browser
// (docs/security.md, passkeys at the login). Every refusal of the check is one
// reason, PASSKEY_LOGIN_REFUSED — an unknown credential, a user deactivated,
// a machine user's credential, an assertion without user verification —
// while a cloned authenticator (a valid signature, a counter gone back) is
// told as itself; none of them signs in.
import { restReason } from '../../support/errors.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSoftPasskey, type SoftPasskey } from '../../support/soft-passkey.js';
import { machineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken, type AppCreated } from '../../support/oidc-login.js';

const REDIRECT = 'http://localhost:5183/cb';
let kh: TestKeyhold;
let base: string;
let app: AppCreated;
let counter = 0;

const unescapeHtml = (s: string) => s.replace(/&(quot|amp|lt|gt|#39);/g, (_m, e: string) => ({ quot: '"', amp: '&', lt: '<', gt: '>', '#39': "'" })[e] as string);

async function human(): Promise<string> {
  const username = `pk-refusal-${process.pid}-${++counter}`;
  const res = await kh.rest('POST', '/v2/users/human', { username, profile: { givenName: 'P', familyName: 'K' }, email: { email: `${username}@example.com` }, password: { password: 'passkey refusals 42 ok', changeRequired: false } });
  expect(res.status).toBe(200);
  return res.body.userId;
}

async function withPasskey(userId: string): Promise<SoftPasskey> {
  const key = createSoftPasskey();
  const reg = await kh.rest('POST', `/v2/users/${userId}/passkeys`, {});
  expect(reg.status).toBe(200);
  const verified = await kh.rest('POST', `/v2/users/${userId}/passkeys/${reg.body.passkeyId}`, { publicKeyCredential: key.register(reg.body.publicKeyCredentialCreationOptions, base), passkeyName: 'p' });
  expect(verified.status).toBe(200);
  return key;
}

/** A new sign-in's first page answered by `answer(challenge, rpId)`: the reason shown, or where it went. */
async function answerFirstPage(answer: (challenge: string, rpId: string) => unknown): Promise<{ reason?: string; location?: string }> {
  const b = browser(base);
  const url = new URL(`${base}/oauth/v2/authorize`);
  url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' }).toString();
  const first = await b.follow(url);
  const options = JSON.parse(unescapeHtml(/id="passkey-step" data-options="([^"]*)"/.exec(first.html!)![1]!));
  const res = await b.request(new URL(formAction(first.html!, 'passkey')!, base), { form: { form_token: formToken(first.html!), response: JSON.stringify(answer(options.challenge, options.rpId)) } });
  if (res.status === 303) return { location: res.headers.get('location')! };
  return { reason: /data-reason="([A-Z_]+)"/.exec(await res.text())?.[1] };
}

describe('the passkey step refuses alike', () => {
  beforeAll(async () => {
    kh = await startTestKeyhold();
    base = `http://localhost:${kh.port}`;
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Passkey refusals' })).body.id;
    app = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
  }, 60_000);
  afterAll(async () => kh?.close());

  it('an unknown credential, a deactivated user, no user verification: one reason; none signs in (a machine user gets no passkey)', async () => {
    const stranger = createSoftPasskey();
    stranger.register({ challenge: 'AAAA', rp: { id: 'localhost' }, user: { id: Buffer.from('nobody').toString('base64url') } }, base);
    expect(await answerFirstPage((c, rpId) => stranger.assert(c, base, rpId))).toEqual({ reason: 'PASSKEY_LOGIN_REFUSED' });

    const deactivated = await human();
    const theirs = await withPasskey(deactivated);
    expect((await kh.rest('POST', `/v2/users/${deactivated}/deactivate`, {})).status).toBe(200);
    expect(await answerFirstPage((c, rpId) => theirs.assert(c, base, rpId))).toEqual({ reason: 'PASSKEY_LOGIN_REFUSED' });

    // A machine user gets no passkey at all (it never signs in at the login).
    const machine = await machineCaller(kh, undefined, `pk-machine-${process.pid}-${++counter}`);
    const refused = await kh.rest('POST', `/v2/users/${machine.userId}/passkeys`, {});
    expect([refused.status, restReason(refused.body)]).toEqual([400, 'USER_NOT_HUMAN']);

    const user = await human();
    const key = await withPasskey(user);
    expect(await answerFirstPage((c, rpId) => key.assert(c, base, rpId, { uv: false }))).toEqual({ reason: 'PASSKEY_LOGIN_REFUSED' });
    // The same passkey, verified: signs in (back to the authorization).
    expect((await answerFirstPage((c, rpId) => key.assert(c, base, rpId))).location).toMatch(/\/oauth\/v2\/authorize\//);
    // A counter gone back: a cloned authenticator, told as itself.
    expect(await answerFirstPage((c, rpId) => key.assert(c, base, rpId, { signCount: 0 }))).toEqual({ reason: 'PASSKEY_LOGIN_CLONED' });
  }, 60_000);
});
