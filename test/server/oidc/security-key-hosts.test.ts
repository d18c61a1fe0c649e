// The second factor is decided over all of the user's ready keys, never from
// the request's Host: with several RP ids configured, a login sent with the
// Host of another one still asks for the key; keys that work only elsewhere
// (or under an RP id the operator removed) refuse the login and say where they
// work; forceMfa offers no enrolment to a user who has a key anywhere; a start
// warns about keys under RP ids no longer configured. Keys are made with the
// soft authenticator (test/support/soft-authenticator.ts), the login driven
// over plain HTTP (node:http, which sends the Host it is given).
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { U2FState, UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { pgliteDirFromTemplate } from '../../support/databases.js';
import { addOrg, inOrg } from '../../support/identity.js';
import { humanUser, PASSWORD } from '../../support/key-login.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken, sendWithNodeHttp } from '../../support/oidc-login.js';
import { createSoftAuthenticator, type SoftAuthenticator } from '../../support/soft-authenticator.js';
import { startRegistration } from '../../support/u2f.js';

const REDIRECT = 'http://localhost:5178/cb';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

/** A port nobody listens on now (the configured WebAuthn origin names it before Keyhold starts). */
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

describe('security keys and relying-party ids at the login', () => {
  let dir: string;
  let kh: TestKeyhold;
  let issuer: string;
  let clientId: string;
  let strictOrg: string;

  beforeAll(async () => {
    dir = await pgliteDirFromTemplate();
    const port = await freePort();
    issuer = `http://localhost:${port}`;
    kh = await startTestKeyhold({
      env: {
        KEYHOLD_DATA_DIR: dir,
        KEYHOLD_PORT: String(port),
        KEYHOLD_WEBAUTHN_RP_IDS: 'localhost,other.example,gone.example',
        KEYHOLD_WEBAUTHN_ORIGINS: `${issuer},https://other.example,https://gone.example`,
      },
    });
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Keys and hosts' })).body.id;
    clientId = (await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true })).clientId;
    strictOrg = await addOrg(kh, `Keys required ${Date.now()}`);
    expect((await kh.rest('POST', '/management/v1/policies/login', { forceMfa: true }, inOrg(strictOrg))).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await kh?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A key of `userId` registered (by the admin, over the API) under `rpId` at `origin`. */
  async function keyUnder(userId: string, rpId: string, origin: string): Promise<SoftAuthenticator> {
    const reg = await startRegistration(kh, userId, kh.adminToken, rpId);
    const authenticator = createSoftAuthenticator();
    const credential = authenticator.makeRegistration({ challenge: reg.challenge, origin, rpId: reg.rpId });
    expect((await kh.rest('POST', `/v2/users/${userId}/u2f/${reg.u2fId}`, { publicKeyCredential: credential, tokenName: `key for ${rpId}` })).status).toBe(200);
    return authenticator;
  }

  /** Username and password at `base`, every request with `headers`; the page (or the app's URL) that follows. */
  async function passwordAt(base: string, username: string, headers: Record<string, string> = {}) {
    const b = browser(base, { 'accept-language': 'en', ...headers }, sendWithNodeHttp);
    const authorize = new URL(`${base}/oauth/v2/authorize`);
    authorize.search = new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 'keys', code_challenge: CHALLENGE, code_challenge_method: 'S256' }).toString();
    const first = await b.follow(authorize);
    const named = await b.request(new URL(formAction(first.html!, 'username')!, first.url), { form: { form_token: formToken(first.html!), username } });
    const form = await b.follow(new URL(named.headers.get('location')!, first.url));
    const sent = await b.request(new URL(formAction(form.html!, 'password')!, form.url), { form: { form_token: formToken(form.html!), username, password: PASSWORD } });
    const step = await b.follow(new URL(sent.headers.get('location') ?? form.url.href, form.url));
    return { b, step };
  }

  /** The amr of the ID token the code redeems for. */
  async function amrOf(base: string, back: URL): Promise<string[]> {
    const res = await fetch(`${base}/oauth/v2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: clientId, code: back.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: VERIFIER }),
    });
    const { id_token } = (await res.json()) as { id_token: string };
    return JSON.parse(Buffer.from(id_token.split('.')[1]!, 'base64url').toString('utf8')).amr;
  }

  const keyCount = async (userId: string) => (await kh.client(UserService, 'grpc').listU2FTokens({ userId })).result.length;

  it("a key under the issuer's RP id is asked for even when every request names another configured RP id's host; the key finishes the login", async () => {
    const user = await humanUser(kh, 'hosted');
    const key = await keyUnder(user.userId, 'localhost', issuer);
    const { b, step } = await passwordAt(issuer, user.username, { host: 'other.example', 'x-forwarded-host': 'other.example' });
    expect(step.left, 'the password alone did not finish the login').toBeUndefined();
    expect(step.html).toContain('data-mode="authenticate"');
    const options = JSON.parse(/data-options="([^"]+)"/.exec(step.html!)![1]!.replaceAll('&quot;', '"'));
    expect(options.rpId).toBe('localhost');
    expect(options.allowCredentials.map((c: { id: string }) => c.id)).toEqual([key.credentialId]);
    const answer = key.makeAssertion({ challenge: options.challenge, origin: issuer, rpId: 'localhost', signCount: 1 });
    const sent = await b.request(new URL(formAction(step.html!, 'key')!, step.url), { form: { form_token: formToken(step.html!), response: JSON.stringify(answer), failure: '' } });
    const back = (await b.follow(new URL(sent.headers.get('location')!, step.url))).left!;
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(await amrOf(issuer, back)).toEqual(['pwd', 'hwk', 'mfa']);
  });

  it("a sign-in held at the key step or at enrolment ends with its user's sessions: after a reset, the held key's answer gives no code and enrolment adds no key", async () => {
    const reset = async (userId: string) => expect((await kh.rest('POST', `/v2/users/${userId}/password`, { newPassword: { password: 'set by the administrator 9' } })).status).toBe(200);
    // The key step, held across a reset: the right key's answer finishes nothing.
    const user = await humanUser(kh, 'held-key');
    const key = await keyUnder(user.userId, 'localhost', issuer);
    const { b, step } = await passwordAt(issuer, user.username);
    expect(step.html).toContain('data-mode="authenticate"');
    const options = JSON.parse(/data-options="([^"]+)"/.exec(step.html!)![1]!.replaceAll('&quot;', '"'));
    await reset(user.userId);
    const answer = key.makeAssertion({ challenge: options.challenge, origin: issuer, rpId: 'localhost', signCount: 1 });
    const sent = await b.request(new URL(formAction(step.html!, 'key')!, step.url), { form: { form_token: formToken(step.html!), response: JSON.stringify(answer), failure: '' } });
    const after = sent.headers.get('location') ? await b.follow(new URL(sent.headers.get('location')!, step.url)) : undefined;
    expect(after?.left?.searchParams.get('code') ?? null).toBeNull();
    // Enrolment under forceMfa, held across a reset: the page no longer offers to register a key.
    const fresh = await humanUser(kh, 'held-enrol', strictOrg);
    const enrol = await passwordAt(issuer, fresh.username);
    expect(enrol.step.html).toContain('data-mode="register"');
    await reset(fresh.userId);
    const again = await enrol.b.follow(enrol.step.url);
    expect(again.html ?? '').not.toContain('data-mode="register"');
    const ready = (await kh.client(UserService, 'grpc').listU2FTokens({ userId: fresh.userId })).result.filter((t) => t.state === U2FState.U2F_STATE_READY);
    expect(ready).toHaveLength(0);
  });

  it('keys only under another RP id: the login is refused, naming where they work — never the password alone', async () => {
    const user = await humanUser(kh, 'elsewhere');
    await keyUnder(user.userId, 'other.example', 'https://other.example');
    const { b, step } = await passwordAt(issuer, user.username);
    expect(step.left).toBeUndefined();
    expect(step.page!.status).toBe(403);
    expect(step.html).toContain('data-refusal="key-elsewhere"');
    expect(step.html).toContain('is registered for another address and cannot be used here');
    expect(step.html).toContain('<code>https://other.example</code>');
    expect(step.html).not.toContain('data-mode=');
    // Shown again, the login is still refused.
    const again = await b.follow(step.url);
    expect(again.page!.status).toBe(403);
    expect(again.html).toContain('data-refusal="key-elsewhere"');
    // Once an administrator removed the keys, the page asks for the password again, which then finishes with it alone.
    await kh.client(UserService, 'grpc').removeAllU2F({ userId: user.userId });
    const retyped = await b.follow(step.url);
    expect(retyped.html).toContain('autocomplete="current-password"');
    const sent = await b.request(new URL(formAction(retyped.html!, 'password')!, retyped.url), { form: { form_token: formToken(retyped.html!), username: user.username, password: PASSWORD } });
    const back = (await b.follow(new URL(sent.headers.get('location')!, retyped.url))).left!;
    expect(await amrOf(issuer, back)).toEqual(['pwd']);
  });

  it('forceMfa: a user with a key elsewhere is not offered enrolment, so whoever holds only the password adds no key', async () => {
    const user = await humanUser(kh, 'victim', strictOrg);
    await keyUnder(user.userId, 'other.example', 'https://other.example');
    const { step } = await passwordAt(issuer, user.username);
    expect(step.left).toBeUndefined();
    expect(step.html).not.toContain('data-mode="register"');
    expect(step.html).toContain('data-refusal="key-elsewhere"');
    expect(await keyCount(user.userId)).toBe(1);
    // A user of that org without any key still registers one at the login.
    const fresh = await humanUser(kh, 'first-key', strictOrg);
    const enrol = await passwordAt(issuer, fresh.username);
    expect(enrol.step.html).toContain('data-mode="register"');
    expect(JSON.parse(/data-options="([^"]+)"/.exec(enrol.step.html!)![1]!.replaceAll('&quot;', '"')).rp.id).toBe('localhost');
  });

  it('after the operator removed an RP id: a start warns with counts, its keys refuse the login; where no key can be registered, forceMfa refuses too', async () => {
    const gone = await humanUser(kh, 'gone');
    await keyUnder(gone.userId, 'gone.example', 'https://gone.example');
    const strictWithout = await humanUser(kh, 'strict-without', strictOrg);
    await kh.close();
    const port = await freePort();
    const base = `http://localhost:${port}`;
    kh = await startTestKeyhold({ env: { KEYHOLD_DATA_DIR: dir, KEYHOLD_PORT: String(port), KEYHOLD_WEBAUTHN_RP_IDS: 'other.example', KEYHOLD_WEBAUTHN_ORIGINS: 'https://other.example' } });

    const warnings = kh.logLines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
    expect(warnings.find((w) => /the login cannot use security keys/.test(w.msg))).toMatchObject({ issuer: base, rpIds: ['other.example'] });
    const retired = warnings.filter((w) => /no longer configured/.test(w.msg)).map((w) => ({ rpId: w.rpId, keys: w.keys }));
    expect(retired).toEqual([
      { rpId: 'gone.example', keys: 1 },
      { rpId: 'localhost', keys: 2 }, // the keys of the tests above
    ]);
    expect(JSON.stringify(warnings)).not.toContain(gone.userId);

    const refused = await passwordAt(base, gone.username);
    expect(refused.step.left).toBeUndefined();
    expect(refused.step.page!.status).toBe(403);
    expect(refused.step.html).toContain('gone.example, which this Keyhold no longer accepts');
    const noEnrolment = await passwordAt(base, strictWithout.username);
    expect(noEnrolment.step.left).toBeUndefined();
    expect(noEnrolment.step.html).toContain('data-refusal="no-enrollment-here"');
    expect(noEnrolment.step.html).toContain('none can be registered at this address');
  }, 60_000);
});
