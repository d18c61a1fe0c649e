#!/usr/bin/env node
// Start-up time and idle memory of Keyhold on PGlite, the build against the
// sources through tsx (README "Operations"). Each run spawns the server,
// polls GET /healthz every 5 ms until it answers (time from spawn), waits 3 s
// idle, reads the process's resident set (VmRSS), and stops it with SIGTERM.
// "first" runs on a new data directory (PGlite's initdb, migrations,
// bootstrap); "restart" on one that was started before.
//
//   node bench/startup.mjs [runs=3]      (build first: npm run build)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.argv[2] ?? 3);
const COMMANDS = {
  tsx: ['--import', 'tsx', 'src/main.ts'],
  build: ['bin/keyhold.js'],
};

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const rssMiB = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

async function once(kind, dataDir) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, COMMANDS[kind], {
    cwd: root,
    env: { ...process.env, KEYHOLD_PORT: String(port), KEYHOLD_DATA_DIR: dataDir, KEYHOLD_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let ms;
  while (ms === undefined) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.status === 200) ms = performance.now() - started;
    } catch {
      if (child.exitCode !== null) throw new Error(`${kind}: exited with ${child.exitCode} before answering`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  await new Promise((r) => setTimeout(r, 3_000));
  const rss = rssMiB(child.pid);
  child.kill('SIGTERM');
  await exited;
  return { ms, rss };
}

const fmt = (xs, unit, digits = 0) => `${xs.map((x) => x.toFixed(digits)).join(', ')} ${unit} (median ${[...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(digits)})`;

for (const kind of Object.keys(COMMANDS)) {
  for (const phase of ['first', 'restart']) {
    const results = [];
    for (let i = 0; i < runs; i++) {
      const dir = mkdtempSync(path.join(tmpdir(), 'keyhold-startup-'));
      try {
        if (phase === 'restart') await once(kind, dir);
        results.push(await once(kind, dir));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    console.log(`${kind.padEnd(5)} ${phase.padEnd(7)} to /healthz: ${fmt(results.map((r) => r.ms), 'ms')}; idle RSS: ${fmt(results.map((r) => r.rss), 'MiB')}`);
  }
}
