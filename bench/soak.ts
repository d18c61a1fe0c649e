// A soak of the login surface against the housekeeping sweep: whole password
// logins (a third of them with offline_access and two refreshes) as fast as
// one Keyhold process takes them, with token, session and grant lifetimes cut
// to seconds so that rows expire at the rate they are written. Every few
// seconds it samples oidc_payloads: rows present, rows past their expiry, and
// how long the oldest of those has been expired. The sweep keeps the table
// bounded when the expired rows present stay below a minute of the write rate
// (it runs every minute, src/server/housekeeping.ts) and no row outlives its
// expiry by much more than a minute. Failed logins are counted: under the
// sweep none may fail. The table's size is reported too: on PGlite the sweep
// vacuums, on PostgreSQL autovacuum does (a server running with autovacuum off
// keeps every deleted row's space, and the size grows with the rows written).
//
//   node --import tsx bench/soak.ts [--seconds 600] [--concurrency 8] [--idle 60] [--pglite]
//
// Memory: the process's RSS at every sample, when the load stops, and after
// --idle seconds of quiet; on PGlite the last is judged against its target.
//
// PostgreSQL by default (BENCH_PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres),
// a fresh database dropped at the end; --pglite runs on the embedded database
// and also reports the size of its files. Keyhold runs in this process
// (test/support/keyhold.ts). Writes bench/results/<time>-soak-<backend>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { boundHeapGrowth } from '../src/server/heap-growth.js';
import { DEFAULT_IDLE_COLLECT_SECONDS } from '../src/server/config.js';
import { startTestKeyhold } from '../test/support/keyhold.js';
import { addApp } from '../test/support/oidc-login.js';
import { loopback } from '../test/support/client-address.js';
import { LOGIN_PASSWORD, passwordLogin, REDIRECT_URI, request, ROUTES, type SurfaceTarget } from './lib/login-surface.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg('seconds', 600);
const CONCURRENCY = arg('concurrency', 8);
const PGLITE = process.argv.includes('--pglite');
/** Seconds of quiet after the load before the last memory sample: what an idle server keeps. */
const IDLE_SECONDS = arg('idle', 60);
/** Resident memory after the soak and the idle minute, PGlite: most a long-running embedded server may hold. */
const PGLITE_IDLE_RSS_TARGET_MIB = 300;
const rssMiB = () => Math.round(process.memoryUsage.rss() / 2 ** 20);
/** The JS heap V8 holds (heapTotal): with RSS it tells the heap's share from PGlite's WebAssembly memory and the rest. */
const heapMiB = () => Math.round(process.memoryUsage().heapTotal / 2 ** 20);
const SAMPLE_MS = 5_000;
const USERS = 32;
/** Lifetimes cut to seconds (the least each setting takes): rows expire as fast as they are written. */
const SHORT_LIFETIMES = {
  KEYHOLD_ACCESS_TOKEN_LIFETIME_SECONDS: '10',
  KEYHOLD_ID_TOKEN_LIFETIME_SECONDS: '10',
  KEYHOLD_LOGIN_SESSION_SECONDS: '10',
  KEYHOLD_REFRESH_TOKEN_IDLE_SECONDS: '10',
  KEYHOLD_REFRESH_TOKEN_ABSOLUTE_SECONDS: '20',
};

// The heap's growth bounded as `npm start` bounds it (src/server/run.ts): the memory judged is a served process's.
boundHeapGrowth();

const adminUrl = process.env.BENCH_PG_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const admin = PGLITE ? undefined : postgres(adminUrl, { max: 1, onnotice: () => {} });
const name = `keyhold_soak_${Date.now()}`;
const url = new URL(adminUrl);
url.pathname = `/${name}`;
if (admin) await admin.unsafe(`create database ${name}`);
// Its log lines are formatted as a served process's are, and not kept: the test harness keeps every
// line for the tests' checks, which over a soak's 20,000 logins is the largest thing in the heap.
// The idle collection as `npm start` runs it (the test harness turns it off): what the quiet minute keeps is a served
// process's. KEYHOLD_IDLE_COLLECT_SECONDS=0 in the soak's environment runs it without, for a comparison.
const idleCollectSeconds = process.env.KEYHOLD_IDLE_COLLECT_SECONDS ?? String(DEFAULT_IDLE_COLLECT_SECONDS);
const kh = await startTestKeyhold({
  env: { ...SHORT_LIFETIMES, KEYHOLD_IDLE_COLLECT_SECONDS: idleCollectSeconds, ...(admin ? { DATABASE_URL: url.toString() } : {}) },
  keepLogs: false,
});
const query = async <T>(text: string): Promise<T[]> => kh.database.sql.query<T>({ text, params: [] });

interface Sample {
  at: number;
  logins: number;
  failures: number;
  rows: number;
  expired: number;
  oldestExpiredSeconds: number;
  writtenRows: number;
  tableBytes: number;
  rssMiB: number;
}

try {
  const base = `http://localhost:${kh.port}`;
  const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'soak' })).body.id as string;
  const users: string[] = [];
  for (let i = 0; i < USERS; i++) {
    const username = `soak-${i}`;
    const res = await kh.rest('POST', '/v2/users/human', { username, profile: { givenName: 'Soak', familyName: `${i}` }, email: { email: `${username}@example.com` }, password: { password: LOGIN_PASSWORD, changeRequired: false } });
    if (res.status !== 200) throw new Error(`AddHumanUser: ${res.status} ${JSON.stringify(res.body)}`);
    users.push(username);
  }
  const app = await addApp(kh, projectId, {
    redirectUris: [REDIRECT_URI],
    authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
    grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
  });
  const target = { kind: 'keyhold', baseUrl: base, app: { clientId: app.clientId, clientSecret: app.clientSecret! }, password: LOGIN_PASSWORD } as SurfaceTarget;
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(app.clientId)}:${encodeURIComponent(app.clientSecret!)}`).toString('base64')}`;

  let logins = 0;
  let failures = 0;
  const failureKinds = new Map<string, number>();
  const fail = (e: unknown) => {
    failures++;
    const kind = String((e as Error).message ?? e).slice(0, 120);
    failureKinds.set(kind, (failureKinds.get(kind) ?? 0) + 1);
  };

  async function refresh(token: string): Promise<string> {
    const res = await request(new URL(base), 'POST', ROUTES.token, { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString());
    if (res.status !== 200) throw new Error(`refresh: HTTP ${res.status} ${res.text.slice(0, 120)}`);
    return JSON.parse(res.text).refresh_token as string;
  }

  const started = performance.now();
  const until = started + SECONDS * 1000;
  const written = async () => Number((await query<{ n: string }>(`select (n_tup_ins + n_tup_upd)::text as n from pg_stat_user_tables where relname = 'oidc_payloads'`))[0]?.n ?? 0);
  const writtenAtStart = await written();
  const samples: Sample[] = [];
  async function sample(): Promise<void> {
    const [row] = await query<{ rows: number; expired: number; oldest: number | null; bytes: string }>(`
      select count(*)::int as rows,
             count(*) filter (where expires_at < now())::int as expired,
             extract(epoch from now() - min(expires_at) filter (where expires_at < now()))::float8 as oldest,
             pg_total_relation_size('oidc_payloads')::text as bytes
      from oidc_payloads`);
    const s: Sample = {
      at: Math.round((performance.now() - started) / 1000),
      logins,
      failures,
      rows: row!.rows,
      expired: row!.expired,
      oldestExpiredSeconds: Math.round(row!.oldest ?? 0),
      writtenRows: (await written()) - writtenAtStart,
      tableBytes: Number(row!.bytes),
      rssMiB: rssMiB(),
    };
    samples.push(s);
    console.log(`${String(s.at).padStart(4)} s  logins ${s.logins}  failed ${s.failures}  rows ${s.rows}  expired ${s.expired}  oldest expired ${s.oldestExpiredSeconds} s  written ${s.writtenRows}  table ${(s.tableBytes / 2 ** 20).toFixed(1)} MiB  RSS ${s.rssMiB} MiB (JS heap ${heapMiB()} MiB)`);
  }
  const sampler = setInterval(() => void sample().catch((e) => console.error('sample failed:', e)), SAMPLE_MS);

  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, vu) => {
      for (let n = 0; performance.now() < until; n++) {
        try {
          const offline = n % 3 === 0;
          const tokens = await passwordLogin(target, users[(vu + n * CONCURRENCY) % USERS]!, offline, loopback(vu));
          logins++;
          if (offline) await refresh(await refresh(tokens.refresh_token as string));
        } catch (e) {
          fail(e);
        }
      }
    }),
  );
  clearInterval(sampler);
  await sample();
  const seconds = (performance.now() - started) / 1000;
  // The server keeps running with nothing to do: the sweep and the pools settle, and what stays is
  // what a quiet deployment holds. One process holds the server and its load, whose share is small.
  const rssAtLoadEnd = rssMiB();
  const heapAtLoadEnd = heapMiB();
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  const rssIdle = rssMiB();
  const heapIdle = heapMiB();

  // Rows written per second over the whole run: a minute of it is what may be expired at any moment.
  const writeRate = samples.at(-1)!.writtenRows / seconds;
  const bound = Math.round(writeRate * 60);
  const steady = samples.filter((s) => s.at >= 60);
  const summary = {
    backend: PGLITE ? 'pglite' : 'postgres',
    seconds: Math.round(seconds),
    concurrency: CONCURRENCY,
    logins,
    loginsPerSecond: Number((logins / seconds).toFixed(1)),
    failures,
    failureKinds: Object.fromEntries(failureKinds),
    rowsWrittenPerSecond: Number(writeRate.toFixed(1)),
    expiredBound: bound,
    maxExpired: Math.max(...samples.map((s) => s.expired)),
    maxOldestExpiredSeconds: Math.max(...samples.map((s) => s.oldestExpiredSeconds)),
    maxRows: Math.max(...samples.map((s) => s.rows)),
    tableBytesAfterFirstMinute: steady[0]?.tableBytes,
    tableBytesAtEnd: samples.at(-1)!.tableBytes,
    peakRssMiB: Math.max(...samples.map((x) => x.rssMiB), rssAtLoadEnd),
    rssAtLoadEndMiB: rssAtLoadEnd,
    idleSeconds: IDLE_SECONDS,
    rssIdleMiB: rssIdle,
    heapAtLoadEndMiB: heapAtLoadEnd,
    heapIdleMiB: heapIdle,
    idleCollectSeconds: Number(idleCollectSeconds),
    ...(PGLITE ? { rssIdleTargetMiB: PGLITE_IDLE_RSS_TARGET_MIB, rssIdleTargetMet: rssIdle <= PGLITE_IDLE_RSS_TARGET_MIB } : {}),
    node: process.version,
    samples,
  };
  console.log(
    `\n${summary.backend}, ${summary.seconds} s, ${summary.logins} logins (${summary.loginsPerSecond}/s), ${failures} failed; ` +
      `oidc_payloads: ${summary.rowsWrittenPerSecond} rows written/s, at most ${summary.maxExpired} expired present (bound: a minute of writes, ${bound}), ` +
      `oldest expired row ${summary.maxOldestExpiredSeconds} s past its expiry, table ${((summary.tableBytesAfterFirstMinute ?? 0) / 2 ** 20).toFixed(1)} MiB after the first minute, ${(summary.tableBytesAtEnd / 2 ** 20).toFixed(1)} MiB at the end`,
  );
  console.log(`RSS: peak ${summary.peakRssMiB} MiB, ${rssAtLoadEnd} MiB when the load stopped, ${rssIdle} MiB after ${IDLE_SECONDS} s idle (JS heap ${heapAtLoadEnd} → ${heapIdle} MiB; idle collection after ${idleCollectSeconds} s)${PGLITE ? ` (target ≤ ${PGLITE_IDLE_RSS_TARGET_MIB} MiB: ${rssIdle <= PGLITE_IDLE_RSS_TARGET_MIB ? 'met' : 'missed'})` : ''}`);
  if (failures > 0) console.log('failures:', summary.failureKinds);
  const dir = new URL('./results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  writeFileSync(new URL(`${stamp}-soak-${summary.backend}.json`, dir), `${JSON.stringify(summary, null, 2)}\n`);
  if (summary.maxExpired > bound || failures > 0) process.exitCode = 1;
} finally {
  await kh.close();
  if (admin) {
    await admin.unsafe(`drop database ${name} with (force)`);
    await admin.end();
  }
}
