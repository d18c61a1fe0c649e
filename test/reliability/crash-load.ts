// The crash scenario shared by crash-pglite.test.ts and crash-postgres.test.ts:
// write load (AddOIDCApp with distinct names, AddProject) against a Keyhold
// child, SIGKILL it with requests in flight, and afterwards check that every
// acknowledged write is there and that events and read models agree.
import { sql } from 'drizzle-orm';
import type { Database } from '../../src/store/database.js';
import { expect } from 'vitest';
import { restartChildKeyhold, type ChildKeyhold } from '../support/child-keyhold.js';

export interface Op {
  kind: 'app' | 'project';
  name: string;
  /** For apps: the project it was added to. */
  projectId?: string;
  /** 200: the write was acknowledged. */
  status?: number;
  /** Network failure (connection reset by the kill) instead of a response. */
  error?: string;
  id?: string;
  clientId?: string;
  body?: unknown;
}

export interface KillRound {
  ops: Op[];
  /** Requests sent and not answered when SIGKILL was sent. */
  inFlightAtKill: number;
  /** 200 answers received before the kill was sent. */
  acknowledgedBeforeKill: number;
  /** 200 answers in total (a few arrive after the signal: sent before the process died). */
  acknowledged: number;
  exit: { code: number | null; signal: NodeJS.Signals | null };
}

let counter = 0;
const uniqueName = (kind: string) => `${kind}-${process.pid}-${Date.now().toString(36)}-${++counter}`;

/**
 * `workers` concurrent loops send writes (3 AddOIDCApp : 1 AddProject) until
 * `killAfter` of them were acknowledged, then the child gets SIGKILL at once,
 * while the others are still waiting for their answers.
 */
export async function loadThenKill(child: ChildKeyhold, projectIds: string[], opts: { workers: number; killAfter: number }): Promise<KillRound> {
  const ops: Op[] = [];
  let acknowledged = 0;
  let killed: Promise<KillRound['exit']> | undefined;
  let inFlightAtKill = 0;
  let acknowledgedBeforeKill = 0;
  let inFlight = 0;

  const send = async (op: Op) => {
    ops.push(op);
    inFlight++;
    try {
      const res =
        op.kind === 'app'
          ? await child.rest('POST', `/management/v1/projects/${op.projectId}/apps/oidc`, { name: op.name, redirectUris: ['https://app.example/cb'] })
          : await child.rest('POST', '/management/v1/projects', { name: op.name });
      op.status = res.status;
      op.body = res.body;
      if (res.status === 200) {
        op.id = op.kind === 'app' ? res.body.appId : res.body.id;
        op.clientId = res.body.clientId;
        acknowledged++;
      }
    } catch (e) {
      op.error = String((e as Error).cause ?? e);
    } finally {
      inFlight--;
    }
    if (!killed && acknowledged >= opts.killAfter) {
      // The kill happens here, synchronously after this answer: the other workers' requests are in flight.
      inFlightAtKill = inFlight;
      acknowledgedBeforeKill = acknowledged;
      killed = child.kill('SIGKILL');
    }
  };

  const worker = async (w: number) => {
    for (let i = 0; !killed; i++) {
      const kind = (i + w) % 4 === 3 ? 'project' : 'app';
      await send({ kind, name: uniqueName(kind), projectId: kind === 'app' ? projectIds[(i + w) % projectIds.length] : undefined });
    }
  };
  await Promise.all(Array.from({ length: opts.workers }, (_, w) => worker(w)));
  const exit = await killed!;
  return { ops, inFlightAtKill, acknowledgedBeforeKill, acknowledged, exit };
}

export interface CrashRun {
  /** The child running after the last restart. */
  child: ChildKeyhold;
  rounds: KillRound[];
  ops: Op[];
  acknowledged: Op[];
  /** Acknowledged writes read back (all of them, or the test fails). */
  found: number;
}

/**
 * `rounds` times: load, SIGKILL with requests in flight, restart on the same
 * data dir / database. Then every acknowledged write is read back through the
 * restarted child's API. `checks` run around each kill (e.g. the PGlite lock).
 */
export async function crashRounds(
  first: ChildKeyhold,
  rounds: number,
  checks: { afterKill?: (killedPid: number) => void; afterRestart?: (child: ChildKeyhold, killedPid: number) => void } = {},
): Promise<CrashRun> {
  let child = first;
  const projectIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await child.rest('POST', '/management/v1/projects', { name: uniqueName('crash-base') });
    expect(res.status).toBe(200);
    projectIds.push(res.body.id);
  }
  const done: KillRound[] = [];
  for (let round = 0; round < rounds; round++) {
    const killed = child.pid;
    // "A few hundred acknowledged writes", at a point that differs from run to run.
    const r = await loadThenKill(child, projectIds, { workers: 32, killAfter: 200 + Math.floor(Math.random() * 100) });
    done.push(r);
    expect(r.exit.signal).toBe('SIGKILL');
    expect(r.inFlightAtKill).toBeGreaterThan(0);
    // Every answer is a 200; the requests cut off by the kill fail on the connection.
    const unexpected = r.ops.filter((op) => op.status !== undefined && op.status !== 200);
    expect(unexpected.map((op) => `${op.status} ${JSON.stringify(op.body).slice(0, 200)}`)).toEqual([]);
    checks.afterKill?.(killed);
    child = await restartChildKeyhold(child);
    expect(child.pid).not.toBe(killed);
    checks.afterRestart?.(child, killed);
  }
  const ops = done.flatMap((r) => r.ops);
  const acknowledged = ops.filter((op) => op.status === 200);
  const missing = await missingAfterRestart(child, acknowledged);
  expect(missing).toEqual([]);
  return { child, rounds: done, ops, acknowledged, found: acknowledged.length - missing.length };
}

export function describeRun(engine: string, run: CrashRun, committedUnanswered: number): string {
  return (
    `[crash] ${engine}: ${run.rounds.length} SIGKILLs under load (32 concurrent clients); ` +
    `requests in flight at each kill: ${run.rounds.map((r) => r.inFlightAtKill).join(', ')}; ` +
    `writes acknowledged ${run.acknowledged.length} (${run.rounds.map((r) => r.acknowledged).join(' + ')}), found after restart ${run.found}; ` +
    `in flight but committed (answer lost) ${committedUnanswered}; events and read models agree, no sequence gaps`
  );
}

/** Rows of a raw SQL query on either driver. */
export async function rows<T = Record<string, unknown>>(database: Pick<Database, 'db'>, text: string): Promise<T[]> {
  const result = (await database.db.execute(sql.raw(text))) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

interface EventRow {
  aggregate_type: string;
  aggregate_id: string;
  sequence: number;
  type: string;
  payload: any;
}

/**
 * Every disagreement between the events table and the apps/projects read
 * models, and every per-aggregate sequence gap; [] when the store is whole.
 */
export async function auditStore(database: Pick<Database, 'db'>): Promise<string[]> {
  const problems: string[] = [];
  const gaps = await rows<{ aggregate_type: string; aggregate_id: string; n: number; lo: number; hi: number }>(
    database,
    `select aggregate_type, aggregate_id, count(*)::int as n, min(sequence)::int as lo, max(sequence)::int as hi
       from events group by aggregate_type, aggregate_id
       having min(sequence) <> 1 or max(sequence) <> count(*)`,
  );
  for (const g of gaps) problems.push(`sequence gap in ${g.aggregate_type}/${g.aggregate_id}: ${g.n} events, sequences ${g.lo}..${g.hi}`);

  const events = await rows<EventRow>(
    database,
    `select aggregate_type, aggregate_id, sequence, type, payload from events
      where aggregate_type in ('app', 'project') order by aggregate_type, aggregate_id, sequence`,
  );
  const byAggregate = new Map<string, EventRow[]>();
  for (const e of events) {
    const key = `${e.aggregate_type}/${e.aggregate_id}`;
    byAggregate.set(key, [...(byAggregate.get(key) ?? []), e]);
  }
  const payload = (e: EventRow) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload);

  const apps = new Map(
    (await rows<{ id: string; name: string; client_id: string; project_id: string; sequence: number }>(database, 'select id, name, client_id, project_id, sequence from apps')).map((r) => [r.id, r]),
  );
  const projects = new Map((await rows<{ id: string; name: string; sequence: number }>(database, 'select id, name, sequence from projects')).map((r) => [r.id, r]));

  for (const [key, list] of byAggregate) {
    const [type, id] = key.split('/');
    const types = list.map((e) => e.type).join(',');
    if (type === 'app') {
      const row = apps.get(id);
      // An app is written whole by one AddOIDCApp; the console app is then allowed Keyhold's API at start.
      if (types !== 'app.added,app.oidc.config.added' && types !== 'app.added,app.oidc.config.added,app.api.access.changed') problems.push(`app ${id} has events [${types}]`);
      if (!row) {
        problems.push(`app ${id} has events but no apps row`);
        continue;
      }
      const added = payload(list[0]);
      const config = list[1] ? payload(list[1]) : {};
      if (row.sequence !== list.length) problems.push(`app ${id}: row sequence ${row.sequence}, ${list.length} events`);
      if (row.name !== added.name || row.project_id !== added.projectId) problems.push(`app ${id}: row (${row.name}, ${row.project_id}) ≠ event (${added.name}, ${added.projectId})`);
      if (row.client_id !== config.clientId) problems.push(`app ${id}: row client id ≠ event client id`);
    } else {
      const row = projects.get(id);
      if (!types.startsWith('project.added')) problems.push(`project ${id} has events [${types}]`);
      if (!row) {
        problems.push(`project ${id} has events but no projects row`);
        continue;
      }
      if (row.sequence !== list.length) problems.push(`project ${id}: row sequence ${row.sequence}, ${list.length} events`);
      if (row.name !== payload(list[0]).name) problems.push(`project ${id}: row name ≠ event name`);
    }
  }
  for (const id of apps.keys()) if (!byAggregate.has(`app/${id}`)) problems.push(`apps row ${id} has no events`);
  for (const id of projects.keys()) if (!byAggregate.has(`project/${id}`)) problems.push(`projects row ${id} has no events`);
  return problems;
}

/**
 * Every acknowledged op read back through the API of the restarted child:
 * returns the ops that are missing or differ (expected: none).
 */
export async function missingAfterRestart(child: ChildKeyhold, acknowledged: Op[]): Promise<string[]> {
  const missing: string[] = [];
  const queue = [...acknowledged];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let op = queue.shift(); op; op = queue.shift()) {
        if (op.kind === 'app') {
          const res = await child.rest('GET', `/management/v1/projects/${op.projectId}/apps/${op.id}`);
          if (res.status !== 200 || res.body.app?.name !== op.name || res.body.app?.oidcConfig?.clientId !== op.clientId) {
            missing.push(`app ${op.id} (${op.name}): ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
          }
        } else {
          const res = await child.rest('GET', `/management/v1/projects/${op.id}`);
          if (res.status !== 200 || res.body.project?.name !== op.name) missing.push(`project ${op.id} (${op.name}): ${res.status}`);
        }
      }
    }),
  );
  return missing;
}

/**
 * Proof that auditStore can fail: inside a transaction that is rolled back,
 * half-write one app (drop its read-model row) and tear a sequence gap into a
 * project, and return what the audit reports there.
 */
export async function auditOfDamagedCopy(database: Pick<Database, 'db'>, appId: string, projectId: string): Promise<string[]> {
  const rollback = new Error('rollback');
  let problems: string[] = [];
  await database.db
    .transaction(async (tx) => {
      await tx.execute(sql`delete from apps where id = ${appId}`);
      await tx.execute(sql`update events set sequence = sequence + 1 where aggregate_type = 'project' and aggregate_id = ${projectId}`);
      problems = await auditStore({ db: tx });
      throw rollback;
    })
    .catch((e) => {
      if (e !== rollback) throw e;
    });
  return problems;
}

/** Unacknowledged ops (in flight at the kill) whose object exists anyway: committed, answer lost. */
export async function committedButUnanswered(database: Pick<Database, 'db'>, ops: Op[]): Promise<number> {
  const names = new Set([
    ...(await rows<{ name: string }>(database, 'select name from apps')).map((r) => r.name),
    ...(await rows<{ name: string }>(database, 'select name from projects')).map((r) => r.name),
  ]);
  return ops.filter((op) => op.status !== 200 && names.has(op.name)).length;
}
