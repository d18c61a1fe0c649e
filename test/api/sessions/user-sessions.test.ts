// ListUserSessions, RemoveUserSession and RemoveOtherUserSessions over REST
// and gRPC: a user signed in from three clients (real logins through the login
// UI, openid-client redeeming the codes) has three sessions, listed with the
// device, the address and the app; ending one ends its refresh token and leaves
// the others; ending all but one keeps that one; without one, all end. Who:
// the user's org admin; another org's owner 404, a role-less caller 403, no
// token 401; 404 SESSION_NOT_FOUND for a session not the user's; no user id 400.
import { Code } from '@connectrpc/connect';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { addOrg, bearer, machineCaller, type MachineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { authorizationUrl, humanUser, PASSWORD, redeem, REDIRECT, startApp, stopApp } from '../../support/key-login.js';
import { addApp, browser, logIn } from '../../support/oidc-login.js';

let kh: TestKeyhold;
let config: oidc.Configuration;
let clientId: string;
let otherOrgOwner: MachineCaller;
let nobody: MachineCaller;

beforeAll(async () => {
  [kh] = await Promise.all([startTestKeyhold(), startApp()]);
  const projectId = (await kh.rest('POST', '/management/v1/projects', { name: `Sessions ${Date.now()}` })).body.id;
  const app = await addApp(kh, projectId, {
    redirectUris: [REDIRECT],
    appType: 'OIDC_APP_TYPE_USER_AGENT',
    authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
    grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
    devMode: true,
  });
  clientId = app.clientId;
  config = await oidc.discovery(new URL(`http://localhost:${kh.port}`), app.clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
  otherOrgOwner = await machineCaller(kh, await addOrg(kh, `sessions-other-${Date.now()}`), 'sessions-other-owner', ['ORG_OWNER']);
  nobody = await machineCaller(kh, undefined, `sessions-nobody-${Date.now()}`);
}, 60_000);
afterAll(async () => {
  await kh?.close();
  await stopApp();
});

/** Signs the user in from a new client (its own cookie jar): the refresh token of that session. */
async function signIn(username: string, device: string): Promise<string> {
  const login = await authorizationUrl(config, { scope: 'openid profile offline_access', prompt: 'consent' });
  const b = browser(`http://localhost:${kh.port}`, { 'user-agent': device });
  const returned = await logIn(b, login.url, username, PASSWORD);
  const tokens = await redeem(login, returned.toString());
  return tokens.refresh_token!;
}
const refreshes = (token: string) => oidc.refreshTokenGrant(config, token).then(() => true, () => false);
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

describe('a user\u2019s sessions on the user API', () => {
  it('lists each client\u2019s session; RemoveUserSession ends one (its refresh token with it), the others stay', async () => {
    const { userId, username } = await humanUser(kh, 'sessions');
    const tokens = [await signIn(username, FIREFOX), await signIn(username, FIREFOX), await signIn(username, FIREFOX)];
    const listed = await kh.rest('GET', `/v2/users/${userId}/sessions`);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.details.totalResult).toBe('3');
    expect(listed.body.result).toHaveLength(3);
    expect(listed.body.result[0]).toMatchObject({ device: 'Firefox on Linux', clientIds: [clientId] });
    expect(listed.body.result[0].address).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
    const paged = await kh.client(UserService, 'grpc', kh.adminToken).listUserSessions({ userId, query: { limit: 2, offset: 0n, asc: false } });
    expect([paged.result.length, paged.details?.totalResult]).toEqual([2, 3n]);

    const ended = listed.body.result[1].sessionId as string;
    const removed = await kh.rest('DELETE', `/v2/users/${userId}/sessions/${ended}`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    const after = (await kh.rest('GET', `/v2/users/${userId}/sessions`)).body.result.map((s: { sessionId: string }) => s.sessionId);
    expect(after).toHaveLength(2);
    expect(after).not.toContain(ended);
    // Exactly one client lost its refresh token: the one whose session ended.
    expect((await Promise.all(tokens.map(refreshes))).filter((ok) => !ok)).toHaveLength(1);
    const again = await kh.rest('DELETE', `/v2/users/${userId}/sessions/${ended}`);
    expect([again.status, restReason(again.body)]).toEqual([404, 'SESSION_NOT_FOUND']);
  });

  it('RemoveOtherUserSessions keeps the session named; without one every session ends', async () => {
    const { userId, username } = await humanUser(kh, 'others');
    await signIn(username, FIREFOX);
    await signIn(username, FIREFOX);
    const kept = await signIn(username, FIREFOX);
    const listed = (await kh.rest('GET', `/v2/users/${userId}/sessions`)).body.result as { sessionId: string }[];
    const keep = listed[0]!.sessionId; // most recently used: the last sign-in
    const users = kh.client(UserService, 'grpc', kh.adminToken);
    await users.removeOtherUserSessions({ userId, keepSessionId: keep });
    expect((await users.listUserSessions({ userId })).result.map((s) => s.sessionId)).toEqual([keep]);
    expect(await refreshes(kept)).toBe(true);
    const foreign = await rpcError(users.removeOtherUserSessions({ userId, keepSessionId: 'no-such-session' }));
    expect([foreign.code, foreign.reason]).toEqual([Code.NotFound, 'SESSION_NOT_FOUND']);
    const all = await kh.rest('POST', `/v2/users/${userId}/sessions/_remove`, {});
    expect(all.status).toBe(200);
    expect((await users.listUserSessions({ userId })).result).toEqual([]);
  });

  it('who: another org\u2019s owner 404, a caller without a role 403, no token 401, no user id 400', async () => {
    const { userId, username } = await humanUser(kh, 'who');
    await signIn(username, FIREFOX);
    const sessionId = (await kh.rest('GET', `/v2/users/${userId}/sessions`)).body.result[0].sessionId as string;
    for (const [method, path] of [['GET', `/v2/users/${userId}/sessions`], ['DELETE', `/v2/users/${userId}/sessions/${sessionId}`], ['POST', `/v2/users/${userId}/sessions/_remove`]] as const) {
      const body = method === 'POST' ? {} : undefined;
      expect((await kh.rest(method, path, body, bearer(otherOrgOwner.token))).status, `${method} ${path}`).toBe(404);
      expect((await kh.rest(method, path, body, bearer(nobody.token))).status, `${method} ${path}`).toBe(403);
      expect((await kh.rest(method, path, body, { authorization: '' })).status, `${method} ${path}`).toBe(401);
    }
    const noId = await rpcError(kh.client(UserService, 'grpc', kh.adminToken).listUserSessions({ userId: '' }));
    expect([noId.code, noId.fields]).toEqual([Code.InvalidArgument, ['userId']]);
    expect(restFields((await kh.rest('POST', '/v2/users/%20/sessions/_search', {})).body)).toEqual(['userId']);
    // Nothing above ended the session.
    expect((await kh.rest('GET', `/v2/users/${userId}/sessions`)).body.result).toHaveLength(1);
  });
});
