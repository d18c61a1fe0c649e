// Look-alike names through real clients: the spellings of one name collide
// (409) whatever the database's locale — PGlite, PostgreSQL in C.UTF-8, and a
// PostgreSQL database created with LC_COLLATE=C / LC_CTYPE=C, whose lower()
// leaves "É" alone — and names that hide or reorder text are a 400 naming the
// field. REST over HTTP/1.1 and gRPC (connect-node) alternate.
import { Code } from '@connectrpc/connect';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { OrganizationService } from '../../../gen/keyhold/org/v2/org_pb.js';
import { UserService } from '../../../gen/keyhold/user/v2/user_pb.js';
import { announcePostgresSkip, postgresAvailable } from '../../support/databases.js';
import { restFields, restReason, rpcError } from '../../support/errors.js';
import { startTestKeyhold, type StartOptions, type TestKeyhold } from '../../support/keyhold.js';
import { addOrg, inOrg } from '../../support/identity.js';

announcePostgresSkip('look-alike names on PostgreSQL');

// The same name four ways: NFC, upper case, NFD (e + U+0301), full-width letters.
const CAFE = ['Café', 'CAFÉ', 'Cafe\u0301', '\uFF23\uFF41\uFF46é'];

const backends: { label: string; options: StartOptions; skip: boolean }[] = [
  { label: 'PGlite', options: {}, skip: false },
  { label: 'PostgreSQL (C.UTF-8)', options: { postgres: true }, skip: !postgresAvailable },
  { label: 'PostgreSQL created with LC_COLLATE=C, LC_CTYPE=C', options: { postgres: true, postgresLocale: 'C' }, skip: !postgresAvailable },
];

describe.each(backends)('look-alike names on $label', ({ options, skip }) => {
  let kh: TestKeyhold;
  let org: string;
  let project: string;
  const mgmt = () => kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(org));
  const human = (username: string) => ({
    username,
    organization: { orgId: org },
    profile: { givenName: 'Ada', familyName: 'Lovelace' },
    email: { email: 'ada@example.com' },
  });

  beforeAll(async () => {
    if (skip) return;
    kh = await startTestKeyhold(options);
    org = await addOrg(kh, 'Look-alikes');
    project = (await mgmt().addProject({ name: 'Look-alikes' })).id;
  });
  afterAll(async () => kh?.close());

  it.skipIf(skip)('the database really has the locale under test', async () => {
    if (!options.postgres) return;
    const sql = postgres(kh.config.databaseUrl!, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql`select current_setting('lc_ctype') as ctype, lower('CAFÉ') as lowered`;
      if (options.postgresLocale === 'C') {
        expect(row).toEqual({ ctype: 'C', lowered: 'cafÉ' }); // what made "Café" and "CAFÉ" two names before
      } else {
        expect(row.lowered).toBe('café');
      }
    } finally {
      await sql.end();
    }
  });

  it.skipIf(skip)('app names: Café, CAFÉ, Cafe + U+0301 and Ｃａｆé are one name (409 APP_NAME_TAKEN)', async () => {
    const path = `/management/v1/projects/${project}/apps/oidc`;
    const body = (name: string) => ({ name, redirectUris: ['https://a.example/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE' });
    const first = await kh.rest('POST', path, body(CAFE[0]!), inOrg(org));
    expect(first.status).toBe(200);
    for (const [i, name] of CAFE.slice(1).entries()) {
      if (i % 2 === 0) {
        const res = await kh.rest('POST', path, body(name), inOrg(org));
        expect(res.status, name).toBe(409);
        expect(restReason(res.body), name).toBe('APP_NAME_TAKEN');
      } else {
        const err = await rpcError(mgmt().addOIDCApp({ projectId: project, ...body(name), authMethodType: 2 }));
        expect(err.code, name).toBe(Code.AlreadyExists);
        expect(err.reason, name).toBe('APP_NAME_TAKEN');
      }
    }
    // The display form is kept as sent (trimmed, NFC); another name is still free.
    const listed = await kh.rest('POST', `/management/v1/projects/${project}/apps/_search`, {}, inOrg(org));
    const names = (listed.body.result ?? []).map((a: { name: string }) => a.name);
    expect(names).toEqual(['Café']);
    expect((await kh.rest('POST', path, body('Cafe Bar'), inOrg(org))).status).toBe(200);
  });

  it.skipIf(skip)('usernames: Café, CAFÉ, Cafe + U+0301 and Ｃａｆé are one name (409 USERNAME_TAKEN), machine and human alike', async () => {
    const first = await kh.rest('POST', '/management/v1/users/machine', { userName: CAFE[0], name: 'Café bot' }, inOrg(org));
    expect(first.status).toBe(200);
    const upper = await rpcError(mgmt().addMachineUser({ userName: CAFE[1]!, name: 'Café bot' }));
    expect([upper.code, upper.reason]).toEqual([Code.AlreadyExists, 'USERNAME_TAKEN']);
    const nfd = await kh.rest('POST', '/v2/users/human', human(CAFE[2]!));
    expect([nfd.status, restReason(nfd.body)]).toEqual([409, 'USERNAME_TAKEN']);
    const wide = await rpcError(kh.client(UserService, 'grpc').addHumanUser(human(CAFE[3]!)));
    expect([wide.code, wide.reason]).toEqual([Code.AlreadyExists, 'USERNAME_TAKEN']);
    // Stored as sent, NFC and width-mapped; the case is kept.
    const user = await kh.rest('GET', `/v2/users/${first.body.userId}`);
    expect(user.body.user.username).toBe('Café');
  });

  it.skipIf(skip)('a full-width username is stored width-mapped', async () => {
    const res = await kh.rest('POST', '/v2/users/human', human('\uFF21\uFF44\uFF41\uFF2C'));
    expect(res.status).toBe(200);
    const user = await kh.rest('GET', `/v2/users/${res.body.userId}`);
    expect(user.body.user.username).toBe('AdaL');
    const again = await rpcError(mgmt().addMachineUser({ userName: 'adal', name: 'x' }));
    expect(again.reason).toBe('USERNAME_TAKEN');
  });

  it.skipIf(skip)('hidden characters are a 400 naming the field, and nothing is stored', async () => {
    const cases: [string, () => Promise<{ status: number; body: any }>, string, string][] = [
      ['app name of zero-width spaces', () => kh.rest('POST', `/management/v1/projects/${project}/apps/oidc`, { name: '\u200B\u200B', redirectUris: ['https://a.example/cb'] }, inOrg(org)), 'name', 'U+200B'],
      ['app name with U+202E', () => kh.rest('POST', `/management/v1/projects/${project}/apps/oidc`, { name: 'Shop\u202Egnp.exe' }, inOrg(org)), 'name', 'U+202E'],
      ['machine username with a bidi override', () => kh.rest('POST', '/management/v1/users/machine', { userName: 'ad\u202Emin', name: 'x' }, inOrg(org)), 'userName', 'U+202E'],
      ['human username with a zero-width joiner', () => kh.rest('POST', '/v2/users/human', human('ad\u200Dmin')), 'username', 'U+200D'],
      ['human username with a space', () => kh.rest('POST', '/v2/users/human', human('ada lovelace')), 'username', 'U+0020'],
      ['given name with a line separator', () => kh.rest('POST', '/v2/users/human', { ...human('ok-name'), profile: { givenName: 'A\u2028B', familyName: 'L' } }), 'profile.givenName', 'U+2028'],
      ['machine display name of braille blanks', () => kh.rest('POST', '/management/v1/users/machine', { userName: 'blank-bot', name: '\u2800\u2800' }, inOrg(org)), 'name', 'U+2800'],
      ['project name with a noncharacter', () => kh.rest('POST', '/management/v1/projects', { name: 'P\uFDD0' }, inOrg(org)), 'name', 'U+FDD0'],
      ['org name with a left-to-right isolate', () => kh.rest('POST', '/v2/organizations', { name: 'Org\u2066x' }), 'name', 'U+2066'],
      ['email with a zero-width space', () => kh.rest('POST', '/v2/users/human', { ...human('mail-user'), email: { email: 'ada\u200B@example.com' } }), 'email.email', 'U+200B'],
    ];
    for (const [label, call, field, codePoint] of cases) {
      const res = await call();
      expect(res.status, label).toBe(400);
      expect(restReason(res.body), label).toBe('INVALID_REQUEST');
      expect(restFields(res.body), label).toEqual([field]);
      const violation = res.body.details.find((d: any) => d.fieldViolations).fieldViolations[0];
      expect(violation.description, label).toContain(codePoint);
    }
    // A lone surrogate in free text would be stored as U+FFFD by the driver: refused too.
    const lone = await kh.rest('POST', '/management/v1/users/machine', { userName: 'lone-bot', name: 'Lone', description: 'half \uD800 a pair' }, inOrg(org));
    expect([lone.status, restFields(lone.body)]).toEqual([400, ['description']]);
    const grpc = await rpcError(kh.client(OrganizationService, 'grpc').addOrganization({ name: '\u200B' }));
    expect([grpc.code, grpc.fields]).toEqual([Code.InvalidArgument, ['name']]);
    // None of them was created: the machine "blank-bot" is still free.
    expect((await mgmt().addMachineUser({ userName: 'blank-bot', name: 'Blank bot' })).userId).toBeTruthy();
  });
});
