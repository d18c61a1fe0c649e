// A user's metadata through real clients on PGlite and (with TEST_DATABASE_URL)
// PostgreSQL: SetUserMetadata, BulkSetUserMetadata, ListUserMetadata,
// GetUserMetadata, RemoveUserMetadata, BulkRemoveUserMetadata over REST and
// gRPC; the bounds (400 naming the field, the index in a bulk request) that
// change nothing; bulk writes all or nothing; 404 for another org's caller,
// 403 without the permission or past containment; racing writes stay within
// 64 keys; values never reach the log.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { TextQueryMethod } from '../../../gen/keyhold/object/v1/object_pb.js';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { announcePostgresSkip, postgresAvailable } from '../../support/databases.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { addOrg, bearer, inOrg, machineCaller, type MachineCaller } from '../../support/identity.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';

announcePostgresSkip('user metadata on PostgreSQL');
const backends = [{ backend: 'PGlite', postgres: false }, ...(postgresAvailable ? [{ backend: 'PostgreSQL', postgres: true }] : [])];

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe.each(backends)('user metadata on $backend', ({ postgres }) => {
  let kh: TestKeyhold;
  let org: string;
  let other: string;
  let manager: MachineCaller; // ORG_USER_MANAGER of org
  let nobody: MachineCaller; // of org, no role
  let foreignOwner: MachineCaller; // ORG_OWNER of the other org
  let owner: MachineCaller; // ORG_OWNER of org: holds more than the manager
  let n = 0;

  const admin = () => kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(org));
  const as = (caller: MachineCaller) => kh.client(ManagementService, 'grpc', caller.token);
  const path = (userId: string, rest = '') => `/management/v1/users/${userId}/metadata${rest}`;
  const keysOf = async (id: string) => (await admin().listUserMetadata({ id, query: { asc: true } })).result.map((m) => m.key);

  async function newUser(): Promise<string> {
    const username = `meta-${postgres}-${++n}`;
    const { userId } = await kh.client(UserService).addHumanUser({ username, organization: { orgId: org }, profile: { givenName: 'M', familyName: 'D' }, email: { email: `${username}@example.com` } });
    return userId;
  }

  beforeAll(async () => {
    kh = await startTestKeyhold({ postgres });
    [org, other] = await Promise.all([addOrg(kh, 'Metadata org'), addOrg(kh, 'Other org')]);
    [manager, nobody, foreignOwner, owner] = await Promise.all([
      machineCaller(kh, org, 'md-manager', ['ORG_USER_MANAGER']),
      machineCaller(kh, org, 'md-nobody'),
      machineCaller(kh, other, 'md-foreign', ['ORG_OWNER']),
      machineCaller(kh, org, 'md-owner', ['ORG_OWNER']),
    ]);
  });
  afterAll(async () => kh?.close());

  it('REST, as ZITADEL: set (base64 value), get, search with paging and a key query, remove', async () => {
    const user = await newUser();
    const auth = bearer(manager.token);
    const set = await kh.rest('POST', path(user, '/department'), { value: b64('sales') }, auth);
    expect(set.status).toBe(200);
    expect(set.body.details.resourceOwner).toBe(org);
    expect((await kh.rest('POST', path(user, '/cost_center'), { value: b64('4711') }, auth)).status).toBe(200);
    // Any bytes, not only text.
    expect((await kh.rest('POST', path(user, '/raw'), { value: Buffer.from([0, 255, 10]).toString('base64') }, auth)).status).toBe(200);

    const got = await kh.rest('GET', path(user, '/department'), undefined, auth);
    expect(got.status).toBe(200);
    expect([got.body.metadata.key, got.body.metadata.value, got.body.metadata.details.resourceOwner]).toEqual(['department', b64('sales'), org]);
    expect((await kh.rest('GET', path(user, '/raw'), undefined, auth)).body.metadata.value).toBe(Buffer.from([0, 255, 10]).toString('base64'));

    const page = await kh.rest('POST', path(user, '/_search'), { query: { asc: true, limit: 2, offset: '1' } }, auth);
    expect(page.status).toBe(200);
    expect(page.body.details.totalResult).toBe('3');
    expect(page.body.result.map((m: any) => m.key)).toEqual(['cost_center', 'raw']);
    const byKey = await kh.rest('POST', path(user, '/_search'), { queries: [{ keyQuery: { key: 'DEP', method: 'TEXT_QUERY_METHOD_STARTS_WITH_IGNORE_CASE' } }] }, auth);
    expect(byKey.body.result.map((m: any) => [m.key, m.value])).toEqual([['department', b64('sales')]]);

    // Set again: the new value, the key keeps its place.
    expect((await kh.rest('POST', path(user, '/department'), { value: b64('research') }, auth)).status).toBe(200);
    expect((await kh.rest('GET', path(user, '/department'), undefined, auth)).body.metadata.value).toBe(b64('research'));

    const removed = await kh.rest('DELETE', path(user, '/department'), undefined, auth);
    expect(removed.status).toBe(200);
    const gone = await kh.rest('GET', path(user, '/department'), undefined, auth);
    expect([gone.status, restReason(gone.body)]).toEqual([404, 'USER_METADATA_NOT_FOUND']);
    expect(await keysOf(user)).toEqual(['cost_center', 'raw']);
  });

  it('gRPC bulk: all entries in one write; a bad entry (by its index) or a repeated key sets none', async () => {
    const user = await newUser();
    const mgmt = as(manager);
    const done = await mgmt.bulkSetUserMetadata({ id: user, metadata: [{ key: 'a', value: bytes('1') }, { key: 'b', value: bytes('2') }] });
    expect(done.details?.sequence).toBeGreaterThan(0n);
    expect(text((await mgmt.getUserMetadata({ id: user, key: 'b' })).metadata!.value)).toBe('2');

    const entries = [{ key: 'c', value: bytes('3') }, { key: 'a', value: bytes('changed') }, { key: 'd', value: bytes('4') }, { key: 'e', value: new Uint8Array() }];
    const bad = await rpcError(mgmt.bulkSetUserMetadata({ id: user, metadata: entries }));
    expect([bad.code, bad.fields]).toEqual([Code.InvalidArgument, ['metadata[3].value']]);
    const twice = await rpcError(mgmt.bulkSetUserMetadata({ id: user, metadata: [{ key: 'x', value: bytes('1') }, { key: 'x', value: bytes('2') }] }));
    expect([twice.code, twice.fields]).toEqual([Code.InvalidArgument, ['metadata[1].key']]);
    expect(await keysOf(user)).toEqual(['a', 'b']);
    expect(text((await mgmt.getUserMetadata({ id: user, key: 'a' })).metadata!.value)).toBe('1');

    // Bulk remove over REST (DELETE with a body): a key the user lacks removes none.
    const missing = await kh.rest('DELETE', path(user, '/_bulk'), { keys: ['a', 'nope'] }, bearer(manager.token));
    expect([missing.status, restReason(missing.body)]).toEqual([404, 'USER_METADATA_NOT_FOUND']);
    expect(await keysOf(user)).toEqual(['a', 'b']);
    expect((await kh.rest('DELETE', path(user, '/_bulk'), { keys: ['a', 'b'] }, bearer(manager.token))).status).toBe(200);
    expect(await keysOf(user)).toEqual([]);
    // And over REST the bulk set (POST …/_bulk, not a key named "_bulk").
    expect((await kh.rest('POST', path(user, '/_bulk'), { metadata: [{ key: 'k', value: b64('v') }] }, bearer(manager.token))).status).toBe(200);
    expect(await keysOf(user)).toEqual(['k']);
  });

  it('bounds: key 1..200 characters without control characters (NFC), value 1..2048 bytes, 64 keys, 64 per bulk request', async () => {
    const user = await newUser();
    const mgmt = admin();
    const field = async (p: Promise<unknown>) => {
      const e = await rpcError(p);
      expect(e.code).toBe(Code.InvalidArgument);
      return e.fields;
    };
    expect(await field(mgmt.setUserMetadata({ id: user, key: '', value: bytes('v') }))).toEqual(['key']);
    expect(await field(mgmt.setUserMetadata({ id: user, key: 'k'.repeat(201), value: bytes('v') }))).toEqual(['key']);
    expect(await field(mgmt.setUserMetadata({ id: user, key: 'line\nbreak', value: bytes('v') }))).toEqual(['key']);
    expect(await field(mgmt.setUserMetadata({ id: user, key: 'k', value: new Uint8Array(2049) }))).toEqual(['value']);
    expect(await field(mgmt.setUserMetadata({ id: 'not an id', key: 'k', value: bytes('v') }))).toEqual(['id']);
    expect(await field(mgmt.bulkSetUserMetadata({ id: user, metadata: [] }))).toEqual(['metadata']);
    expect(await field(mgmt.bulkRemoveUserMetadata({ id: user, keys: [] }))).toEqual(['keys']);
    const many = Array.from({ length: 65 }, (_, i) => ({ key: `k${i}`, value: bytes('v') }));
    expect(await field(mgmt.bulkSetUserMetadata({ id: user, metadata: many }))).toEqual(['metadata']);
    const rest = await kh.rest('POST', path(user, '/k'), { value: '' }, inOrg(org));
    expect([rest.status, restFields(rest.body)]).toEqual([400, ['value']]);
    expect(await keysOf(user)).toEqual([]);

    // The largest of each passes; a key is one key in either Unicode spelling.
    await mgmt.setUserMetadata({ id: user, key: 'k'.repeat(200), value: new Uint8Array(2048).fill(7) });
    await mgmt.setUserMetadata({ id: user, key: 'caf\u0065\u0301', value: bytes('decomposed') });
    expect(text((await mgmt.getUserMetadata({ id: user, key: 'caf\u00e9' })).metadata!.value)).toBe('decomposed');
    expect((await mgmt.getUserMetadata({ id: user, key: 'k'.repeat(200) })).metadata!.value.length).toBe(2048);

    // 64 keys: the first new key past them is refused, by its place; changing a held key still works.
    await mgmt.bulkSetUserMetadata({ id: user, metadata: Array.from({ length: 62 }, (_, i) => ({ key: `n${i}`, value: bytes('v') })) });
    const past = await rpcError(mgmt.bulkSetUserMetadata({ id: user, metadata: [{ key: 'n0', value: bytes('w') }, { key: 'extra', value: bytes('v') }] }));
    expect([past.code, past.fields]).toEqual([Code.InvalidArgument, ['metadata[1].key']]);
    expect(await field(mgmt.setUserMetadata({ id: user, key: 'extra', value: bytes('v') }))).toEqual(['key']);
    await mgmt.setUserMetadata({ id: user, key: 'n0', value: bytes('w') });
    expect((await mgmt.listUserMetadata({ id: user })).details?.totalResult).toBe(64n);
  });

  it('404 for another org’s caller (as for a user that does not exist); 403 without the permission; 401', async () => {
    const user = await newUser();
    await admin().setUserMetadata({ id: user, key: 'team', value: bytes('blue') });
    const foreign = as(foreignOwner);
    for (const call of [
      () => foreign.setUserMetadata({ id: user, key: 'team', value: bytes('red') }),
      () => foreign.bulkSetUserMetadata({ id: user, metadata: [{ key: 'team', value: bytes('red') }] }),
      () => foreign.listUserMetadata({ id: user }),
      () => foreign.getUserMetadata({ id: user, key: 'team' }),
      () => foreign.removeUserMetadata({ id: user, key: 'team' }),
      () => foreign.bulkRemoveUserMetadata({ id: user, keys: ['team'] }),
    ]) {
      expect((await rpcError(call())).reason).toBe('USER_NOT_FOUND');
    }
    // Naming the user's org does not help a caller without a role there.
    const naming = kh.client(ManagementService, 'grpc', foreignOwner.token, inOrg(org));
    expect((await rpcError(naming.getUserMetadata({ id: user, key: 'team' }))).code).toBe(Code.PermissionDenied);
    expect((await rpcError(as(nobody).getUserMetadata({ id: user, key: 'team' }))).reason).toBe('PERMISSION_DENIED');
    expect((await rpcError(as(nobody).setUserMetadata({ id: user, key: 'team', value: bytes('red') }))).reason).toBe('PERMISSION_DENIED');
    expect((await kh.rest('GET', path(user, '/team'), undefined, { authorization: '' })).status).toBe(401);
    expect(text((await admin().getUserMetadata({ id: user, key: 'team' })).metadata!.value)).toBe('blue');
  });

  it('containment: a user manager reads an org owner’s metadata but cannot change it', async () => {
    await admin().setUserMetadata({ id: owner.userId, key: 'clearance', value: bytes('high') });
    const mgmt = as(manager);
    expect(text((await mgmt.getUserMetadata({ id: owner.userId, key: 'clearance' })).metadata!.value)).toBe('high');
    expect((await rpcError(mgmt.setUserMetadata({ id: owner.userId, key: 'clearance', value: bytes('low') }))).reason).toBe('PRIVILEGE_ESCALATION');
    expect((await rpcError(mgmt.removeUserMetadata({ id: owner.userId, key: 'clearance' }))).reason).toBe('PRIVILEGE_ESCALATION');
    expect(text((await admin().getUserMetadata({ id: owner.userId, key: 'clearance' })).metadata!.value)).toBe('high');
  });

  it('eight writers racing for the last free keys: the user ends with 64, each writer set all or none of its keys', async () => {
    const user = await newUser();
    await admin().bulkSetUserMetadata({ id: user, metadata: Array.from({ length: 60 }, (_, i) => ({ key: `held${i}`, value: bytes('v') })) });
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, w) =>
        as(manager)
          .bulkSetUserMetadata({ id: user, metadata: [{ key: `w${w}a`, value: bytes('1') }, { key: `w${w}b`, value: bytes('2') }] })
          .then(() => 'OK', (e) => String(e.code)),
      ),
    );
    expect(outcomes.filter((o) => o === 'OK')).toHaveLength(2);
    expect(outcomes.filter((o) => o !== 'OK').every((o) => o === String(Code.InvalidArgument))).toBe(true);
    const keys = await keysOf(user);
    expect(keys).toHaveLength(64);
    for (let w = 0; w < 8; w++) expect(keys.includes(`w${w}a`)).toBe(keys.includes(`w${w}b`));
  });

  it('a removed user’s metadata goes with it: 404 for every read and write', async () => {
    const user = await newUser();
    await admin().setUserMetadata({ id: user, key: 'k', value: bytes('v') });
    await kh.client(UserService).removeUser({ userId: user });
    expect((await rpcError(admin().getUserMetadata({ id: user, key: 'k' }))).reason).toBe('USER_NOT_FOUND');
    expect((await rpcError(admin().setUserMetadata({ id: user, key: 'k', value: bytes('v') }))).reason).toBe('USER_NOT_FOUND');
    expect(await kh.readModel.userMetadataOf(user)).toEqual([]);
  });

  it('values and keys never reach the log, not even of refused requests', async () => {
    const user = await newUser();
    const secretish = 'medical-note-7f3a9c';
    await admin().setUserMetadata({ id: user, key: 'note', value: bytes(secretish) });
    await rpcError(as(foreignOwner).setUserMetadata({ id: user, key: 'note', value: bytes(secretish) }));
    await rpcError(admin().setUserMetadata({ id: user, key: `k-${secretish}\n`, value: bytes(secretish) }));
    // Over REST the key is in the path: requests are logged by their route, never their URL.
    expect((await kh.rest('POST', path(user, `/key-${secretish}`), { value: b64(secretish) }, inOrg(org))).status).toBe(200);
    expect((await kh.rest('GET', path(user, `/key-${secretish}`), undefined, bearer(foreignOwner.token))).status).toBe(404);
    // The requests were logged (by their route), so the absence below means something.
    expect(kh.logLines.some((l) => l.includes('/management/v1/users/{id}/metadata/{key}'))).toBe(true);
    expect(kh.logLines.join('\n')).not.toContain(secretish);
    expect(kh.logLines.join('\n')).not.toContain(b64(secretish));
  });
});
