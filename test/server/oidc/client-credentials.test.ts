// Client credentials for machine users, end to end with real
// clients: GenerateMachineSecret over REST, openid-client's
// clientCredentialsGrant at the token endpoint, the token then used on
// Keyhold's own API as a bearer token — GetMyUser over gRPC (connect-node) and
// REST — for an opaque (BEARER) and a JWT machine user; and every refusal.
import * as oidc from 'openid-client';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../../../gen/keyhold/auth/v1/auth_pb.js';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { machineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
let base: string;

beforeAll(async () => {
  kh = await startTestKeyhold();
  base = `http://localhost:${kh.port}`;
}, 60_000);
afterAll(async () => kh?.close());

async function machine(userName: string, accessTokenType?: 'ACCESS_TOKEN_TYPE_JWT'): Promise<{ userId: string; clientId: string; clientSecret: string }> {
  const added = await kh.rest('POST', '/management/v1/users/machine', { userName, name: userName, ...(accessTokenType ? { accessTokenType } : {}) });
  expect(added.status).toBe(200);
  const secret = await kh.rest('PUT', `/management/v1/users/${added.body.userId}/secret`, {});
  expect(secret.status).toBe(200);
  return { userId: added.body.userId, clientId: secret.body.clientId, clientSecret: secret.body.clientSecret };
}

const configFor = (clientId: string, auth: oidc.ClientAuth) => oidc.discovery(new URL(base), clientId, undefined, auth, { execute: [oidc.allowInsecureRequests] });

async function grant(clientId: string, secret: string, post = false) {
  const config = await configFor(clientId, post ? oidc.ClientSecretPost(secret) : oidc.ClientSecretBasic(secret));
  return oidc.clientCredentialsGrant(config);
}

/** The OAuth error a refused grant gives. */
async function refusal(promise: Promise<unknown>): Promise<string | undefined> {
  const e: any = await promise.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e, 'expected a refusal').toBeDefined();
  // In the body, or in a WWW-Authenticate challenge (HTTP Basic).
  return e.error ?? e.cause?.error ?? e.cause?.[0]?.parameters?.error;
}

/** GetMyUser with the token over gRPC (connect-node) and REST: the user ids each answers, or the failure. */
async function whoAmI(token: string): Promise<{ grpc: string; rest: string }> {
  const grpc = await kh
    .client(AuthService, 'grpc', token)
    .getMyUser({})
    .then((r) => r.user?.userId ?? '(none)', (e: Error) => `error: ${e.message}`);
  const res = await kh.rest('GET', '/auth/v1/users/me', undefined, { authorization: `Bearer ${token}` });
  return { grpc, rest: res.status === 200 ? res.body.user.userId : `status ${res.status}` };
}

describe('client credentials for machine users', () => {
  it('BEARER: the secret gets an opaque token that calls GetMyUser over gRPC and REST as the machine user', async () => {
    const bot = await machine('cc-bearer');
    expect(bot.clientId).toMatch(/^machine-/);
    expect(bot.clientSecret.length).toBeGreaterThanOrEqual(32);
    const tokens = await grant(bot.clientId, bot.clientSecret);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.access_token).not.toContain('.');
    expect(tokens.expires_in).toBeGreaterThan(0);
    expect(await whoAmI(tokens.access_token)).toEqual({ grpc: bot.userId, rest: bot.userId });
    // Neither the secret nor the token is in the events or the log; the event holds the hash.
    const rows = await kh.database.sql.query<{ payload: unknown }>({ text: `select payload from events where aggregate_id = $1`, params: [bot.userId] });
    const stored = JSON.stringify(rows);
    expect(stored).toContain(bot.clientId);
    expect(stored).not.toContain(bot.clientSecret);
    expect(kh.logLines.join('\n')).not.toContain(bot.clientSecret);
    expect(kh.logLines.join('\n')).not.toContain(tokens.access_token);
  });

  it('JWT: the token is an RFC 9068 JWT signed by Keyhold for its API, sub the machine user; it calls GetMyUser over gRPC and REST', async () => {
    const bot = await machine('cc-jwt', 'ACCESS_TOKEN_TYPE_JWT');
    const tokens = await grant(bot.clientId, bot.clientSecret);
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${base}/oauth/v2/keys`)), {
      issuer: base,
      audience: 'urn:keyhold:iam:api',
    });
    expect(protectedHeader.typ).toBe('at+jwt');
    expect(payload.sub).toBe(bot.userId);
    expect(payload.client_id).toBe(bot.clientId);
    expect(await whoAmI(tokens.access_token)).toEqual({ grpc: bot.userId, rest: bot.userId });
  });

  it('takes the credentials in the form body too (client_secret_post), as ZITADEL does', async () => {
    const bot = await machine('cc-post');
    const tokens = await grant(bot.clientId, bot.clientSecret, true);
    expect((await whoAmI(tokens.access_token)).rest).toBe(bot.userId);
  });

  it('introspection: a machine sees its own token active, another machine’s not', async () => {
    const bot = await machine('cc-introspect');
    const other = await machine('cc-introspect-other');
    const own = (await grant(bot.clientId, bot.clientSecret)).access_token;
    const foreign = (await grant(other.clientId, other.clientSecret)).access_token;
    const config = await configFor(bot.clientId, oidc.ClientSecretBasic(bot.clientSecret));
    expect(await oidc.tokenIntrospection(config, own)).toMatchObject({ active: true, client_id: bot.clientId, aud: 'urn:keyhold:iam:api' });
    expect((await oidc.tokenIntrospection(config, foreign)).active).toBe(false);
  });

  it('a wrong secret, or another machine’s, is refused with invalid_client', async () => {
    const bot = await machine('cc-wrong');
    const other = await machine('cc-other');
    expect(await refusal(grant(bot.clientId, `${bot.clientSecret}x`))).toBe('invalid_client');
    expect(await refusal(grant(bot.clientId, other.clientSecret))).toBe('invalid_client');
    expect(await refusal(grant('machine-unknown', bot.clientSecret))).toBe('invalid_client');
  });

  it('a regenerated secret keeps the client id; the old secret is refused, the new one works', async () => {
    const bot = await machine('cc-regen');
    const again = await kh.rest('PUT', `/management/v1/users/${bot.userId}/secret`, {});
    expect(again.status).toBe(200);
    expect(again.body.clientId).toBe(bot.clientId);
    expect(again.body.clientSecret).not.toBe(bot.clientSecret);
    expect(await refusal(grant(bot.clientId, bot.clientSecret))).toBe('invalid_client');
    const tokens = await grant(bot.clientId, again.body.clientSecret);
    expect((await whoAmI(tokens.access_token)).grpc).toBe(bot.userId);
  });

  it('RemoveMachineSecret: the secret is refused, its tokens stop working; removing it again is 404 MACHINE_SECRET_NOT_FOUND', async () => {
    const bot = await machine('cc-unset');
    const tokens = await grant(bot.clientId, bot.clientSecret);
    const removed = await kh.rest('DELETE', `/management/v1/users/${bot.userId}/secret`);
    expect(removed.status).toBe(200);
    expect(await refusal(grant(bot.clientId, bot.clientSecret))).toBe('invalid_client');
    expect(await whoAmI(tokens.access_token)).toEqual({ grpc: expect.stringMatching(/^error: /), rest: 'status 401' });
    const again = await kh.rest('DELETE', `/management/v1/users/${bot.userId}/secret`);
    expect(again.status).toBe(404);
    expect(restReason(again.body)).toBe('MACHINE_SECRET_NOT_FOUND');
  });

  it('a removed or deactivated machine user is refused at the token endpoint, and its tokens (opaque and JWT) on the API', async () => {
    const removed = await machine('cc-removed', 'ACCESS_TOKEN_TYPE_JWT');
    const removedToken = (await grant(removed.clientId, removed.clientSecret)).access_token;
    expect(decodeJwt(removedToken).sub).toBe(removed.userId);
    expect((await kh.rest('DELETE', `/v2/users/${removed.userId}`)).status).toBe(200);
    expect(await refusal(grant(removed.clientId, removed.clientSecret))).toBe('invalid_client');
    expect((await whoAmI(removedToken)).rest).toBe('status 401');

    const inactive = await machine('cc-inactive');
    const inactiveToken = (await grant(inactive.clientId, inactive.clientSecret)).access_token;
    expect((await kh.rest('POST', `/v2/users/${inactive.userId}/deactivate`, {})).status).toBe(200);
    expect(await refusal(grant(inactive.clientId, inactive.clientSecret))).toBe('invalid_client');
    expect((await whoAmI(inactiveToken)).rest).toBe('status 401');
  });

  it('a human gets no secret (MACHINE_SECRET_ONLY_FOR_MACHINE_USERS); an unknown user is 404; an unknown accessTokenType is 400', async () => {
    const human = await kh.rest('POST', '/v2/users/human', { username: 'cc-human', profile: { givenName: 'H', familyName: 'U' }, email: { email: 'h@example.com' } });
    expect(human.status).toBe(200);
    const refused = await kh.rest('PUT', `/management/v1/users/${human.body.userId}/secret`, {});
    expect(refused.status).toBe(400);
    expect(restReason(refused.body)).toBe('MACHINE_SECRET_ONLY_FOR_MACHINE_USERS');
    const unknown = await kh.rest('PUT', '/management/v1/users/nobody/secret', {});
    expect(unknown.status).toBe(404);
    // An access token type the schema does not name: 400 on the field, no user made.
    const odd = await kh.rest('POST', '/management/v1/users/machine', { userName: 'cc-odd', name: 'Odd', accessTokenType: 7 });
    expect(odd.status).toBe(400);
    expect(restFields(odd.body)).toEqual(['accessTokenType']);
  });

  it('containment: a user manager cannot make a secret for an org owner machine (PRIVILEGE_ESCALATION), nor without user.write (PERMISSION_DENIED)', async () => {
    const manager = await machineCaller(kh, undefined, 'cc-manager', ['ORG_USER_MANAGER']);
    const owner = await machineCaller(kh, undefined, 'cc-owner', ['ORG_OWNER']);
    const nobody = await machineCaller(kh, undefined, 'cc-nobody');
    const asManager = kh.client(ManagementService, 'grpc', manager.token);
    expect((await rpcError(asManager.generateMachineSecret({ userId: owner.userId }))).reason).toBe('PRIVILEGE_ESCALATION');
    expect((await rpcError(kh.client(ManagementService, 'grpc', nobody.token).generateMachineSecret({ userId: owner.userId }))).reason).toBe('PERMISSION_DENIED');
    // A machine the manager contains: allowed, and the secret works.
    const made = await asManager.generateMachineSecret({ userId: nobody.userId });
    expect((await whoAmI((await grant(made.clientId, made.clientSecret)).access_token)).grpc).toBe(nobody.userId);
  });
});
