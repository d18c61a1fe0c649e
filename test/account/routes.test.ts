// The account page's routes over stand-in ports (src/account/routes.ts): the
// re-authentication rule (the current password through the login's check, its
// throttle's wait; without a password, a login of the last ten minutes), the
// notices a redirect may name, the headers of every answer, and what no
// session, no form token or an unknown action come to.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { REAUTH_SECONDS, registerAccountRoutes } from '../../src/account/routes.js';
import type { AccountPorts, AccountView, SessionPort } from '../../src/account/ports.js';
import type { LoginPorts } from '../../src/login/ports.js';
import type { PasswordVerdict } from '../../src/commands/login/check-password.js';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const ISSUER = 'https://id.example.com';

function view(over: Partial<AccountView> = {}): AccountView {
  return { id: 'u1', username: 'ada', givenName: 'Ada', familyName: 'L', displayName: '', email: null, emailVerified: false, mailConfigured: true, hasPassword: true, factors: [], codesLeft: 0, mfaRequired: false, links: [], ...over };
}

let app: FastifyInstance | undefined;
afterEach(async () => app?.close());

async function start(o: { signedIn?: boolean; loginTs?: number; account?: AccountView; verdict?: PasswordVerdict; pendingTotp?: boolean; codesRefused?: string } = {}) {
  const calls: string[] = [];
  const sessions: SessionPort = {
    current: async () => (o.signedIn === false ? undefined : { uid: 'sess-1', accountId: 'u1', loginTs: o.loginTs ?? NOW / 1000 }),
    grantsOf: async () => [],
    revokeApp: async () => false,
  };
  const account: AccountPorts = {
    view: async () => o.account ?? view(),
    updateProfile: async () => ({ ok: true }),
    removeFactor: async () => ({ ok: true }),
    removeLink: async (_userId, link) => {
      calls.push(`unlink:${link.idpId}:${link.subject}`);
      return { ok: true };
    },
    renameFactor: async () => ({ ok: true }),
    regenerateCodes: async () => {
      calls.push('codes');
      return o.codesRefused ? { ok: false as const, problem: o.codesRefused } : { ok: true as const, codes: ['code-1'] };
    },
    sessions: async () => [
      { id: 'sess-1', device: 'Firefox on Linux', address: '192.0.2.1', lastUsedAt: new Date(NOW) },
      { id: 'sess-2', device: 'Safari on iOS', address: '198.51.100.7', lastUsedAt: new Date(NOW - 3_600_000) },
    ],
    endSession: async (_userId, sessionId) => {
      calls.push(`end:${sessionId}`);
      return sessionId === 'sess-2' ? { ok: true } : { ok: false, problem: 'There is no session sess-9.' };
    },
    endOtherSessions: async (_userId, current) => {
      calls.push(`others:${current}`);
      return { ok: true };
    },
    mailConfigured: () => true,
    changeAddress: async (_userId, email) => {
      calls.push(`address:${email}`);
      return { ok: true };
    },
    sendAddressCode: async () => ({ ok: true }),
    confirmAddress: async (_userId, code) => {
      calls.push(`confirm:${code}`);
      return { ok: true };
    },
  };
  const login = {
    verifyPassword: async (attempt: { password: string }) => {
      calls.push(`password:${attempt.password}`);
      return o.verdict ?? { ok: true, changeRequired: false };
    },
    changePassword: async () => {
      calls.push('password-changed');
      return { ok: true };
    },
    startTotpEnrolment: async () => {
      calls.push('totp:new');
      return { uri: 'otpauth://totp/x?secret=NEWSECRET', secret: 'NEWSECRET' };
    },
    pendingTotpEnrolment: async () => (o.pendingTotp ? { uri: 'otpauth://totp/x?secret=PENDING', secret: 'PENDING' } : undefined),
    finishTotpEnrolment: async () => ({ ok: false, problem: 'That code is wrong.' }),
  } as unknown as LoginPorts;
  app = Fastify();
  registerAccountRoutes(app, {
    sessions,
    account,
    login,
    cookieKey: () => 'cookie-key',
    issuer: () => ISSUER,
    signInUrl: () => `${ISSUER}/console/`,
    unavailable: { is: () => false, retryAfterSeconds: 5 },
    now: () => NOW,
  });
  await app.ready();
  const page = await app.inject({ method: 'GET', url: '/ui/account' });
  const token = /name="form_token" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  const post = (action: string, form: Record<string, string>) =>
    app!.inject({ method: 'POST', url: `/ui/account/${action}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(form).toString() });
  return { page, token, post, calls };
}

describe('the account routes', () => {
  it('no session: GET goes to the sign-in at the issuer, POST is 403', async () => {
    const { page, post } = await start({ signedIn: false });
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe(`${ISSUER}/console/`);
    expect((await post('profile', { given_name: 'x' })).statusCode).toBe(403);
  });

  it('every answer carries the login pages’ policy and is never cached', async () => {
    const { page } = await start();
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['cache-control']).toBe('no-store');
  });

  it('a form goes to the issuer’s page with a notice it names; any other ?done says nothing', async () => {
    const { token, post } = await start();
    const saved = await post('profile', { form_token: token, given_name: 'A', family_name: 'B' });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`${ISSUER}/ui/account?done=profile`);
    expect((await app!.inject({ method: 'GET', url: '/ui/account?done=profile' })).body).toContain('Your profile is saved.');
    const odd = await app!.inject({ method: 'GET', url: '/ui/account?done=%3Cscript%3E' });
    expect(odd.body).not.toContain('class="notice"');
    expect(odd.body).not.toContain('<script');
  });

  it('an unknown action is 404; a missing or wrong token 403', async () => {
    const { token, post } = await start();
    expect((await post('delete-everything', { form_token: token })).statusCode).toBe(404);
    expect((await post('codes', {})).statusCode).toBe(403);
    expect((await post('codes', { form_token: `${token.slice(1)}x` })).statusCode).toBe(403);
  });

  it('new codes ask for the current password through the login’s check; a wrong one 403, a throttled one 429 with the wait', async () => {
    const right = await start();
    const codes = await right.post('codes', { form_token: right.token, current_password: 'pw' });
    expect(codes.statusCode).toBe(200);
    expect(codes.body).toContain('code-1');
    expect(right.calls).toEqual(['password:pw', 'codes']);
    await app!.close();

    const wrong = await start({ verdict: { ok: false, reason: 'wrong' } });
    const refused = await wrong.post('codes', { form_token: wrong.token, current_password: 'nope' });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('The current password is wrong.');
    expect(wrong.calls).toEqual(['password:nope']);
    await app!.close();

    const slow = await start({ verdict: { ok: false, reason: 'wrong', retryAfterSeconds: 30 } });
    const waited = await slow.post('codes', { form_token: slow.token, current_password: 'x' });
    expect(waited.statusCode).toBe(429);
    expect(waited.body).toContain('Wait 30 seconds');
  });

  it('new codes the command refuses: 409 with the reason as text on the account page, never a 500', async () => {
    const refused = await start({ codesRefused: 'Another window <b>changed</b> the account; try again.' });
    const answer = await refused.post('codes', { form_token: refused.token, current_password: 'pw' });
    expect(answer.statusCode).toBe(409);
    expect(answer.body).toContain('Another window &lt;b&gt;changed&lt;/b&gt; the account; try again.');
    expect(refused.calls).toEqual(['password:pw', 'codes']);
  });

  it('a new address asks for the current password first (it is where a reset link goes); a wrong one changes nothing', async () => {
    const wrong = await start({ verdict: { ok: false, reason: 'wrong' } });
    const refused = await wrong.post('address', { form_token: wrong.token, current_password: 'nope', new_email: 'mallory@example.com' });
    expect(refused.statusCode).toBe(403);
    expect(wrong.calls).toEqual(['password:nope']);
    await app!.close();
    const right = await start({ account: view({ email: 'ada@example.com' }) });
    expect(right.page.body).toContain('id="address-confirm-form"');
    const changed = await right.post('address', { form_token: right.token, current_password: 'pw', new_email: 'ada@new.example' });
    expect([changed.statusCode, changed.headers.location]).toEqual([303, `${ISSUER}/ui/account?done=address`]);
    const confirmed = await right.post('address-confirm', { form_token: right.token, code: 'abcd-efgh' });
    expect(confirmed.headers.location).toBe(`${ISSUER}/ui/account?done=address-confirmed`);
    expect(right.calls).toEqual(['password:pw', 'address:ada@new.example', 'confirm:abcd-efgh']);
  });

  it('lists the sessions with this browser marked; ends one, or all others keeping this browser\u2019s', async () => {
    const { page, token, post, calls } = await start();
    expect(page.body).toContain('id="current-session"');
    expect(page.body).toMatch(/id="current-session">Firefox on Linux · 192\.0\.2\.1/);
    expect(page.body).toContain('Safari on iOS');
    const ended = await post('end-session', { form_token: token, session: 'sess-2' });
    expect(ended.headers.location).toBe(`${ISSUER}/ui/account?done=session-ended`);
    expect((await post('end-session', { form_token: token, session: 'sess-9' })).statusCode).toBe(404);
    const others = await post('end-others', { form_token: token, session: 'sess-2' });
    expect(others.headers.location).toBe(`${ISSUER}/ui/account?done=others-ended`);
    // The session kept is the browser's own, whatever the form says.
    expect(calls).toEqual(['end:sess-2', 'end:sess-9', 'others:sess-1']);
  });

  it('a new password ends every other session, keeping this browser\u2019s', async () => {
    const { token, post, calls } = await start();
    const changed = await post('password', { form_token: token, current_password: 'pw', new_password: 'a new long passphrase', confirm_password: 'a new long passphrase' });
    expect(changed.headers.location).toBe(`${ISSUER}/ui/account?done=password`);
    expect(calls).toEqual(['password:pw', 'password-changed', 'others:sess-1']);
  });

  it('a wrong authenticator-app code never starts a registration (that form asks no password): the pending one again, or the refusal alone', async () => {
    const none = await start();
    const refused = await none.post('totp-finish', { form_token: none.token, code: '000000' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('That code is wrong.');
    expect(refused.body).not.toContain('NEWSECRET');
    expect(none.calls).not.toContain('totp:new');
    await app!.close();
    const pending = await start({ pendingTotp: true });
    const again = await pending.post('totp-finish', { form_token: pending.token, code: '000000' });
    expect([again.statusCode, again.body.includes('PEND'), pending.calls.includes('totp:new')]).toEqual([400, true, false]);
  });

  it('without a password: a login of the last ten minutes instead, an older one refused', async () => {
    const recent = await start({ account: view({ hasPassword: false }), loginTs: NOW / 1000 - REAUTH_SECONDS + 5 });
    expect((await recent.post('codes', { form_token: recent.token })).statusCode).toBe(200);
    expect(recent.calls).toEqual(['codes']);
    await app!.close();
    const old = await start({ account: view({ hasPassword: false }), loginTs: NOW / 1000 - REAUTH_SECONDS - 5 });
    const refused = await old.post('codes', { form_token: old.token });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('sign in again within 10 minutes');
    expect(old.calls).toEqual([]);
  });

  it('a link is removed only from the user\u2019s own list, after the current password; the only way in stays', async () => {
    const linked = view({ links: [{ idpId: 'idp1', name: 'SSO', subject: 'up-1' }] });
    const { token, post, calls } = await start({ account: linked });
    expect((await post('remove-link', { form_token: token, idp: 'idp1', subject: 'someone-else', current_password: 'pw' })).statusCode).toBe(404);
    expect((await post('remove-link', { form_token: token, idp: 'idp1', subject: 'up-1', current_password: 'pw' })).statusCode).toBe(303);
    expect(calls).toEqual(['password:pw', 'unlink:idp1:up-1']);
    await app!.close();
    // Without a password or passkey, the only link is the only way in.
    const only = await start({ account: view({ hasPassword: false, links: [{ idpId: 'idp1', name: 'SSO', subject: 'up-1' }] }) });
    const kept = await only.post('remove-link', { form_token: only.token, idp: 'idp1', subject: 'up-1' });
    expect(kept.statusCode).toBe(409);
    expect(kept.body).toContain('This is your only way to sign in');
    expect(only.calls).toEqual([]);
  });

  it('the last factor under forceMfa is refused before the password is even checked; another id is 404', async () => {
    const only = { kind: 'passkey' as const, id: 'p1', name: 'Phone' };
    const s = await start({ account: view({ mfaRequired: true, factors: [only] }) });
    const last = await s.post('remove-factor', { form_token: s.token, kind: 'passkey', id: 'p1', current_password: 'pw' });
    expect(last.statusCode).toBe(409);
    expect(last.body).toContain('Your organization requires a second factor');
    expect((await s.post('remove-factor', { form_token: s.token, kind: 'passkey', id: 'p2', current_password: 'pw' })).statusCode).toBe(404);
    expect((await s.post('rename-factor', { form_token: s.token, kind: 'totp', id: 'totp', name: 'x' })).statusCode).toBe(404);
    expect(s.calls).toEqual([]);
  });
});
