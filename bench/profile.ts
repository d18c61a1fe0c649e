// Summarise a V8 .cpuprofile of the server (from `BENCH_CPU_PROF=<dir> npm run bench`;
// the largest file in <dir>/<run>-<backend>/ is the main thread):
//
//   node --import tsx bench/profile.ts <file.cpuprofile> [--top 40] [--filter text]
//        [--result bench/results/<run>.json --backend postgres --scenario oidc-grpc --concurrency 64]
//
// With --result, only the samples inside that scenario's measured window count
// (V8 stamps samples with CLOCK_MONOTONIC µs; the worker records the window on
// the same clock). Prints self time by package/file, by function, and inclusive
// time by function.
import { readFileSync } from 'node:fs';
import type { BenchResult } from './lib/report.js';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const file = args[0];
if (!file || file.startsWith('--')) {
  console.error('usage: bench/profile.ts <file.cpuprofile> [--top N] [--filter text] [--result json --backend b --scenario s --concurrency c]');
  process.exit(2);
}
const top = Number(opt('top') ?? 40);
const filter = opt('filter');
let window: [number, number] | undefined;
if (opt('result')) {
  const result = JSON.parse(readFileSync(opt('result')!, 'utf8')) as BenchResult;
  const b = result.backends.find((x) => x.backend === opt('backend'));
  const s = b?.scenarios.find((x) => x.scenario === opt('scenario') && x.concurrency === Number(opt('concurrency')));
  if (!s) throw new Error('no such scenario in the result');
  window = s.windowMonotonicUs;
}

const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Self time per node: each sample's delta (µs), kept when inside the window.
const self = new Map<number, number>();
let t = profile.startTime;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  t += dt;
  if (window && (t < window[0] || t > window[1])) return;
  self.set(id, (self.get(id) ?? 0) + dt);
});
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...self.entries()].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((a, [, us]) => a + us, 0);

const where = (n: Node) => {
  const url = n.callFrame.url.replace(/^file:\/\//, '').replace(/.*node_modules\//, '~/').replace(process.cwd() + '/', '');
  return `${n.callFrame.functionName || '(anonymous)'} ${url}:${n.callFrame.lineNumber + 1}`;
};
const groupOf = (n: Node) => {
  const url = n.callFrame.url;
  if (!url) return n.callFrame.functionName.startsWith('(') ? n.callFrame.functionName : '(native)';
  if (url.startsWith('node:')) return url;
  if (url.startsWith('wasm://')) return '(wasm: PGlite)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  return url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '');
};

const selfByFn = new Map<string, number>();
const selfByGroup = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, us] of self) {
  const n = byId.get(id)!;
  selfByFn.set(where(n), (selfByFn.get(where(n)) ?? 0) + us);
  selfByGroup.set(groupOf(n), (selfByGroup.get(groupOf(n)) ?? 0) + us);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const key = where(byId.get(cur)!);
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}

const busy = total - idle;
const show = (title: string, m: Map<string, number>) => {
  console.log(`\n== ${title} (% of busy time)`);
  [...m.entries()]
    .filter(([k]) => !k.startsWith('(idle)') && !k.startsWith('(root)') && (!filter || k.includes(filter)))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([k, us]) => console.log(`${((us / busy) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`));
};
console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled${window ? ' in the window' : ''}, main thread busy ${(busy / 1e6).toFixed(2)} s (${((busy / Math.max(total, 1)) * 100).toFixed(0)}%)`);
show('self time by package / file', selfByGroup);
show('self time by function', selfByFn);
show('inclusive time by function', inclusive);
