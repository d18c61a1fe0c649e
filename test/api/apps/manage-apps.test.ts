// Apps: UpdateApp, UpdateOIDCAppConfig, DeactivateApp, ReactivateApp
// over REST and gRPC, with their 400/401/403/404/409 answers.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppState, OIDCAppType, OIDCAuthMethodType } from '../../../gen/keyhold/management/v1/app_pb.js';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { authenticateClient } from '../../../src/queries/client-auth.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { rpcError, restFields, restReason } from '../../support/errors.js';
import { bearer, machineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

let kh: TestKeyhold;
let projectId: string;
let n = 0;
const uniqueName = (prefix = 'app') => `${prefix}-${++n}-${Date.now()}`;
const P = 'Application.OIDC.V1.';
const keys = (body: any) => (body.complianceProblems ?? []).map((p: any) => p.key.replace(P, ''));

beforeAll(async () => {
  kh = await startTestKeyhold();
  projectId = (await kh.client(ManagementService).addProject({ name: 'Managed apps' })).id;
});
afterAll(async () => kh?.close());

async function addApp(body: Record<string, unknown> = {}) {
  const res = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, { name: uniqueName(), redirectUris: ['https://a.example/cb'], ...body });
  expect(res.status).toBe(200);
  return res.body as { appId: string; clientId: string; clientSecret?: string };
}
const appPath = (appId: string, rest = '') => `/management/v1/projects/${projectId}/apps/${appId}${rest}`;

describe('UpdateApp', () => {
  it('renames over REST (PUT): details of the write, the new name read back, the event written', async () => {
    const { appId } = await addApp();
    const name = uniqueName('Renamed');
    const res = await kh.rest('PUT', appPath(appId), { name: `  ${name} ` });
    expect(res.status).toBe(200);
    expect(res.body.details.sequence).toBe('3');
    expect(res.body.details.changeDate).toBeTruthy();
    expect(res.body.details.creationDate).toBeUndefined();
    expect((await kh.rest('GET', appPath(appId))).body.app.name).toBe(name);
    const events = await createEventStore(kh.database).load('app', appId);
    expect(events.at(-1)).toMatchObject({ type: 'app.changed', payload: { name } });
  });

  it('renames over gRPC; a name another app of the project holds (any case) → 409 APP_NAME_TAKEN', async () => {
    const a = await addApp();
    const taken = uniqueName('Taken');
    await addApp({ name: taken });
    const client = kh.client(ManagementService);
    const err = await rpcError(client.updateApp({ projectId, appId: a.appId, name: taken.toUpperCase() }));
    expect(err.code).toBe(Code.AlreadyExists);
    expect(err.reason).toBe('APP_NAME_TAKEN');
    const ok = await client.updateApp({ projectId, appId: a.appId, name: uniqueName('Free') });
    expect(ok.details?.sequence).toBe(3n);
  });

  it('400 naming the field (empty, hidden characters), 404 for an unknown app, nothing written', async () => {
    const { appId } = await addApp();
    for (const name of ['', '   ', 'a\u202Eb', 'x'.repeat(201)]) {
      const res = await kh.rest('PUT', appPath(appId), { name });
      expect(res.status, name).toBe(400);
      expect(restFields(res.body)).toEqual(['name']);
    }
    const missing = await kh.rest('PUT', appPath('01aaaaaaaaaaaaaaaaaaaaaaaa'), { name: 'x' });
    expect(missing.status).toBe(404);
    expect(restReason(missing.body)).toBe('APP_NOT_FOUND');
    expect((await createEventStore(kh.database).load('app', appId)).length).toBe(2);
  });
});

describe('UpdateOIDCAppConfig', () => {
  it('replaces the configuration with the compliance report of create; the name stays', async () => {
    const created = await addApp({ name: uniqueName('Native') });
    const res = await kh.rest('PUT', appPath(created.appId, '/oidc_config'), {
      appType: 'OIDC_APP_TYPE_NATIVE',
      redirectUris: ['http://example.com/cb'],
    });
    expect(res.status).toBe(200);
    expect(res.body.noneCompliant).toBe(true);
    expect(keys(res.body)).toEqual(['NotCompliant', 'Native.RedirectUris.MustBeHttpLocalhost', 'Native.AuthMethodType.NotNone']);
    expect(res.body.clientSecretNeeded ?? false).toBe(false);
    const got = (await kh.rest('GET', appPath(created.appId))).body.app;
    expect(got.name).toMatch(/^Native-/);
    expect(got.oidcConfig.appType).toBe('OIDC_APP_TYPE_NATIVE');
    expect(got.oidcConfig.redirectUris).toEqual(['http://example.com/cb']);
    expect(got.oidcConfig.noneCompliant).toBe(true);
    // A compliant configuration clears the report.
    const fixed = await kh.rest('PUT', appPath(created.appId, '/oidc_config'), {
      appType: 'OIDC_APP_TYPE_NATIVE',
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      redirectUris: ['http://127.0.0.1/cb'],
    });
    expect(fixed.status).toBe(200);
    expect(fixed.body.noneCompliant ?? false).toBe(false);
    expect(fixed.body.complianceProblems ?? []).toEqual([]);
  });

  it('BASIC → NONE drops the secret (it stops verifying); NONE → POST issues none and says one is needed', async () => {
    const { appId, clientId, clientSecret } = await addApp();
    expect(await authenticateClient(kh.readModel, clientId, clientSecret!)).toBe(true);
    const client = kh.client(ManagementService);
    const toNone = await client.updateOIDCAppConfig({ projectId, appId, authMethodType: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_NONE, redirectUris: ['https://a.example/cb'] });
    expect(toNone.clientSecretNeeded).toBe(false);
    expect(await authenticateClient(kh.readModel, clientId, clientSecret!)).toBe(false);
    const toPost = await client.updateOIDCAppConfig({ projectId, appId, authMethodType: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_POST, redirectUris: ['https://a.example/cb'] });
    expect(toPost.clientSecretNeeded).toBe(true);
    expect(JSON.stringify(toPost, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toMatch(/[A-Za-z0-9]{64}/);
    expect(await authenticateClient(kh.readModel, clientId, clientSecret!)).toBe(false);
    const fresh = await client.regenerateOIDCClientSecret({ projectId, appId });
    expect(await authenticateClient(kh.readModel, clientId, fresh.clientSecret)).toBe(true);
    // BASIC ↔ POST keeps it.
    const toBasic = await client.updateOIDCAppConfig({ projectId, appId, redirectUris: ['https://a.example/cb'] });
    expect(toBasic.clientSecretNeeded).toBe(false);
    expect(await authenticateClient(kh.readModel, clientId, fresh.clientSecret)).toBe(true);
    const toPkJwt = await client.updateOIDCAppConfig({ projectId, appId, authMethodType: OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT, redirectUris: ['https://a.example/cb'] });
    expect(toPkJwt.clientSecretNeeded).toBe(false);
    expect(await authenticateClient(kh.readModel, clientId, fresh.clientSecret)).toBe(false);
    // No event holds a secret or a hash of the switch.
    const events = await createEventStore(kh.database).load('app', appId);
    const changes = events.filter((e) => e.type === 'app.oidc.config.changed').map((e) => (e.payload as any).clientCredential);
    expect(changes).toEqual(['dropped', 'needed', 'kept', 'dropped']);
  });

  it('validation exactly as on create: every bad field in one 400, nothing changed', async () => {
    const { appId } = await addApp();
    const res = await kh.rest('PUT', appPath(appId, '/oidc_config'), {
      redirectUris: ['https://a.example/cb#x'],
      clockSkew: '9s',
      additionalOrigins: ['https://a.example/'],
    });
    expect(res.status).toBe(400);
    expect(restFields(res.body)).toEqual(expect.arrayContaining(['redirectUris[0]', 'clockSkew', 'additionalOrigins[0]']));
    expect((await createEventStore(kh.database).load('app', appId)).length).toBe(2);
    const unknown = await kh.rest('PUT', appPath(appId, '/oidc_config'), { name: 'no name here' });
    expect(unknown.status).toBe(400);
    const err = await rpcError(kh.client(ManagementService).updateOIDCAppConfig({ projectId, appId, appType: 9 as OIDCAppType }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.fields).toContain('appType');
  });
});

describe('DeactivateApp / ReactivateApp', () => {
  it('a deactivated app reads INACTIVE and does not authenticate; reactivated it does again', async () => {
    const { appId, clientId, clientSecret } = await addApp();
    const off = await kh.rest('POST', appPath(appId, '/_deactivate'), {});
    expect(off.status).toBe(200);
    expect(off.body.details.sequence).toBe('3');
    expect((await kh.rest('GET', appPath(appId))).body.app.state).toBe('APP_STATE_INACTIVE');
    expect(await authenticateClient(kh.readModel, clientId, clientSecret!)).toBe(false);
    const again = await kh.rest('POST', appPath(appId, '/_deactivate'), {});
    expect(again.status).toBe(400);
    expect(restReason(again.body)).toBe('APP_NOT_ACTIVE');

    const client = kh.client(ManagementService, 'grpcWeb');
    await client.reactivateApp({ projectId, appId });
    expect((await client.getAppByID({ projectId, appId })).app?.state).toBe(AppState.ACTIVE);
    expect(await authenticateClient(kh.readModel, clientId, clientSecret!)).toBe(true);
    const err = await rpcError(client.reactivateApp({ projectId, appId }));
    expect(err.code).toBe(Code.FailedPrecondition);
    expect(err.reason).toBe('APP_NOT_INACTIVE');
  });
});

describe('401, 403, 404 for every new call', () => {
  const calls = (appId: string): [string, string, unknown][] => [
    ['PUT', appPath(appId), { name: 'x' }],
    ['PUT', appPath(appId, '/oidc_config'), {}],
    ['POST', appPath(appId, '/_deactivate'), {}],
    ['POST', appPath(appId, '/_reactivate'), {}],
  ];

  it('no token → 401; a token without project.app.write → 403; project.app.read only → 403', async () => {
    const { appId } = await addApp();
    const nobody = await machineCaller(kh, undefined, uniqueName('nobody'));
    const viewer = await machineCaller(kh, undefined, uniqueName('viewer'), ['ORG_USER_MANAGER']);
    for (const [method, path, body] of calls(appId)) {
      expect((await kh.rest(method, path, body, { authorization: '' })).status, path).toBe(401);
      const denied = await kh.rest(method, path, body, bearer(nobody.token));
      expect(denied.status, path).toBe(403);
      expect(restReason(denied.body)).toBe('PERMISSION_DENIED');
      expect((await kh.rest(method, path, body, bearer(viewer.token))).status, path).toBe(403);
    }
    expect((await createEventStore(kh.database).load('app', appId)).length).toBe(2);
  });

  it('unknown project or app → 404; an app of another project → 404 APP_NOT_FOUND', async () => {
    const { appId } = await addApp();
    const other = (await kh.client(ManagementService).addProject({ name: 'Other' })).id;
    for (const [method, path, body] of calls('01aaaaaaaaaaaaaaaaaaaaaaaa')) {
      const res = await kh.rest(method, path, body);
      expect(res.status, path).toBe(404);
      expect(restReason(res.body)).toBe('APP_NOT_FOUND');
    }
    for (const [method, path, body] of calls(appId)) {
      const res = await kh.rest(method, path.replace(projectId, other), body);
      expect(res.status, path).toBe(404);
      expect(restReason(res.body)).toBe('APP_NOT_FOUND');
      const noProject = await kh.rest(method, path.replace(projectId, '01bbbbbbbbbbbbbbbbbbbbbbbb'), body);
      expect(restReason(noProject.body)).toBe('PROJECT_NOT_FOUND');
    }
  });
});
