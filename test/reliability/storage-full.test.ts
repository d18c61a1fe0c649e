// A full disk under the database: a storage refusal is a retryable 503 with
// its own reason (STORAGE_FULL), a retry-after header / trailer and a
// RetryInfo detail, not a 500 INTERNAL with a full stack logged each time;
// /readyz says 503 (not SERVING) until the storage takes writes again; the
// log says it once per interval with a count; and Keyhold recovers by itself
// when space is freed.
//
// Real disks: a small tmpfs (needs root and mount, as CI has; skipped by name
// elsewhere) under a Keyhold child process — PGlite's data directory, or a
// PostgreSQL tablespace holding the test database.
//
// PGlite has two ways to meet a full disk: a table that cannot grow (an ERROR,
// it goes on) and a WAL segment that cannot be created (a PANIC: its engine is
// gone, and any further call into it spins for ever). The second is provoked
// by moving the WAL close to a segment's end before the start: then Keyhold
// must answer 503 instead of hanging, exit with 75 (EX_TEMPFAIL) to be
// restarted, and a restart after freeing space must hold every acknowledged write.
import { spawnSync } from 'node:child_process';
import { closeSync, cpSync, mkdirSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema, RetryInfoSchema } from '../../gen/google/rpc/error_details_pb.js';
import { ManagementService } from '../../gen/keyhold/management/v1/management_pb.js';
import { openDatabase } from '../../src/store/database.js';
import { restartChildKeyhold, startChildKeyhold, type ChildKeyhold } from '../support/child-keyhold.js';
import { pgliteDirFromTemplate, postgresAvailable, tempDir, testDatabaseUrl } from '../support/databases.js';
import { restReason } from '../support/errors.js';
import { missingAfterRestart, type Op } from './crash-load.js';

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** Whether this process may mount a tmpfs (root, and a kernel/container that allows it). */
function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = join(process.env.TMPDIR ?? '/tmp', `keyhold-mount-probe-${process.pid}`);
  mkdirSync(probe, { recursive: true });
  const ok = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]).status === 0;
  if (ok) spawnSync('umount', [probe]);
  rmSync(probe, { recursive: true, force: true });
  return ok;
}
const mountable = canMount();

async function mountTmpfs(sizeMb: number, prefix: string): Promise<string> {
  const dir = await tempDir(prefix);
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700`, 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) throw new Error(`mount: ${mounted.stderr}`);
  cleanups.push(async () => {
    spawnSync('umount', ['-l', dir]);
    await rm(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Fills the file system of `dir` until `leaveBytes` are free; returns a function that frees it again. */
function fill(dir: string, leaveBytes: number): () => void {
  const file = join(dir, 'filler');
  const fd = openSync(file, 'a');
  const chunk = Buffer.alloc(1024 * 1024, 1);
  try {
    for (;;) {
      const { bavail, bsize } = statfsSync(dir);
      const room = bavail * bsize - leaveBytes;
      if (room <= 0) break;
      try {
        writeSync(fd, chunk, 0, Math.min(chunk.length, room));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
        throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
  return () => rmSync(file, { force: true });
}

interface Answer {
  at: number;
  status?: number;
  reason?: string;
  retryAfter?: string | null;
  retryInfo?: unknown;
  error?: string;
}

/** One AddOIDCApp over REST; an acknowledged one is added to `acknowledged`. */
async function addApp(kh: ChildKeyhold, projectId: string, name: string, acknowledged: Op[]): Promise<Answer> {
  const at = performance.now();
  try {
    const res = await fetch(`${kh.url}/management/v1/projects/${projectId}/apps/oidc`, {
      method: 'POST',
      headers: { authorization: `Bearer ${kh.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, redirectUris: ['https://app.example/cb'] }),
      signal: AbortSignal.timeout(20_000),
    });
    const body = (await res.json()) as any;
    if (res.status === 200) acknowledged.push({ kind: 'app', name, projectId, status: 200, id: body.appId, clientId: body.clientId });
    return {
      at,
      status: res.status,
      reason: res.status === 200 ? undefined : restReason(body),
      retryAfter: res.headers.get('retry-after'),
      retryInfo: res.status === 200 ? undefined : body.details?.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.RetryInfo'),
    };
  } catch (err) {
    return { at, error: String((err as Error).cause ?? err) };
  }
}

/** `writers` clients adding apps until `until()` says stop; every answer. */
async function writeLoad(kh: ChildKeyhold, projectId: string, label: string, acknowledged: Op[], until: () => boolean, writers = 4): Promise<Answer[]> {
  const answers: Answer[] = [];
  let n = 0;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (!until()) {
        const answer = await addApp(kh, projectId, `${label}-${++n}`, acknowledged);
        answers.push(answer);
        if (answer.error) break; // the process is gone
        if (answer.status !== 200) await new Promise((r) => setTimeout(r, 20));
      }
    }),
  );
  return answers;
}

async function getStatus(kh: ChildKeyhold, path: string): Promise<{ status: number; reason?: string; retryAfter: string | null }> {
  const res = await fetch(kh.url + path, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as any;
  return { status: res.status, reason: res.status === 200 ? undefined : restReason(body), retryAfter: res.headers.get('retry-after') };
}

async function waitFor(what: string, check: () => Promise<boolean>, ms: number): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return performance.now() - started;
}

/** The child's error lines (level ≥ 50) from output index `from` on. */
const errorLines = (kh: ChildKeyhold, from: number) => kh.output.slice(from).filter((l) => /^\{"level":(50|60)/.test(l));

/** The refusal of a write over gRPC: code, reason, retry-after trailer, RetryInfo. */
async function grpcRefusal(kh: ChildKeyhold, projectId: string) {
  const transport = createGrpcTransport({
    baseUrl: kh.url,
    interceptors: [(next) => (req) => (req.header.set('authorization', `Bearer ${kh.adminToken}`), next(req))],
  });
  try {
    await createClient(ManagementService, transport).addOIDCApp({ projectId, name: `grpc-${Date.now()}`, redirectUris: ['https://app.example/cb'] });
    return undefined;
  } catch (e) {
    const err = ConnectError.from(e);
    return {
      code: err.code,
      reason: err.findDetails(ErrorInfoSchema)[0]?.reason,
      retryAfter: err.metadata.get('retry-after'),
      retrySeconds: err.findDetails(RetryInfoSchema)[0]?.retryDelay?.seconds,
    };
  }
}

/** While the disk is full: writes are 200 or 503 STORAGE_FULL with retry-after — never a 500 — and the log stays short. */
async function expectHonestRefusals(kh: ChildKeyhold, projectId: string, acknowledged: Op[], label: string) {
  const logFrom = kh.output.length;
  const stopAt = performance.now() + 4_000;
  const answers = await writeLoad(kh, projectId, label, acknowledged, () => performance.now() > stopAt);
  const refused = answers.filter((a) => a.status === 503);
  expect(answers.filter((a) => !(a.status === 200 || (a.status === 503 && a.reason === 'STORAGE_FULL'))).slice(0, 5)).toEqual([]);
  expect(refused.length).toBeGreaterThanOrEqual(10);
  expect(refused.every((a) => a.retryAfter === '10')).toBe(true);
  expect(refused[0].retryInfo).toEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '10s' });
  expect(await grpcRefusal(kh, projectId)).toEqual({ code: Code.Unavailable, reason: 'STORAGE_FULL', retryAfter: '10', retrySeconds: 10n });

  const ready = await getStatus(kh, '/readyz');
  expect(ready).toEqual({ status: 503, reason: 'STORAGE_FULL', retryAfter: '10' });
  expect((await getStatus(kh, '/healthz')).status).toBe(200);
  const lines = errorLines(kh, logFrom);
  // One line for the first refusal of each kind (REST and gRPC AddOIDCApp); counts come at the interval's end.
  expect(lines.length).toBeLessThanOrEqual(2);
  expect(lines.join('\n')).not.toContain('Failed query');
  return { answers, refused, logFrom };
}

describe.skipIf(!mountable)('full disk under PGlite (needs root and mount: a tmpfs as the data directory)', () => {
  it('503 STORAGE_FULL with retry-after, /readyz 503, one log line per interval; recovers when space is freed; after a PANIC: 503, exit 75, restart keeps every acknowledged write', async () => {
    const disk = await mountTmpfs(100, 'keyhold-full-pglite-');
    const dataDir = join(disk, 'data');
    const template = await pgliteDirFromTemplate();
    cleanups.push(() => rm(template, { recursive: true, force: true }));
    mkdirSync(dataDir, { mode: 0o700 });
    cpSync(join(template, 'pgdata'), join(dataDir, 'pgdata'), { recursive: true });

    // Move the WAL 5 MiB before its segment's end, so that a few thousand writes need a new 16 MiB
    // segment. (Not closer: past 75 % of a segment, the checkpoint at close would create the next one.)
    const positioning = await openDatabase({ dataDir });
    const query = async (text: string) => positioning.sql.query<Record<string, string>>({ text, params: [] });
    for (;;) {
      const [{ offset }] = await query(`select (pg_walfile_name_offset(pg_current_wal_lsn())).file_offset::int as offset`);
      const left = 11 * 1024 * 1024 - Number(offset);
      if (left <= 0) break;
      await query(`select pg_logical_emit_message(true, 'keyhold-test', repeat('w', ${Math.min(left, 1024 * 1024)}))`);
    }
    await positioning.close();

    let kh = await startChildKeyhold({ dataDir });
    cleanups.push(() => kh.kill());
    const project = await kh.rest('POST', '/management/v1/projects', { name: 'full disk' });
    expect(project.status).toBe(200);
    const projectId = project.body.id as string;
    const acknowledged: Op[] = [];
    for (let i = 0; i < 10; i++) expect(await addApp(kh, projectId, `before-${i}`, acknowledged)).toMatchObject({ status: 200 });

    // 1. A table cannot grow: refusals, and the process goes on.
    const free = fill(disk, 0);
    const full = await expectHonestRefusals(kh, projectId, acknowledged, 'full');
    free();
    const readyAfterMs = await waitFor('/readyz after freeing space', async () => (await getStatus(kh, '/readyz')).status === 200, 15_000);
    expect((await addApp(kh, projectId, 'after-free', acknowledged)).status).toBe(200);
    // The count of the refusals came in one line per kind at the end of the interval (10 s).
    await waitFor('the count line', async () => errorLines(kh, full.logFrom).some((l) => /"repeated":\d+/.test(l)), 15_000);
    const lines = errorLines(kh, full.logFrom);
    // A first line stands for one refusal, a count line for as many as it says.
    const counted = lines.reduce((sum, l) => sum + Number(/"repeated":(\d+)/.exec(l)?.[1] ?? 1), 0);
    expect(lines.length).toBeLessThanOrEqual(4);
    expect(counted).toBe(full.refused.length + 1); // every REST refusal and the gRPC one, counted

    // 2. A WAL segment cannot be created: PGlite PANICs. Keyhold answers 503 (not a hang), then exits 75.
    const freeAgain = fill(disk, 10 * 1024 * 1024); // room for the tables, not for a 16 MiB segment
    let exited = false;
    void kh.exited.then(() => (exited = true));
    const panicStarted = performance.now();
    const answers = await writeLoad(kh, projectId, 'panic', acknowledged, () => exited || performance.now() - panicStarted > 60_000);
    const exit = await Promise.race([kh.exited, new Promise((r) => setTimeout(() => r('still running'), 15_000))]);
    const tally = new Map<string, number>();
    for (const a of answers) tally.set(`${a.status ?? a.error} ${a.reason ?? ''}`, (tally.get(`${a.status ?? a.error} ${a.reason ?? ''}`) ?? 0) + 1);
    expect(exit, `answers: ${JSON.stringify([...tally])}\n${kh.output.slice(-8).join('\n').slice(0, 3000)}`).toEqual({ code: 75, signal: null });
    expect(answers.filter((a) => a.status !== undefined && a.status !== 200 && !(a.status === 503 && /^STORAGE_/.test(a.reason ?? ''))).slice(0, 5)).toEqual([]);
    expect(answers.filter((a) => a.status === 503).length).toBeGreaterThanOrEqual(1);
    expect(kh.output.join('\n')).toMatch(/keyhold: the embedded database stopped \(53100: could not write to file "pg_wal\/xlogtemp/);

    // 3. A restart on the still-full disk fails to start, saying so (no hang).
    await expect(restartChildKeyhold(kh, { startTimeoutMs: 60_000 })).rejects.toThrow(/exited before listening \(\{"code":1,/);

    // 4. Space freed: the restart replays the log; every acknowledged write is there and writes work.
    freeAgain();
    kh = await restartChildKeyhold(kh);
    expect((await getStatus(kh, '/readyz')).status).toBe(200);
    expect(await missingAfterRestart(kh, acknowledged)).toEqual([]);
    expect((await addApp(kh, projectId, 'after-restart', acknowledged)).status).toBe(200);
    console.log(
      `[full disk, PGlite] ${full.refused.length} of ${full.answers.length} writes refused 503 STORAGE_FULL in 4 s, logged in ${lines.length} lines ` +
        `(counts included); /readyz 200 again ${(readyAfterMs / 1000).toFixed(1)} s after freeing space; after the PANIC ` +
        `${answers.filter((a) => a.status === 503).length} × 503, exit 75; restart on a full disk refused; after freeing space ` +
        `${acknowledged.length} acknowledged writes all present`,
    );
  }, 240_000);
});

/** PostgreSQL's data directory is the server's own: only a local server whose OS user exists can get a tablespace on our tmpfs. */
function localPostgresUser(): { uid: number; gid: number } | undefined {
  if (!testDatabaseUrl || !['127.0.0.1', 'localhost', '::1', '[::1]'].includes(new URL(testDatabaseUrl).hostname)) return undefined;
  const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  return id.status === 0 ? { uid: Number(id.stdout), gid: Number(gid.stdout) } : undefined;
}
const pgUser = mountable && postgresAvailable ? localPostgresUser() : undefined;

describe.skipIf(!pgUser)('full disk under PostgreSQL (needs root, mount, and TEST_DATABASE_URL on this host: a tablespace on a tmpfs)', () => {
  it('503 STORAGE_FULL with retry-after, /readyz 503, one log line per interval; recovers by itself when space is freed', async () => {
    const disk = await mountTmpfs(48, 'keyhold-full-pg-');
    spawnSync('chown', [`${pgUser!.uid}:${pgUser!.gid}`, disk]);
    const admin = postgres(testDatabaseUrl!, { max: 1, onnotice: () => {} });
    const name = `kh_full_${process.pid}`;
    cleanups.push(async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.unsafe(`drop tablespace if exists ${name}`).catch(() => {});
      await admin.end({ timeout: 5 });
    });
    await admin.unsafe(`create tablespace ${name} location '${disk}'`);
    await admin.unsafe(`create database ${name} tablespace ${name}`);
    const url = new URL(testDatabaseUrl!);
    url.pathname = `/${name}`;
    const dataDir = await tempDir('keyhold-full-pg-data-');
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));

    const kh = await startChildKeyhold({ dataDir, databaseUrl: url.toString() });
    cleanups.push(() => kh.kill());
    const project = await kh.rest('POST', '/management/v1/projects', { name: 'full disk' });
    expect(project.status).toBe(200);
    const projectId = project.body.id as string;
    const acknowledged: Op[] = [];
    for (let i = 0; i < 10; i++) expect(await addApp(kh, projectId, `before-${i}`, acknowledged)).toMatchObject({ status: 200 });

    // The PostgreSQL server is shared. Pages it holds dirty in memory for blocks not yet on
    // the tmpfs (CREATE DATABASE copies its catalogs through shared buffers) could not be
    // written while the disk is full, and then every checkpoint of the whole server fails
    // ("checkpoint request failed" for other databases' CREATE/DROP DATABASE). Write them first;
    // afterwards a full disk refuses only new blocks, which fail in the backend that asks.
    await admin.unsafe('checkpoint');
    const free = fill(disk, 0);
    const full = await expectHonestRefusals(kh, projectId, acknowledged, 'full');
    free();
    const readyAfterMs = await waitFor('/readyz after freeing space', async () => (await getStatus(kh, '/readyz')).status === 200, 15_000);
    expect((await addApp(kh, projectId, 'after-free', acknowledged)).status).toBe(200);
    expect(await missingAfterRestart(kh, acknowledged)).toEqual([]);
    console.log(
      `[full disk, PostgreSQL tablespace on tmpfs] ${full.refused.length} of ${full.answers.length} writes refused 503 STORAGE_FULL in 4 s, ` +
        `${errorLines(kh, full.logFrom).length} error log lines; /readyz 200 again ${(readyAfterMs / 1000).toFixed(1)} s after freeing space; ` +
        `${acknowledged.length} acknowledged writes all present`,
    );
  }, 120_000);
});

describe.skipIf(!postgresAvailable)('a read-only database (PostgreSQL: default_transaction_read_only)', () => {
  it('writes answer 503 STORAGE_UNAVAILABLE with retry-after, /readyz 503; writable again, Keyhold recovers by itself', async () => {
    const admin = postgres(testDatabaseUrl!, { max: 1, onnotice: () => {} });
    const name = `kh_ro_${process.pid}`;
    cleanups.push(async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end({ timeout: 5 });
    });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(testDatabaseUrl!);
    url.pathname = `/${name}`;
    const dataDir = await tempDir('keyhold-ro-data-');
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const kh = await startChildKeyhold({ dataDir, databaseUrl: url.toString() });
    cleanups.push(() => kh.kill());
    const project = await kh.rest('POST', '/management/v1/projects', { name: 'read-only' });
    expect(project.status).toBe(200);
    const acknowledged: Op[] = [];

    // What a failover to a standby looks like to a client: its sessions can read, not write.
    const setReadOnly = async (on: boolean) => {
      await admin.unsafe(`alter database ${name} set default_transaction_read_only = ${on ? 'on' : 'off'}`);
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`;
    };
    await setReadOnly(true);
    const logFrom = kh.output.length;
    const answers: Answer[] = [];
    // The first requests may meet the terminated connections (503 DATABASE_UNAVAILABLE); then every write is refused.
    await waitFor(
      'a write refused as read-only',
      async () => (answers.push(await addApp(kh, project.body.id, `ro-${answers.length}`, acknowledged)), answers.at(-1)!.reason === 'STORAGE_UNAVAILABLE'),
      10_000,
    );
    for (let i = 0; i < 20; i++) answers.push(await addApp(kh, project.body.id, `ro-more-${i}`, acknowledged));
    expect(answers.filter((a) => a.status !== 503 || !['STORAGE_UNAVAILABLE', 'DATABASE_UNAVAILABLE'].includes(a.reason!))).toEqual([]);
    expect(answers.slice(-20).map((a) => [a.reason, a.retryAfter])).toEqual(Array(20).fill(['STORAGE_UNAVAILABLE', '10']));
    expect(await getStatus(kh, '/readyz')).toEqual({ status: 503, reason: 'STORAGE_UNAVAILABLE', retryAfter: '10' });
    expect((await kh.rest('GET', `/management/v1/projects/${project.body.id}`)).status).toBe(200); // reads still work
    expect(errorLines(kh, logFrom).length).toBeLessThanOrEqual(3);

    await setReadOnly(false);
    const readyAfterMs = await waitFor('/readyz once writable', async () => (await getStatus(kh, '/readyz')).status === 200, 15_000);
    await waitFor('a write', async () => (await addApp(kh, project.body.id, `rw-${Date.now()}`, acknowledged)).status === 200, 5_000);
    expect(acknowledged.filter((a) => a.name.startsWith('ro-'))).toEqual([]);
    console.log(
      `[read-only PostgreSQL] ${answers.filter((a) => a.reason === 'STORAGE_UNAVAILABLE').length} writes refused 503 STORAGE_UNAVAILABLE, ` +
        `${errorLines(kh, logFrom).length} error log lines; /readyz 200 again ${(readyAfterMs / 1000).toFixed(1)} s after the database became writable`,
    );
  }, 60_000);
});
