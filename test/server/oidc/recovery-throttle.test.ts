// The recovery-code form at the login (a lost key) over plain HTTP
// (no JavaScript needed): CSRF as every login form, wrong codes throttled as
// passwords are (after the free allowance even a right code waits, and the
// page says how long), input that is no code refused without counting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { BUCKETS } from '../../../src/domain/identity/attempt-budget.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, formAction, formToken } from '../../support/oidc-login.js';
import { createSoftAuthenticator } from '../../support/soft-authenticator.js';
import { startRegistration } from '../../support/u2f.js';

const FREE = BUCKETS['recovery.account.client'].free;

describe('recovery codes at the login', () => {
  let kh: TestKeyhold;
  beforeAll(async () => {
    kh = await startTestKeyhold();
  }, 60_000);
  afterAll(async () => kh?.close());

  it('the form works without script; wrong codes are counted and slowed down; no code at all is refused apart; a missing form token is refused', async () => {
    const base = `http://localhost:${kh.port}`;
    const password = 'a recovery test passphrase';
    const created = await kh.rest('POST', '/v2/users/human', { username: 'lostkey', profile: { givenName: 'L', familyName: 'K' }, email: { email: 'l@example.com' }, password: { password, changeRequired: false } });
    expect(created.status).toBe(200);
    const userId = created.body.userId;
    // A key (registered by the admin, so no codes exist: every code typed is wrong).
    const reg = await startRegistration(kh, userId);
    const credential = createSoftAuthenticator().makeRegistration({ challenge: reg.challenge, origin: base, rpId: reg.rpId });
    await kh.client(UserService, 'grpc').verifyU2FRegistration({ userId, u2fId: reg.u2fId, publicKeyCredential: credential as never, tokenName: 'k' });

    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Recovery' })).body.id;
    const app = await addApp(kh, projectId, { redirectUris: ['http://localhost:5175/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
    const url = new URL(`${base}/oauth/v2/authorize`);
    url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: 'http://localhost:5175/cb', response_type: 'code', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSstw-cM', code_challenge_method: 'S256' }).toString();
    const b = browser(base);
    const first = await b.follow(url);
    const toPassword = await b.request(new URL(formAction(first.html!, 'username')!, base), { form: { form_token: formToken(first.html!), username: 'lostkey' } });
    const pw = await b.follow(new URL(toPassword.headers.get('location')!, base));
    const toKey = await b.request(new URL(formAction(pw.html!, 'password')!, base), { form: { form_token: formToken(pw.html!), password } });
    expect(toKey.status).toBe(303);
    const keyPage = await b.follow(new URL(toKey.headers.get('location')!, base));
    const link = /href="([^"]*\?recovery=1)"/.exec(keyPage.html!)?.[1];
    expect(link).toBeDefined();
    const form = await b.follow(new URL(link!, base));
    expect(form.html).toContain('autocomplete="one-time-code"');
    const action = new URL(formAction(form.html!, 'recovery')!, base);
    const attempt = async (code: string, token = formToken(form.html!)) => b.request(action, { form: { form_token: token, code } });

    // CSRF: without the form token the form is refused, and nothing is tried.
    expect((await attempt('aaaaaa-aaaaaa', '')).status).toBe(400);
    // No code at all: its own words, not counted.
    for (let i = 0; i < FREE + 1; i++) expect(await (await attempt('hello world')).text()).toContain('That is not a recovery code.');
    for (let i = 0; i < FREE; i++) expect(await (await attempt(`aaaaaa-aaaaa${i}`)).text()).toContain('That recovery code is not right');
    const slowed = await (await attempt('aaaaaa-aaaaa9')).text();
    expect(slowed).toMatch(/Too many wrong recovery codes\. Wait \d+ seconds, then try again\./);
    expect(slowed).toContain('data-reason="RECOVERY_CODE_SLOW_DOWN"');
    // The audit trail: one event per wrong code; none for the malformed ones or the slowed one.
    const types = (await createEventStore(kh.database).load('user', userId)).map((e) => e.type);
    expect(types.filter((t) => t === 'user.recovery.code.check.failed')).toHaveLength(FREE);
  }, 60_000);
});
