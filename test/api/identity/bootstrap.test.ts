// Design §4 bootstrap: the first start on an empty database makes exactly one
// admin and writes its PAT (0600); restarts keep the data and make no second
// admin; two processes starting at once on one PostgreSQL make one admin.
// Real Keyholds started with startKeyhold, real PGlite dirs and PostgreSQL databases.
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { count, eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { AuthService } from '../../../gen/keyhold/auth/v1/auth_pb.js';
import { ManagementService } from '../../../gen/keyhold/management/v1/management_pb.js';
import { loadConfig } from '../../../src/server/config.js';
import { loggerOptions } from '../../../src/server/logger.js';
import { startKeyhold, type RunningKeyhold } from '../../../src/server/start.js';
import { events, memberships, users } from '../../../src/store/schema.js';
import { DataDirLocked } from '../../../src/store/errors.js';
import { adminTokenSummary } from '../../../src/server/bootstrap.js';
import { startChildKeyhold, type ChildKeyhold } from '../../support/child-keyhold.js';
import { announcePostgresSkip, createPostgresDatabase, postgresAvailable, tempDir, TEST_MASTER_KEY, type PostgresDatabase } from '../../support/databases.js';

interface Started {
  kh: RunningKeyhold;
  logLines: string[];
}

async function start(env: Record<string, string>): Promise<Started> {
  const config = loadConfig({ KEYHOLD_PORT: '0', KEYHOLD_LOG_LEVEL: 'info', ...(env.DATABASE_URL ? { KEYHOLD_MASTERKEY: TEST_MASTER_KEY } : {}), ...env });
  const logLines: string[] = [];
  const log = pino(loggerOptions(config), { write: (line: string) => void logLines.push(line) });
  return { kh: await startKeyhold(config, log), logLines };
}

const grpc = (kh: RunningKeyhold, token: string) => {
  const transport = createGrpcTransport({
    baseUrl: `http://localhost:${kh.port}`,
    interceptors: [(next) => (req) => (req.header.set('authorization', `Bearer ${token}`), next(req))],
  });
  return { auth: createClient(AuthService, transport), mgmt: createClient(ManagementService, transport) };
};

/** A REST GET on a connection of its own (Connection: close), so stopping the server never waits on an idle keep-alive. */
function restGet(kh: RunningKeyhold, pathName: string, token: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: kh.port, path: pathName, agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      })
      .on('error', reject);
  });
}

/**
 * What a user would count in the database: admin grants, admin users, bootstrap
 * events. Two IAM_OWNERs: the machine admin (PAT) and the human admin
 * (keyhold-admin, password file; test/api/identity/human-admin.test.ts).
 */
async function adminCounts(kh: RunningKeyhold) {
  const db = kh.database.db;
  const [grants] = await db.select({ n: count() }).from(events).where(eq(events.type, 'instance.member.added'));
  const [instances] = await db.select({ n: count() }).from(events).where(eq(events.type, 'instance.added'));
  const instanceMembers = await db.select().from(memberships).where(eq(memberships.scopeType, 'instance'));
  const [admins] = await db.select({ n: count() }).from(users).where(eq(users.username, 'admin'));
  const [humans] = await db.select({ n: count() }).from(users).where(eq(users.username, 'keyhold-admin'));
  return { grantEvents: grants.n, instanceEvents: instances.n, instanceMembers, adminUsers: admins.n, humanAdmins: humans.n };
}

function readPat(file: string): { token: string; mode: number } {
  return { token: fs.readFileSync(file, 'utf8').trim(), mode: fs.statSync(file).mode & 0o777 };
}

/** One full first start: one admin, a working 0600 PAT, the token never in the logs. */
async function expectFreshBootstrap({ kh, logLines }: Started, patFile: string) {
  expect(kh.bootstrap.created).toBe(true);
  if (!kh.bootstrap.created) return '';
  const { token, mode } = readPat(patFile);
  expect(mode).toBe(0o600);
  expect(token).toMatch(/^kh_[A-Za-z0-9_-]{43}$/);

  const me = await grpc(kh, token).auth.getMyUser({});
  expect(me.user?.userId).toBe(kh.bootstrap.adminUserId);
  expect(me.user?.username).toBe('admin');
  expect(me.organizationId).toBe(kh.bootstrap.orgId);
  expect(me.roles).toEqual(['IAM_OWNER']);
  const rest = await restGet(kh, '/auth/v1/users/me', token);
  expect(rest.status).toBe(200);
  expect(rest.body.user.userId).toBe(kh.bootstrap.adminUserId);

  const counts = await adminCounts(kh);
  expect(counts).toMatchObject({ grantEvents: 2, instanceEvents: 1, adminUsers: 1, humanAdmins: 1 });
  expect(counts.instanceMembers).toHaveLength(2);
  expect(counts.instanceMembers).toContainEqual(expect.objectContaining({ userId: kh.bootstrap.adminUserId, roles: ['IAM_OWNER'] }));

  // The path is logged, the token is not.
  const logged = logLines.join('\n');
  expect(logged).toContain(patFile);
  expect(logged).not.toContain(token);
  return token;
}

/** After a restart: no second admin, the same token still works, earlier data still there. */
async function expectRestartKeepsEverything(kh: RunningKeyhold, token: string, projectId: string) {
  expect(kh.bootstrap.created).toBe(false);
  const { auth, mgmt } = grpc(kh, token);
  expect((await auth.getMyUser({})).roles).toEqual(['IAM_OWNER']);
  expect((await mgmt.getProjectByID({ id: projectId })).project?.name).toBe('Survives a restart');
  const rest = await restGet(kh, `/management/v1/projects/${projectId}`, token);
  expect(rest.status).toBe(200);
  const counts = await adminCounts(kh);
  expect(counts).toMatchObject({ grantEvents: 2, instanceEvents: 1, adminUsers: 1, humanAdmins: 1 });
  expect(counts.instanceMembers).toHaveLength(2);
}

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

describe('PGlite', () => {
  it('an empty data dir gets one admin; a restart on the same dir keeps data and makes no second admin', async () => {
    const dataDir = await tempDir('keyhold-boot-');
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const patFile = path.join(dataDir, 'admin.pat'); // the default place
    const env = { KEYHOLD_DATA_DIR: dataDir };

    const first = await start(env);
    cleanups.push(() => first.kh.stop());
    const token = await expectFreshBootstrap(first, patFile);
    const { id: projectId } = await grpc(first.kh, token).mgmt.addProject({ name: 'Survives a restart' });

    // A second process on the same directory is refused with a clear message.
    await expect(start(env)).rejects.toThrow(DataDirLocked);
    await expect(start(env)).rejects.toThrow(/in use by process \d+/);
    // Stopping ends an idle REST keep-alive connection at once, not after the
    // shutdown grace period (3 s) when every socket is destroyed.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const idle = await new Promise<net.Socket>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: first.kh.port, path: '/healthz', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(req.socket!));
      });
      req.on('error', reject);
    });
    expect(idle.destroyed).toBe(false);
    const stopping = Date.now();
    const idleClosedAfter = new Promise<number>((resolve) => idle.once('close', () => resolve(Date.now() - stopping)));
    await first.kh.stop();
    expect(await idleClosedAfter).toBeLessThan(2_000);
    agent.destroy();

    const second = await start(env);
    cleanups.push(() => second.kh.stop());
    await expectRestartKeepsEverything(second.kh, token, projectId);
    expect(readPat(patFile).token).toBe(token); // the file was not rewritten
    // What npm start's line says about the token: made earlier, not by this start.
    expect(adminTokenSummary(first.kh.bootstrap, patFile).text).toBe(`instance bootstrapped, admin token written to ${patFile}`);
    expect(adminTokenSummary(second.kh.bootstrap, patFile).text).toBe(
      `instance was already bootstrapped; no admin token written (${patFile} is from an earlier start)`,
    );
    await second.kh.stop();
  }, 120_000); // two PGlite starts: slow on a loaded machine
});

announcePostgresSkip('identity bootstrap: PostgreSQL');
describe.skipIf(!postgresAvailable)('PostgreSQL', () => {
  async function database(): Promise<PostgresDatabase> {
    const pg = await createPostgresDatabase();
    cleanups.push(() => pg.drop());
    return pg;
  }
  async function dir(): Promise<string> {
    const d = await tempDir('keyhold-boot-pg-');
    cleanups.push(() => rm(d, { recursive: true, force: true }));
    return d;
  }

  it('an empty database gets one admin; a restart keeps data and makes no second admin', async () => {
    const pg = await database();
    const dataDir = await dir();
    const patFile = path.join(dataDir, 'secrets', 'admin.pat'); // KEYHOLD_ADMIN_PAT_FILE, in a dir that does not exist yet
    const first = await start({ DATABASE_URL: pg.url, KEYHOLD_DATA_DIR: dataDir, KEYHOLD_ADMIN_PAT_FILE: patFile });
    cleanups.push(() => first.kh.stop());
    expect(first.kh.database.kind).toBe('postgres');
    const token = await expectFreshBootstrap(first, patFile);
    const { id: projectId } = await grpc(first.kh, token).mgmt.addProject({ name: 'Survives a restart' });
    await first.kh.stop();

    // Same database, same data dir.
    const second = await start({ DATABASE_URL: pg.url, KEYHOLD_DATA_DIR: dataDir, KEYHOLD_ADMIN_PAT_FILE: patFile });
    cleanups.push(() => second.kh.stop());
    await expectRestartKeepsEverything(second.kh, token, projectId);
    expect(readPat(patFile).token).toBe(token);
    await second.kh.stop();

    // Same database, a new data dir (another host): still no admin, and no PAT file written there.
    const otherDir = await dir();
    const third = await start({ DATABASE_URL: pg.url, KEYHOLD_DATA_DIR: otherDir });
    cleanups.push(() => third.kh.stop());
    await expectRestartKeepsEverything(third.kh, token, projectId);
    expect(fs.existsSync(path.join(otherDir, 'admin.pat'))).toBe(false);
    await third.kh.stop();
  });

  it('npm start on an already bootstrapped database says so, and names no token file it did not write', async () => {
    const pg = await database();
    const [dirA, dirB] = [await dir(), await dir()];
    /** The JSON of the child's "Keyhold listening" line. */
    const startLine = (child: ChildKeyhold) =>
      JSON.parse(child.output.find((l) => l.includes('"Keyhold listening on'))!) as { msg: string; adminPatFile?: string; bootstrapped: boolean };
    const children: ChildKeyhold[] = [];
    cleanups.push(() => Promise.all(children.map((c) => c.kill())));

    children.push(await startChildKeyhold({ dataDir: dirA, databaseUrl: pg.url }));
    const first = startLine(children[0]);
    expect(first).toMatchObject({ bootstrapped: true, adminPatFile: path.join(dirA, 'admin.pat') });
    expect(first.msg).toMatch(/; instance bootstrapped, admin token written to .*admin\.pat$/);

    // A second process elsewhere on the same database: nothing written, nothing claimed.
    children.push(await startChildKeyhold({ dataDir: dirB, databaseUrl: pg.url }));
    const second = startLine(children[1]);
    expect(fs.existsSync(path.join(dirB, 'admin.pat'))).toBe(false);
    expect(second.bootstrapped).toBe(false);
    expect(second.adminPatFile).toBeUndefined();
    expect(second.msg).toContain('instance was already bootstrapped; no admin token written');
    expect(children[1].output.join('\n')).not.toContain(path.join(dirB, 'admin.pat'));

    // A restart where the first wrote its file: the file is named as an earlier start's.
    await children[0].kill('SIGTERM');
    children.push(await startChildKeyhold({ dataDir: dirA, databaseUrl: pg.url }));
    const third = startLine(children[2]);
    expect(third).toMatchObject({ bootstrapped: false, adminPatFile: path.join(dirA, 'admin.pat') });
    expect(third.msg).toContain(`instance was already bootstrapped; no admin token written (${path.join(dirA, 'admin.pat')} is from an earlier start)`);
  }, 120_000);

  it('two processes starting at once on one empty database make one admin; exactly one writes its PAT file', async () => {
    // A few rounds, each on a fresh database, so the start race is really run.
    for (let round = 0; round < 3; round++) {
      const pg = await database();
      const [dirA, dirB] = await Promise.all([dir(), dir()]);
      const started = await Promise.all([
        start({ DATABASE_URL: pg.url, KEYHOLD_DATA_DIR: dirA }),
        start({ DATABASE_URL: pg.url, KEYHOLD_DATA_DIR: dirB }),
      ]);
      for (const s of started) cleanups.push(() => s.kh.stop());
      const patFiles = [path.join(dirA, 'admin.pat'), path.join(dirB, 'admin.pat')];

      const winners = started.filter((s) => s.kh.bootstrap.created);
      expect(winners).toHaveLength(1);
      expect(patFiles.filter((f) => fs.existsSync(f))).toHaveLength(1);
      const winnerIndex = started.findIndex((s) => s.kh.bootstrap.created);
      const { token, mode } = readPat(patFiles[winnerIndex]);
      expect(mode).toBe(0o600);

      for (const s of started) {
        // Both processes see the same single admin and accept its token.
        const counts = await adminCounts(s.kh);
        expect(counts).toMatchObject({ grantEvents: 2, instanceEvents: 1, adminUsers: 1, humanAdmins: 1 });
        expect(counts.instanceMembers).toHaveLength(2);
        const me = await grpc(s.kh, token).auth.getMyUser({});
        expect(me.roles).toEqual(['IAM_OWNER']);
        expect(me.user?.userId).toBe(winners[0].kh.bootstrap.created && winners[0].kh.bootstrap.adminUserId);
      }
      await Promise.all(started.map((s) => s.kh.stop()));
    }
  });
});
