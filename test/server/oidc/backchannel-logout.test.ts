// Apps hear when a session ends (OpenID Connect Back-Channel Logout 1.0), as a
// real relying party sees it: express-openid-connect with backchannelLogout
// on, signed in through Keyhold's login; after each way a session ends — the
// sign-out at end_session, the user's "end this session" and "end the
// others", an administrator's LockUser, DeactivateUser, RemoveUser and
// password reset — its next request is no longer authenticated. And the
// logout token itself, verified with jose against Keyhold's keys: iss, aud,
// sub, sid, the event, no nonce, typ logout+jwt. The user's session list
// shows the device, the address and the app it signed in to.
import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { auth } from 'express-openid-connect';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addApp, browser, logIn, type Browser } from '../../support/oidc-login.js';

const PASSWORD = 'back channel pass 1';

describe('back-channel logout reaches a real relying party', () => {
  let kh: TestKeyhold;
  let base: string;
  let rp: Server;
  let rpBase: string;
  let clientId: string;
  const tokens: string[] = [];

  beforeAll(async () => {
    kh = await startTestKeyhold();
    base = `http://localhost:${kh.port}`;
    const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Back channel' })).body.id;
    // The relying party listens first: its back-channel URI is registered with the app.
    const app = express();
    rp = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    rpBase = `http://localhost:${(rp.address() as AddressInfo).port}`;
    const created = await addApp(kh, projectId, {
      redirectUris: [`${rpBase}/callback`],
      postLogoutRedirectUris: [`${rpBase}/`],
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
      devMode: true,
      backChannelLogoutUri: `${rpBase}/backchannel-logout`,
    });
    clientId = created.clientId;
    const saved = new Map<string, unknown>();
    const store = {
      get: (id: string, cb: (e: unknown, v?: unknown) => void) => cb(null, saved.get(id)),
      set: (id: string, v: unknown, cb: (e: unknown) => void) => (saved.set(id, v), cb(null)),
      destroy: (id: string, cb: (e: unknown) => void) => (saved.delete(id), cb(null)),
    };
    // What the relying party was sent, for jose below (the library consumes it too).
    app.use('/backchannel-logout', express.urlencoded({ extended: false }), (req, _res, next) => {
      if (typeof req.body?.logout_token === 'string') tokens.push(req.body.logout_token);
      next();
    });
    app.use(
      auth({
        issuerBaseURL: base,
        baseURL: rpBase,
        clientID: created.clientId,
        clientSecret: created.clientSecret!,
        secret: 'a relying party cookie secret of enough length',
        authRequired: false,
        idpLogout: false,
        backchannelLogout: { store: store as never },
        authorizationParams: { response_type: 'code', scope: 'openid profile' },
      }),
    );
    app.get('/me', (req, res) => {
      res.json({ authenticated: req.oidc.isAuthenticated(), sid: req.oidc.idTokenClaims?.sid ?? null });
    });
  }, 90_000);
  afterAll(async () => {
    await new Promise((r) => rp?.close(r));
    await kh?.close();
  });

  let n = 0;
  async function addUser(): Promise<{ userId: string; username: string }> {
    const username = `bcl-${++n}-${Math.random().toString(36).slice(2, 7)}`;
    const res = await kh.rest('POST', '/v2/users/human', { username, profile: { givenName: 'B', familyName: 'C' }, email: { email: `${username}@example.com` }, password: { password: PASSWORD, changeRequired: false } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { userId: res.body.userId, username };
  }

  /** Signs in at the relying party through Keyhold's login: the browser, and the sid the RP holds. */
  async function signIn(username: string, b: Browser = browser(base, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' })) {
    const start = await b.request(`${rpBase}/login`);
    const back = await logIn(b, start.headers.get('location')!, username, PASSWORD);
    const done = await b.request(back);
    expect(done.status, await done.clone().text()).toBe(302);
    const me = await (await b.request(`${rpBase}/me`)).json();
    expect(me.authenticated).toBe(true);
    return { b, sid: me.sid as string };
  }

  const authenticated = async (b: Browser) => (await (await b.request(`${rpBase}/me`)).json()).authenticated as boolean;
  /** The RP's answer once it was told (the token is sent after the change, within a second). */
  async function loggedOutSoon(b: Browser) {
    for (let i = 0; i < 50; i++) {
      if (!(await authenticated(b))) return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  }
  const sessionsOf = async (userId: string) => kh.readModel.userSessions(userId);

  it('signing out at end_session logs the user out of the app, and the logout token is the spec’s', async () => {
    const { username } = await addUser();
    const { b, sid } = await signIn(username);
    const before = tokens.length;
    const page = await b.follow(`${base}/oidc/v1/end_session?client_id=${clientId}`);
    const form = /<form[^>]*action="([^"]+)"[\s\S]*?name="xsrf" value="([^"]+)"/.exec(page.html ?? '');
    expect(form, page.html?.slice(0, 500)).toBeTruthy();
    await b.request(new URL(form![1]!.replace(/&amp;/g, '&'), base), { form: { xsrf: form![2]!, logout: 'yes' } });
    expect(await loggedOutSoon(b)).toBe(true);
    const token = tokens.slice(before).at(-1)!;
    const { payload, protectedHeader } = await jose.jwtVerify(token, jose.createRemoteJWKSet(new URL(`${base}/oauth/v2/keys`)), { issuer: base, audience: clientId, typ: 'logout+jwt' });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload.sid).toBe(sid);
    expect(payload.sub).toBeTruthy();
    expect(payload.events).toEqual({ 'http://schemas.openid.net/event/backchannel-logout': {} });
    expect(payload.nonce).toBeUndefined();
  });

  // express-openid-connect's default hook logs out every session of the token's `sub`; the token
  // names the one session that ended (its sid), and Keyhold keeps the other.
  it('the user ends one session: the app is told that session’s sid, and Keyhold keeps the other', async () => {
    const { userId, username } = await addUser();
    const first = await signIn(username);
    const second = await signIn(username, browser(base, { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36' }));
    const listed = await sessionsOf(userId);
    expect(listed.map((s) => s.device).sort()).toEqual(['Chrome on Windows', 'Firefox on Linux']);
    expect(listed.every((s) => s.clientIds.includes(clientId) && s.address !== '')).toBe(true);
    const firstSession = listed.find((s) => s.device === 'Firefox on Linux')!;
    const before = tokens.length;
    await kh.commands.endSession({ caller: { userId, orgId: '', tokenId: '', memberships: [] } }, { userId, sessionId: firstSession.id });
    expect(await loggedOutSoon(first.b)).toBe(true);
    const sent = tokens.slice(before).map((t) => jose.decodeJwt(t).sid);
    expect(sent).toEqual([first.sid]);
    expect(sent).not.toContain(second.sid);
    expect((await sessionsOf(userId)).map((s) => s.device)).toEqual(['Chrome on Windows']);
  });

  it('the user ends the others: only the others’ sid is sent and Keyhold keeps the current one; another org’s administrator may not', async () => {
    const { userId, username } = await addUser();
    const kept = await signIn(username);
    const other = await signIn(username, browser(base, { 'user-agent': 'curl/8.5.0' }));
    const current = (await sessionsOf(userId)).find((s) => s.device !== 'curl')!;
    const stranger = { userId: 'someone-else', orgId: 'another-org', tokenId: '', memberships: [{ scopeType: 'org', scopeId: 'another-org', roles: ['ORG_OWNER'] }] };
    await expect(kh.commands.endOtherSessions({ caller: stranger as never }, { userId, currentSessionId: current.id })).rejects.toMatchObject({ reason: 'USER_NOT_FOUND' });
    const before = tokens.length;
    await kh.commands.endOtherSessions({ caller: { userId, orgId: '', tokenId: '', memberships: [] } }, { userId, currentSessionId: current.id });
    for (let i = 0; i < 50 && tokens.length === before; i++) await new Promise((r) => setTimeout(r, 100));
    expect(tokens.slice(before).map((t) => jose.decodeJwt(t).sid)).toEqual([other.sid]);
    // (express-openid-connect logs out every session of the token's sub: the kept one is Keyhold's to keep.)
    void kept;
    expect((await sessionsOf(userId)).map((s) => s.id)).toEqual([current.id]);
  });

  for (const [way, end] of [
    ['LockUser', (id: string) => kh.rest('POST', `/v2/users/${id}/lock`, {})],
    ['DeactivateUser', (id: string) => kh.rest('POST', `/v2/users/${id}/deactivate`, {})],
    ['RemoveUser', (id: string) => kh.rest('DELETE', `/v2/users/${id}`)],
    ['an administrator’s SetPassword', (id: string) => kh.rest('POST', `/v2/users/${id}/password`, { newPassword: { password: 'reset by admin 3', changeRequired: true } })],
  ] as const) {
    it(`${way} logs every session of the user out of the app`, async () => {
      const { userId, username } = await addUser();
      const one = await signIn(username);
      const two = await signIn(username);
      const res = await end(userId);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await loggedOutSoon(one.b)).toBe(true);
      expect(await loggedOutSoon(two.b)).toBe(true);
    });
  }
});
