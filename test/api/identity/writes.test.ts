// Design §5 on the wire: the `details` of writes, and 50 concurrent writes to one
// aggregate leaving a gap-free sequence with no lost event — on PGlite and on
// PostgreSQL (skipped with a message when TEST_DATABASE_URL is not set).
import { rm } from 'node:fs/promises';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { loadConfig } from '../../../src/server/config.js';
import { startKeyhold } from '../../../src/server/start.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { memberships } from '../../../src/store/schema.js';
import { announcePostgresSkip, postgresAvailable, tempDir, TEST_MASTER_KEY } from '../../support/databases.js';
import { startTestKeyhold, type TestKeyhold } from '../../support/keyhold.js';
import { addOrg, inOrg, ORG_HEADER } from '../../support/identity.js';

const WRITERS = 50;

function writesSuite(backend: 'pglite' | 'postgres') {
  let kh: TestKeyhold;
  let org: string;
  const mgmt = () => kh.client(ManagementService, 'grpc', kh.adminToken, inOrg(org));

  beforeAll(async () => {
    kh = await startTestKeyhold({ postgres: backend === 'postgres' });
    org = await addOrg(kh, `Writes on ${backend}`);
  });
  afterAll(async () => kh?.close());

  it('runs on the intended database', () => {
    expect(kh.database.kind).toBe(backend);
  });

  describe('details', () => {
    it('AddProject (gRPC): sequence 1, creationDate == changeDate, resourceOwner = the org', async () => {
      const before = Date.now();
      const { id, details } = await mgmt().addProject({ name: 'Details' });
      expect(details?.sequence).toBe(1n);
      expect(details?.creationDate).toBeDefined();
      expect(details?.changeDate).toEqual(details?.creationDate);
      expect(details?.resourceOwner).toBe(org);
      const created = timestampDate(details!.creationDate!).getTime();
      expect(created).toBeGreaterThanOrEqual(before - 5_000); // the commit time, not some fixed value
      expect(created).toBeLessThanOrEqual(Date.now() + 5_000);
      // The dates are the stored event's created_at.
      const [added] = await createEventStore(kh.database).load('project', id);
      expect(added.createdAt.getTime()).toBe(created);
    });

    it('AddProject (REST): sequence "1" as a uint64 string, RFC 3339 dates', async () => {
      const res = await kh.rest('POST', '/management/v1/projects', { name: 'Details REST' }, inOrg(org));
      expect(res.status).toBe(200);
      expect(res.body.details).toMatchObject({ sequence: '1', resourceOwner: org });
      expect(res.body.details.creationDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      expect(res.body.details.changeDate).toBe(res.body.details.creationDate);
    });

    it('AddProjectMember on a new project returns sequence 2; the next one 3; the project reads back at 3', async () => {
      const project = await mgmt().addProject({ name: 'Members' });
      const [u1, u2] = await Promise.all([
        mgmt().addMachineUser({ userName: 'details-member-1', name: 'M1' }),
        mgmt().addMachineUser({ userName: 'details-member-2', name: 'M2' }),
      ]);
      const first = await mgmt().addProjectMember({ projectId: project.id, userId: u1.userId, roles: ['PROJECT_OWNER'] });
      expect(first.details?.sequence).toBe(2n);
      expect(first.details?.resourceOwner).toBe(org);
      expect(timestampDate(first.details!.changeDate!).getTime()).toBeGreaterThanOrEqual(timestampDate(project.details!.creationDate!).getTime());
      const second = await kh.rest('POST', `/management/v1/projects/${project.id}/members`, { userId: u2.userId, roles: ['PROJECT_OWNER'] }, inOrg(org));
      expect(second.status).toBe(200);
      expect(second.body.details.sequence).toBe('3');

      const read = await mgmt().getProjectByID({ id: project.id });
      expect(read.project?.details?.sequence).toBe(3n);
      expect(read.project?.details?.creationDate).toEqual(project.details?.creationDate);
      expect(read.project?.details?.changeDate).toEqual(timestampFromRest(second.body.details.changeDate));
      expect(read.project?.details?.resourceOwner).toBe(org);
    });
  });

  describe(`${WRITERS} concurrent AddProjectMember calls on one project`, () => {
    it('all succeed, and the project has events 1..51 with every member, once', async () => {
      const project = await mgmt().addProject({ name: 'Crowded' });
      const created = await Promise.all(
        Array.from({ length: WRITERS }, (_, i) => mgmt().addMachineUser({ userName: `crowd-${i}`, name: `Crowd ${i}` })),
      );
      const userIds = created.map((u) => u.userId);

      // Half over gRPC, half over REST, all at once.
      const results = await Promise.allSettled(
        userIds.map(async (userId, i) => {
          if (i % 2 === 0) {
            const res = await mgmt().addProjectMember({ projectId: project.id, userId, roles: ['PROJECT_OWNER'] });
            return Number(res.details!.sequence);
          }
          const res = await kh.rest('POST', `/management/v1/projects/${project.id}/members`, { userId, roles: ['PROJECT_OWNER'] }, inOrg(org));
          if (res.status !== 200) throw new Error(`REST ${res.status}: ${JSON.stringify(res.body)}`);
          return Number(res.body.details.sequence);
        }),
      );
      const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => String(r.reason));
      expect(failures).toEqual([]);

      // Every call got its own sequence: 2..51.
      const sequences = results.map((r) => (r as PromiseFulfilledResult<number>).value).sort((a, b) => a - b);
      expect(sequences).toEqual(Array.from({ length: WRITERS }, (_, i) => i + 2));

      // The event log: gap-free 1..51, project.added then one member event per user.
      const stored = await createEventStore(kh.database).load('project', project.id);
      expect(stored.map((e) => e.sequence)).toEqual(Array.from({ length: WRITERS + 1 }, (_, i) => i + 1));
      expect(stored[0].type).toBe('project.added');
      const members = stored.slice(1);
      expect(members.every((e) => e.type === 'project.member.added')).toBe(true);
      expect(members.map((e) => (e.payload as { userId: string }).userId).sort()).toEqual([...userIds].sort());

      // The read models agree: the project is at 51 and holds all 50 memberships.
      expect((await mgmt().getProjectByID({ id: project.id })).project?.details?.sequence).toBe(BigInt(WRITERS + 1));
      const rows = await kh.database.db
        .select()
        .from(memberships)
        .where(and(eq(memberships.scopeType, 'project'), eq(memberships.scopeId, project.id)));
      expect(rows.map((r) => r.userId).sort()).toEqual([...userIds].sort());
    }, 60_000);

    // PGlite has one process by design; PostgreSQL may be shared by several. Across
    // processes the only guard is the unique (aggregate, sequence) key: a writer
    // that keeps losing gets 409 ABORTED after its bounded retries (design §5).
    // Whatever the split, no event is lost, none is invented, and there is no gap.
    if (backend === 'postgres') it('across two Keyhold processes sharing the database: every call 200 or 409 ABORTED, and the log matches the answers', async () => {
      const otherDir = await tempDir('keyhold-second-');
      const second = await startKeyhold(
        loadConfig({ KEYHOLD_PORT: '0', KEYHOLD_DATA_DIR: otherDir, DATABASE_URL: kh.config.databaseUrl!, KEYHOLD_MASTERKEY: TEST_MASTER_KEY, KEYHOLD_LOG_LEVEL: 'silent' }),
      );
      try {
        expect(second.bootstrap.created).toBe(false); // the instance exists already
        const viaSecond = createClient(
          ManagementService,
          createGrpcTransport({
            baseUrl: `http://localhost:${second.port}`,
            interceptors: [(next) => (req) => (req.header.set('authorization', `Bearer ${kh.adminToken}`), req.header.set(ORG_HEADER, org), next(req))],
          }),
        );
        const project = await mgmt().addProject({ name: 'Crowded across processes' });
        const created = await Promise.all(
          Array.from({ length: WRITERS }, (_, i) => mgmt().addMachineUser({ userName: `spread-${i}`, name: `Spread ${i}` })),
        );
        const results = await Promise.allSettled(
          created.map(({ userId }, i) =>
            (i % 2 === 0 ? mgmt() : viaSecond).addProjectMember({ projectId: project.id, userId, roles: ['PROJECT_OWNER'] }),
          ),
        );
        const refusals = results.flatMap((r) => (r.status === 'rejected' ? [ConnectError.from(r.reason)] : []));
        expect(refusals.filter((e) => e.code !== Code.Aborted).map(String)).toEqual([]);
        const accepted = created.filter((_, i) => results[i].status === 'fulfilled').map((u) => u.userId);
        expect(accepted.length).toBeGreaterThan(WRITERS / 2);
        if (refusals.length) console.info(`[cross-process] ${refusals.length} of ${WRITERS} writes ended in 409 ABORTED`);

        const stored = await createEventStore(kh.database).load('project', project.id);
        expect(stored.map((e) => e.sequence)).toEqual(Array.from({ length: accepted.length + 1 }, (_, i) => i + 1));
        expect(stored.slice(1).map((e) => (e.payload as { userId: string }).userId).sort()).toEqual(accepted.sort());
        const sequences = results.flatMap((r) => (r.status === 'fulfilled' ? [Number(r.value.details!.sequence)] : []));
        expect(sequences.sort((a, b) => a - b)).toEqual(Array.from({ length: accepted.length }, (_, i) => i + 2));
      } finally {
        await second.stop();
        await rm(otherDir, { recursive: true, force: true });
      }
    }, 60_000);
  });
}

function timestampFromRest(value: string) {
  const ms = Date.parse(value);
  const nanos = Number((value.match(/\.(\d+)Z$/)?.[1] ?? '').padEnd(9, '0'));
  return expect.objectContaining({ seconds: BigInt(Math.floor(ms / 1000)), nanos });
}

describe('PGlite', () => writesSuite('pglite'));

announcePostgresSkip('identity writes: PostgreSQL');
describe.skipIf(!postgresAvailable)('PostgreSQL', () => writesSuite('postgres'));
