// The floors: what the same machine does without Keyhold's server around the work.
// A child process of bench/run.ts, one job per start (argv[2] is its JSON):
//
//   verify  raw verifyRegistration (src/domain/webauthn) in this one process, on
//           the very credentials the U2F scenarios sent, with their challenges.
//   insert  raw append transactions through the store's event store
//           (events insert + projection statements, one transaction per
//           operation) on the database Keyhold used, with the rows Keyhold
//           writes per operation: AddOIDCApp's two app events (+ the apps row),
//           VerifyU2FRegistration's u2f.verified event (+ the u2f_tokens update).
//           Payloads are copied from the events Keyhold itself stored.
//   argon2  @node-rs/argon2 verify of one password against its argon2id hash
//           made with Keyhold's parameters (ARGON2_OPTIONS), in this one
//           process: the work a password login must do.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { and, desc, eq } from 'drizzle-orm';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import { newId } from '../src/domain/ids.js';
import { ARGON2_OPTIONS, normalizePassword } from '../src/domain/identity/passwords.js';
import { verifyRegistration } from '../src/domain/webauthn/index.js';
import { openDatabase, type Database } from '../src/store/database.js';
import { createEventStore, type EventStore, type NewEvent } from '../src/store/event-store.js';
import { events } from '../src/store/schema.js';
import type { FloorResult, PendingCredential } from './lib/protocol.js';
import { cpuDelta, cpuSecondsByName, machineBusySeconds } from './lib/proc.js';
import { Samples, summarize } from './lib/stats.js';

export type FloorJob =
  | { mode: 'argon2'; concurrencies: number[]; warmupMs: number; durationMs: number }
  | { mode: 'verify'; file: string; origins: string[]; concurrencies: number[]; warmupMs: number; durationMs: number }
  | {
      mode: 'insert';
      databaseUrl?: string;
      dataDir: string;
      concurrencies: number[];
      warmupMs: number;
      durationMs: number;
    };

/** Closed loop like the worker's: `concurrency` callers for warm-up + duration; `next` returns false when out of work. */
async function closedLoop(
  floor: FloorResult['floor'],
  concurrency: number,
  warmupMs: number,
  durationMs: number,
  op: () => Promise<boolean>,
): Promise<FloorResult> {
  const latencies = new Samples();
  let errors = 0;
  const errorSamples: string[] = [];
  let exhausted = false;
  let ops = 0;
  const t0 = performance.now();
  const windowStartsAt = t0 + warmupMs;
  const windowEndsAt = windowStartsAt + durationMs;
  let windowStart: number | undefined = warmupMs <= 0 ? t0 : undefined;
  let cpu0 = warmupMs <= 0 ? process.cpuUsage() : undefined;
  let machine0 = machineBusySeconds();
  let db0 = cpuSecondsByName('postgres');
  let lastEnd = t0;
  const open = (now: number) => {
    windowStart = now;
    cpu0 = process.cpuUsage();
    machine0 = machineBusySeconds();
    db0 = cpuSecondsByName('postgres');
  };
  // On time even when no caller starts an operation then (argon2 at c=64 takes seconds on a loaded machine).
  const timer = setTimeout(() => windowStart === undefined && open(performance.now()), warmupMs);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const before = performance.now();
        if (windowStart === undefined && before >= windowStartsAt) open(before);
        if (before >= windowEndsAt || exhausted) return;
        let more: boolean;
        try {
          more = await op();
        } catch (e) {
          errors++;
          if (errorSamples.length < 5) errorSamples.push(String((e as Error)?.message ?? e).slice(0, 300));
          continue;
        }
        if (!more) {
          exhausted = true;
          return;
        }
        const after = performance.now();
        lastEnd = Math.max(lastEnd, after);
        // Completed inside the window, as the worker counts (also one begun before it).
        if (windowStart !== undefined && after > windowStart && after <= windowEndsAt) {
          ops++;
          latencies.push(after - before);
        }
      }
    }),
  );
  clearTimeout(timer);
  const cpu = process.cpuUsage(cpu0);
  const machine = machineBusySeconds() - machine0;
  const db = cpuDelta(db0, cpuSecondsByName('postgres'));
  windowStart ??= t0;
  const end = exhausted ? lastEnd : windowEndsAt;
  const seconds = Math.max(0.001, (end - windowStart) / 1000);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const sampled = Math.max(seconds, (performance.now() - windowStart) / 1000);
  return {
    floor,
    concurrency,
    seconds: Math.round(seconds * 1000) / 1000,
    ops,
    opsPerSecond: Math.round((ops / seconds) * 10) / 10,
    latency: summarize(latencies.values()),
    errors,
    errorSamples,
    cpuPercent: Math.round((cpuSeconds / sampled) * 1000) / 10,
    dbCpuPercent: Math.round((db / sampled) * 1000) / 10,
    otherCpuPercent: Math.round(((machine - cpuSeconds - db) / sampled) * 1000) / 10,
    exhausted,
  };
}

async function verifyFloor(job: Extract<FloorJob, { mode: 'verify' }>): Promise<FloorResult[]> {
  const credentials = JSON.parse(readFileSync(job.file, 'utf8')) as PendingCredential[];
  if (credentials.length === 0) throw new Error('no credentials to verify');
  const results: FloorResult[] = [];
  for (const concurrency of job.concurrencies) {
    let i = 0;
    results.push(
      await closedLoop('verify', concurrency, job.warmupMs, job.durationMs, async () => {
        const c = credentials[i++ % credentials.length];
        const result = await verifyRegistration({
          credential: c.credential,
          expectedChallenge: c.challenge,
          expectedOrigins: job.origins,
          expectedRpId: c.rpId,
        });
        if (!result.ok) throw new Error(`${result.reason}: ${result.detail ?? ''}`);
        return true;
      }),
    );
  }
  return results;
}

/** The newest stored event of a type: the payload shape Keyhold wrote. */
async function template(database: Database, type: string) {
  const [row] = await database.db.select().from(events).where(eq(events.type, type)).orderBy(desc(events.position)).limit(1);
  if (!row) throw new Error(`no ${type} event to copy: did the scenarios run?`);
  return row;
}

async function pendingU2fTemplate(database: Database, aggregateId: string) {
  const [row] = await database.db
    .select()
    .from(events)
    .where(and(eq(events.aggregateId, aggregateId), eq(events.type, 'u2f.registration.started')))
    .limit(1);
  return row;
}

async function insertFloor(job: Extract<FloorJob, { mode: 'insert' }>): Promise<FloorResult[]> {
  const database = await openDatabase({ databaseUrl: job.databaseUrl, dataDir: job.dataDir });
  const store: EventStore = createEventStore(database);
  try {
    const appAdded = await template(database, 'app.added');
    const appConfig = await template(database, 'app.oidc.config.added');
    const verified = await template(database, 'u2f.verified');
    const started = (await pendingU2fTemplate(database, verified.aggregateId))!;
    const results: FloorResult[] = [];
    let n = 0; // app names stay distinct across levels

    for (const concurrency of job.concurrencies) {
      // AddOIDCApp's write: two events of a new app aggregate (+ its apps row).
      const oidc = await closedLoop('insert-oidc', concurrency, job.warmupMs, job.durationMs, async () => {
        const appId = newId();
        const base = { aggregateType: 'app', aggregateId: appId, resourceOwner: appAdded.resourceOwner, creator: appAdded.creator };
        await store.append(
          [
            { ...base, type: 'app.added', payload: { ...(appAdded.payload as object), name: `floor ${process.pid} ${++n}` } },
            { ...base, type: 'app.oidc.config.added', payload: { ...(appConfig.payload as object), clientId: newId() } },
          ] as NewEvent[],
          [{ aggregateType: 'app', aggregateId: appId, sequence: 0 }],
        );
        return true;
      });
      results.push(oidc);

      // VerifyU2FRegistration's write: u2f.verified on a pending registration
      // (+ the u2f_tokens update). The pending ones are made first, untimed, in
      // batches; as many as the OIDC floor's rate suggests, with headroom.
      const want = Math.ceil(Math.max(500, oidc.opsPerSecond * 1.6) * ((job.warmupMs + job.durationMs) / 1000)) + 200;
      const pending: string[] = [];
      for (let made = 0; made < want; ) {
        const batch = Math.min(1000, want - made);
        const ids = Array.from({ length: batch }, () => newId());
        await store.append(
          ids.map((id) => ({
            aggregateType: 'u2f',
            aggregateId: id,
            type: 'u2f.registration.started',
            payload: started.payload,
            resourceOwner: started.resourceOwner,
            creator: started.creator,
          })) as NewEvent[],
          ids.map((id) => ({ aggregateType: 'u2f' as const, aggregateId: id, sequence: 0 })),
        );
        pending.push(...ids);
        made += batch;
      }
      let next = 0;
      results.push(
        await closedLoop('insert-u2f', concurrency, job.warmupMs, job.durationMs, async () => {
          if (next >= pending.length) return false;
          const id = pending[next++];
          await store.append(
            [
              {
                aggregateType: 'u2f',
                aggregateId: id,
                type: 'u2f.verified',
                payload: { ...(verified.payload as object), credentialId: randomBytes(32).toString('base64url') },
                resourceOwner: verified.resourceOwner,
                creator: verified.creator,
              },
            ] as NewEvent[],
            [{ aggregateType: 'u2f', aggregateId: id, sequence: 1 }],
          );
          return true;
        }),
      );
    }
    return results;
  } finally {
    await database.close();
  }
}

/** The argon2id floor: verify as Keyhold's password check does (the NFC form, the stored PHC string). */
async function argon2Floor(job: Extract<FloorJob, { mode: 'argon2' }>): Promise<FloorResult[]> {
  const password = normalizePassword('a long bench passphrase 4711');
  const stored = await argon2Hash(password, ARGON2_OPTIONS as never);
  const results: FloorResult[] = [];
  for (const concurrency of job.concurrencies) {
    results.push(
      await closedLoop('argon2', concurrency, job.warmupMs, job.durationMs, async () => {
        if (!(await argon2Verify(stored, password))) throw new Error('argon2 verify refused the right password');
        return true;
      }),
    );
  }
  return results;
}

const job = JSON.parse(process.argv[2] ?? '{}') as FloorJob;
const run = job.mode === 'verify' ? verifyFloor(job) : job.mode === 'argon2' ? argon2Floor(job) : insertFloor(job);
run.then(
  (results) => {
    process.send!({ ok: true, results }, () => process.exit(0));
  },
  (e) => {
    process.send!({ ok: false, error: String((e as Error)?.stack ?? e) }, () => process.exit(1));
  },
);
