#!/usr/bin/env node
// Start-up time and memory of Keyhold's build (`node bin/keyhold.js`), on
// PGlite and on PostgreSQL (docs/performance.md). Each run spawns
// the server and polls GET /healthz every 5 ms until it answers (time from
// spawn = "ready"), then waits idle and reads the resident set. While it
// starts, the resident sets of the server and every process below it are
// summed every 20 ms, so memory a short-lived child holds counts too.
//
//   first    PGlite: a new data directory (initdb, migrations, bootstrap);
//            PostgreSQL: a new database (createdb; migrations, bootstrap)
//   restart  the same directory / database again, after a first start
//
// Per run: readyMs; peakRssMiB (the server's VmHWM when ready — its own peak
// since exec); treePeakMiB (largest sampled sum over the server and its
// children until ready); idleRssMiB (VmRSS after KEYHOLD_BENCH idle wait).
//
//   node bench/startup.mjs [--runs 3] [--backends pglite,postgres] [--idle-ms 3000]
//                          [--json out.json] [--root DIR]... [--node PATH]...
// --node (repeatable) starts the build with that Node executable (default: the
// one running this script), e.g. Node 20 and Node 24 in one table.
// --root (repeatable) measures the build in another checkout; with several,
// runs alternate between them (before/after in the same conditions).
// PostgreSQL: BENCH_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres);
// skipped when it does not answer. `npm run bench` runs this too (bench/run.ts).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A field of /proc/<pid>/status in MiB, or 0 when the process is gone. */
function statusMiB(pid, field) {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The process and all its descendants (through /proc/<pid>/task/<tid>/children). */
function tree(pid) {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      const tasks = readFileSync(`/proc/${out[i]}/task/${out[i]}/children`, 'utf8').trim();
      if (tasks) out.push(...tasks.split(/\s+/).map(Number));
    } catch {
      /* gone */
    }
  }
  return out;
}

const treeRssMiB = (pid) => tree(pid).reduce((sum, p) => sum + statusMiB(p, 'VmRSS'), 0);

async function once({ node, root, dataDir, databaseUrl, idleMs }) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(node, ['bin/keyhold.js'], {
    cwd: root,
    env: {
      ...process.env,
      KEYHOLD_PORT: String(port),
      KEYHOLD_HOST: '127.0.0.1',
      KEYHOLD_DATA_DIR: dataDir,
      KEYHOLD_LOG_LEVEL: 'warn',
      ...(databaseUrl
        ? { DATABASE_URL: databaseUrl, KEYHOLD_MASTERKEY: process.env.KEYHOLD_MASTERKEY || 'keyhold-bench-master-key-0123456789abcdef' }
        : { DATABASE_URL: '' }),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let treePeak = 0;
  let ready = false;
  const sampler = (async () => {
    while (!ready && child.exitCode === null) {
      treePeak = Math.max(treePeak, treeRssMiB(child.pid));
      await sleep(20);
    }
  })();
  let readyMs;
  while (readyMs === undefined) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.status === 200) readyMs = performance.now() - started;
    } catch {
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before answering`);
      await sleep(5);
    }
  }
  ready = true;
  await sampler;
  treePeak = Math.max(treePeak, treeRssMiB(child.pid));
  const peakRssMiB = statusMiB(child.pid, 'VmHWM');
  await sleep(idleMs);
  const idleRssMiB = statusMiB(child.pid, 'VmRSS');
  const idleTreeMiB = treeRssMiB(child.pid);
  child.kill('SIGTERM');
  await exited;
  const r1 = (x) => Math.round(x * 10) / 10;
  return { readyMs: Math.round(readyMs), peakRssMiB: r1(peakRssMiB), treePeakMiB: r1(treePeak), idleRssMiB: r1(idleRssMiB), idleTreeMiB: r1(idleTreeMiB) };
}

/** A fresh PostgreSQL database, or a reason it cannot be had. */
async function createDatabase(adminUrl, socketDir) {
  const { default: postgres } = await import('postgres');
  const name = `kh_startup_${Date.now().toString(36)}_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await admin.unsafe(`create database ${name}`);
  } catch (e) {
    return `PostgreSQL is not reachable: ${e.message}`;
  } finally {
    await admin.end({ timeout: 1 }).catch(() => {});
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  if (socketDir) url.search = `?host=${encodeURIComponent(socketDir)}`;
  return {
    url: url.toString(),
    async drop() {
      const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await a.end({ timeout: 5 });
      }
    },
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Median, min and max of each figure over the runs. */
export function summarize(runs) {
  const out = {};
  for (const key of ['readyMs', 'peakRssMiB', 'treePeakMiB', 'idleRssMiB', 'idleTreeMiB']) {
    const xs = runs.map((r) => r[key]);
    out[key] = { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
  }
  return out;
}

/**
 * Measures first start and restart on each backend, `runs` times each, for
 * each root (alternating). Returns { config, results: [{ root, backend, phase, runs, summary } | { backend, skipped }] }.
 */
export async function measureStartup({
  roots = [here],
  nodes = [process.execPath],
  backends = ['pglite', 'postgres'],
  runs = 3,
  idleMs = 3000,
  pgAdminUrl = process.env.BENCH_PG_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  pgSocket,
  log = () => {},
} = {}) {
  for (const root of roots) {
    if (!existsSync(path.join(root, 'dist/server/keyhold.mjs'))) throw new Error(`${root}: not built (npm run build)`);
  }
  const results = [];
  const versions = new Map(nodes.map((node) => [node, execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()]));
  const slot = (node, root, backend, phase) => {
    let r = results.find((x) => x.node === node && x.root === root && x.backend === backend && x.phase === phase);
    if (!r) results.push((r = { node, nodeVersion: versions.get(node), root, backend, phase, runs: [] }));
    return r;
  };
  for (const backend of backends) {
    let skipped;
    for (let i = 0; i < runs && !skipped; i++) {
      for (const [node, root] of nodes.flatMap((n) => roots.map((r) => [n, r]))) {
        const dataDir = mkdtempSync(path.join(tmpdir(), 'keyhold-startup-'));
        let db;
        try {
          if (backend === 'postgres') {
            db = await createDatabase(pgAdminUrl, pgSocket);
            if (typeof db === 'string') {
              skipped = db;
              db = undefined;
              break;
            }
          }
          const first = await once({ node, root, dataDir, databaseUrl: db?.url, idleMs });
          slot(node, root, backend, 'first').runs.push(first);
          const restart = await once({ node, root, dataDir, databaseUrl: db?.url, idleMs });
          slot(node, root, backend, 'restart').runs.push(restart);
          log(`${versions.get(node)} ${path.basename(root)} ${backend} #${i + 1}: first ${JSON.stringify(first)}; restart ${JSON.stringify(restart)}`);
        } finally {
          rmSync(dataDir, { recursive: true, force: true });
          await db?.drop().catch(() => {});
        }
      }
    }
    if (skipped) results.push({ backend, skipped });
  }
  for (const r of results) if (r.runs) r.summary = summarize(r.runs);
  return { config: { roots, nodes: [...versions.values()], backends, runs, idleMs }, results };
}

const fmtFigure = (s, digits = 0) => `${(s.median / (digits ? 1000 : 1)).toFixed(digits)} (${(s.min / (digits ? 1000 : 1)).toFixed(digits)}–${(s.max / (digits ? 1000 : 1)).toFixed(digits)})`;

/** One Markdown table: median (min–max) per root, backend and phase. */
export function startupMarkdown(measured) {
  const multi = measured.config.roots.length > 1;
  const lines = [
    `| Node | ${multi ? 'build | ' : ''}backend | start | to /healthz s | peak RSS MiB (VmHWM) | peak RSS MiB (with children) | idle RSS MiB |`,
    `|---|${multi ? '---|' : ''}---|---|--:|--:|--:|--:|`,
  ];
  for (const r of measured.results) {
    if (r.skipped) {
      lines.push(`| – | ${multi ? '– | ' : ''}${r.backend} | skipped: ${r.skipped} | | | | |`);
      continue;
    }
    const s = r.summary;
    lines.push(
      `| ${r.nodeVersion ?? '–'} | ${multi ? `${path.basename(r.root)} | ` : ''}${r.backend} | ${r.phase} | ${fmtFigure(s.readyMs, 2)} | ${fmtFigure(s.peakRssMiB)} | ${fmtFigure(s.treePeakMiB)} | ${fmtFigure(s.idleRssMiB)} |`,
    );
  }
  return `${lines.join('\n')}\n\nMedian (min–max) of ${measured.config.runs} runs each; idle RSS ${measured.config.idleMs / 1000} s after /healthz first answered.\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const opt = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const roots = args.flatMap((a, i) => (a === '--root' ? [path.resolve(args[i + 1])] : []));
  const nodes = args.flatMap((a, i) => (a === '--node' ? [args[i + 1]] : []));
  const measured = await measureStartup({
    roots: roots.length ? roots : [here],
    nodes: nodes.length ? nodes : [process.execPath],
    backends: (opt('--backends') ?? 'pglite,postgres').split(','),
    runs: Number(opt('--runs') ?? 3),
    idleMs: Number(opt('--idle-ms') ?? 3000),
    log: (line) => console.error(line),
  });
  if (opt('--json')) writeFileSync(opt('--json'), `${JSON.stringify(measured, null, 2)}\n`);
  console.log(startupMarkdown(measured));
}
