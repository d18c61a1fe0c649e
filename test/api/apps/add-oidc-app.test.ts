// AddOIDCApp end to end (seed spec §2.1–§2.4, design §6) over REST and gRPC.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { OIDCAppType, OIDCAuthMethodType } from '../../../gen/keyhold/management/v1/app_pb.js';
import { authenticateClient } from '../../../src/queries/client-auth.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { rpcError, restFields, restReason } from '../../support/errors.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { inOrg } from '../../support/identity.js';

let kh: TestKeyhold;
let projectId: string;
const P = 'Application.OIDC.V1.';
let n = 0;
const uniqueName = (prefix = 'app') => `${prefix}-${++n}-${Date.now()}`;

beforeAll(async () => {
  kh = await startTestKeyhold();
  projectId = (await kh.client(ManagementService).addProject({ name: 'Apps' })).id;
});
afterAll(async () => kh?.close());

const addRest = (body: Record<string, unknown>, headers?: Record<string, string>) =>
  kh.rest('POST', `/management/v1/projects/${projectId}/apps/oidc`, { name: uniqueName(), ...body }, headers);

const keys = (body: any) => (body.complianceProblems ?? []).map((p: any) => p.key.replace(P, ''));

describe('worked examples of compliance (REST)', () => {
  const examples: [string, Record<string, unknown>, boolean, string[]][] = [
    ['WEB code BASIC https', { redirectUris: ['https://a.example/cb'] }, false, []],
    ['WEB code BASIC no redirect', {}, true, ['NotCompliant', 'NoRedirectUris']],
    [
      'USER_AGENT code NONE http localhost',
      { appType: 'OIDC_APP_TYPE_USER_AGENT', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', redirectUris: ['http://localhost:4200/cb'] },
      true,
      ['NotCompliant', 'Code.RedirectUris.HttpOnlyForWeb'],
    ],
    [
      'NATIVE code BASIC http example.com',
      { appType: 'OIDC_APP_TYPE_NATIVE', redirectUris: ['http://example.com/cb'] },
      true,
      ['NotCompliant', 'Native.RedirectUris.MustBeHttpLocalhost', 'Native.AuthMethodType.NotNone'],
    ],
    [
      'NATIVE code NONE loopback + custom',
      { appType: 'OIDC_APP_TYPE_NATIVE', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', redirectUris: ['http://127.0.0.1:8080/cb', 'myapp://cb'] },
      false,
      [],
    ],
    [
      'WEB code+implicit BASIC http',
      {
        responseTypes: ['OIDC_RESPONSE_TYPE_CODE', 'OIDC_RESPONSE_TYPE_ID_TOKEN'],
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_IMPLICIT'],
        redirectUris: ['http://a.example/cb'],
      },
      false,
      ['NotAllCombinationsAreAllowed'],
    ],
    [
      'NATIVE device code NONE no redirect',
      { appType: 'OIDC_APP_TYPE_NATIVE', authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'] },
      false,
      [],
    ],
  ];
  it.each(examples)('%s', async (_label, body, noneCompliant, expected) => {
    const res = await addRest(body);
    expect(res.status).toBe(200);
    expect(res.body.noneCompliant ?? false).toBe(noneCompliant);
    expect(keys(res.body)).toEqual(expected);
    for (const p of res.body.complianceProblems ?? []) expect(p.localizedMessage.length).toBeGreaterThan(10);
  });

  it('messages follow Accept-Language and name the offending URI', async () => {
    const body = { appType: 'OIDC_APP_TYPE_NATIVE', redirectUris: ['http://example.com/cb'] };
    const en = await addRest(body);
    const de = await addRest(body, { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' });
    const nativeEn = en.body.complianceProblems.find((p: any) => p.key.endsWith('MustBeHttpLocalhost'));
    const nativeDe = de.body.complianceProblems.find((p: any) => p.key.endsWith('MustBeHttpLocalhost'));
    expect(nativeEn.localizedMessage).toContain('http://example.com/cb');
    expect(nativeDe.localizedMessage).toContain('http://example.com/cb');
    expect(nativeDe.localizedMessage).not.toBe(nativeEn.localizedMessage);
  });
});

describe('the response and what is stored', () => {
  it('BASIC: a 64-character secret, details with all four fields, distinct ids', async () => {
    const res = await addRest({ redirectUris: ['https://a.example/cb'] });
    expect(res.status).toBe(200);
    const { appId, clientId, clientSecret, details } = res.body;
    expect(clientSecret).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(clientId).toBeTruthy();
    expect(clientId).not.toBe(appId);
    expect(details.sequence).toBe('2');
    expect(details.creationDate).toBe(details.changeDate);
    expect(details.resourceOwner).toBe(kh.bootstrap.created && kh.bootstrap.orgId);
    expect(await authenticateClient(kh.readModel, clientId, clientSecret)).toBe(true);
    expect(await authenticateClient(kh.readModel, clientId, clientSecret.slice(0, 63) + (clientSecret.endsWith('a') ? 'b' : 'a'))).toBe(false);

    // The secret is in no event, no read response and no log line.
    const events = await createEventStore(kh.database).load('app', appId);
    expect(events.map((e) => e.type)).toEqual(['app.added', 'app.oidc.config.added']);
    expect(JSON.stringify(events, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(clientSecret);
    const got = await kh.rest('GET', `/management/v1/projects/${projectId}/apps/${appId}`);
    expect(got.status).toBe(200);
    expect(got.body.app.oidcConfig.clientId).toBe(clientId);
    expect(JSON.stringify(got.body)).not.toContain(clientSecret);
    const list = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/_search`, { query: { limit: 1000 } });
    expect(list.body.result.some((a: any) => a.id === appId)).toBe(true);
    expect(JSON.stringify(list.body)).not.toMatch(/clientSecret|secretHash/i);
    expect(kh.logLines.join('\n')).not.toContain(clientSecret);
  });

  it.each([
    ['POST', OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_POST, true],
    ['NONE', OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_NONE, false],
    ['PRIVATE_KEY_JWT', OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT, false],
  ])('%s over gRPC: a secret only for BASIC and POST', async (_l, authMethodType, hasSecret) => {
    const res = await kh.client(ManagementService).addOIDCApp({ projectId, name: uniqueName(), authMethodType, redirectUris: ['https://a.example/cb'] });
    expect(res.clientSecret.length).toBe(hasSecret ? 64 : 0);
  });

  it('defaults are applied and read back', async () => {
    const res = await addRest({ redirectUris: ['https://a.example/cb'] });
    const got = await kh.client(ManagementService, 'connect').getAppByID({ projectId, appId: res.body.appId });
    const cfg = got.app!.oidcConfig!;
    expect(cfg.appType).toBe(OIDCAppType.OIDC_APP_TYPE_WEB);
    expect(cfg.authMethodType).toBe(OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_BASIC);
    expect(cfg.responseTypes).toEqual([0]);
    expect(cfg.grantTypes).toEqual([0]);
    expect(cfg.clockSkew?.seconds ?? 0n).toBe(0n);
  });
});

describe('validation: 400 naming every bad field, nothing stored', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['empty name', { name: '' }, 'name'],
    ['whitespace-only name', { name: '   ' }, 'name'],
    ['201-character name', { name: 'x'.repeat(201) }, 'name'],
    ['fragment in a redirect URI', { redirectUris: ['https://a.example/cb#frag'] }, 'redirectUris[0]'],
    ['relative redirect URI', { redirectUris: ['/cb'] }, 'redirectUris[0]'],
    ['fragment in a post-logout URI', { postLogoutRedirectUris: ['https://a.example/#x'] }, 'postLogoutRedirectUris[0]'],
    ['clockSkew 6s', { clockSkew: '6s' }, 'clockSkew'],
    ['clockSkew -1s', { clockSkew: '-1s' }, 'clockSkew'],
    ['additional origin with a path', { additionalOrigins: ['https://a.example/app'] }, 'additionalOrigins[0]'],
    ['additional origin with a trailing /', { additionalOrigins: ['https://a.example/'] }, 'additionalOrigins[0]'],
    ['unknown enum name', { appType: 'OIDC_APP_TYPE_FOO' }, 'appType'],
    ['ID_TOKEN without IMPLICIT', { responseTypes: ['OIDC_RESPONSE_TYPE_ID_TOKEN'] }, 'responseTypes[0]'],
  ];
  it.each(cases)('%s', async (_label, body, field) => {
    const res = await addRest(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(3);
    expect(restFields(res.body)).toContain(field);
  });

  it('reports every violation at once and stores nothing', async () => {
    const before = (await kh.rest('POST', `/management/v1/projects/${projectId}/apps/_search`, { query: { limit: 1000 } })).body.result?.length ?? 0;
    const res = await addRest({ name: '', redirectUris: ['nope'], clockSkew: '9s', additionalOrigins: ['https://a.example/x'] });
    expect(res.status).toBe(400);
    expect(restFields(res.body)).toEqual(expect.arrayContaining(['name', 'redirectUris[0]', 'clockSkew', 'additionalOrigins[0]']));
    const after = (await kh.rest('POST', `/management/v1/projects/${projectId}/apps/_search`, { query: { limit: 1000 } })).body.result?.length ?? 0;
    expect(after).toBe(before);
  });

  it('an unknown enum number over gRPC is rejected, not defaulted', async () => {
    const err = await rpcError(kh.client(ManagementService).addOIDCApp({ projectId, name: uniqueName(), appType: 7 as OIDCAppType }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.fields).toContain('appType');
  });

  it('a 200-character name is accepted (characters, not bytes)', async () => {
    const res = await addRest({ name: 'ü'.repeat(199) + `${n++ % 10}`, redirectUris: ['https://a.example/cb'] });
    expect(res.status).toBe(200);
  });
});

describe('not found, permission, conflict', () => {
  it('unknown project → 404 PROJECT_NOT_FOUND', async () => {
    const res = await kh.rest('POST', '/management/v1/projects/01aaaaaaaaaaaaaaaaaaaaaaaa/apps/oidc', { name: 'x' });
    expect(res.status).toBe(404);
    expect(restReason(res.body)).toBe('PROJECT_NOT_FOUND');
  });

  it("another org's project is 404 in this org context, and reachable with x-service-orgid", async () => {
    const org = await kh.rest('POST', '/v2/organizations', { name: uniqueName('org') });
    const orgId = org.body.organizationId;
    const other = await kh.rest('POST', '/management/v1/projects', { name: 'Other' }, inOrg(orgId));
    expect(other.status).toBe(200);
    const res = await kh.rest('POST', `/management/v1/projects/${other.body.id}/apps/oidc`, { name: 'x' });
    expect(res.status).toBe(404);
    const ok = await kh.rest('POST', `/management/v1/projects/${other.body.id}/apps/oidc`, { name: 'x', redirectUris: ['https://a.example/cb'] }, inOrg(orgId));
    expect(ok.status).toBe(200);
    expect(ok.body.details.resourceOwner).toBe(orgId);
  });

  it('a caller without project.app.write → 403', async () => {
    const user = await kh.rest('POST', '/management/v1/users/machine', { userName: uniqueName('svc'), name: 'No roles' });
    const pat = await kh.rest('POST', `/management/v1/users/${user.body.userId}/pats`, {});
    const res = await addRest({}, { authorization: `Bearer ${pat.body.token}` });
    expect(res.status).toBe(403);
    expect(restReason(res.body)).toBe('PERMISSION_DENIED');
  });

  it('a name used in the project (any case) → 409 APP_NAME_TAKEN; free again after RemoveApp', async () => {
    const name = uniqueName('Taken');
    const first = await addRest({ name, redirectUris: ['https://a.example/cb'] });
    expect(first.status).toBe(200);
    const dup = await addRest({ name: name.toUpperCase() });
    expect(dup.status).toBe(409);
    expect(restReason(dup.body)).toBe('APP_NAME_TAKEN');
    const removed = await kh.rest('DELETE', `/management/v1/projects/${projectId}/apps/${first.body.appId}`);
    expect(removed.status).toBe(200);
    expect((await kh.rest('GET', `/management/v1/projects/${projectId}/apps/${first.body.appId}`)).status).toBe(404);
    expect((await addRest({ name })).status).toBe(200);
  });
});

describe('RegenerateOIDCClientSecret', () => {
  it('returns a new secret once; the old one stops verifying', async () => {
    const created = await addRest({ redirectUris: ['https://a.example/cb'] });
    const { appId, clientId, clientSecret: old } = created.body;
    const res = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/${appId}/oidc_config/_generate_client_secret`, {});
    expect(res.status).toBe(200);
    expect(res.body.clientSecret).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(res.body.clientSecret).not.toBe(old);
    expect(res.body.details.sequence).toBe('3');
    expect(await authenticateClient(kh.readModel, clientId, old)).toBe(false);
    expect(await authenticateClient(kh.readModel, clientId, res.body.clientSecret)).toBe(true);
  });

  it('is refused for an app without a secret (NONE)', async () => {
    const created = await addRest({ authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', redirectUris: ['https://a.example/cb'] });
    const res = await kh.rest('POST', `/management/v1/projects/${projectId}/apps/${created.body.appId}/oidc_config/_generate_client_secret`, {});
    expect(res.status).toBe(400);
    expect(restReason(res.body)).toBe('APP_NOT_OIDC_SECRET');
  });
});

describe('concurrency', () => {
  it('100 concurrent calls with one name: exactly one 200, 99 × 409', async () => {
    const name = uniqueName('race');
    const client = kh.client(ManagementService);
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, () => client.addOIDCApp({ projectId, name, redirectUris: ['https://a.example/cb'] })),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const conflicts = await Promise.all(results.filter((r) => r.status === 'rejected').map((r) => rpcError(Promise.reject((r as PromiseRejectedResult).reason))));
    expect(ok).toHaveLength(1);
    expect(conflicts).toHaveLength(99);
    expect(conflicts.every((c) => c.code === Code.AlreadyExists && c.reason === 'APP_NAME_TAKEN')).toBe(true);
  });

  it('100 concurrent calls with distinct names all succeed with distinct ids', async () => {
    const client = kh.client(ManagementService);
    const prefix = uniqueName('many');
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => client.addOIDCApp({ projectId, name: `${prefix}-${i}`, redirectUris: ['https://a.example/cb'] })),
    );
    expect(new Set(results.map((r) => r.appId)).size).toBe(100);
    expect(new Set(results.map((r) => r.clientId)).size).toBe(100);
    expect(new Set(results.map((r) => r.clientSecret)).size).toBe(100);
  });
});
