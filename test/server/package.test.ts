// The release package's shape, as npm would pack it (a dry run: no tarball,
// no build), kept in the suite because it is fast; scripts/release-check.mjs,
// run by .ci/run after the tests, installs the real tarball and starts it.
// What a user's install needs is in it (the built server and console, the
// `keyhold` bin, the postinstall repair of postgres.js, the licence), and
// nothing of the development tree or of a data directory is.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FORBIDDEN_PREFIXES, packageProblems } from '../../scripts/release-check.mjs';
import { repoRoot } from '../support/keyhold.js';

interface Pkg {
  version: string;
  license?: string;
  bin: Record<string, string>;
  files?: string[];
  scripts: Record<string, string>;
  engines: { node: string };
}
const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Pkg;
let packed: string[] = [];

beforeAll(async () => {
  // dist/server is brought up to date by the suite's global setup; the console is built here when stale.
  const build = (await import('../../console/build.mjs')) as { isStale(): boolean; buildConsole(): Promise<unknown> };
  if (build.isStale()) await build.buildConsole();
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repoRoot, env, encoding: 'utf8' });
  packed = (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
});

describe('the release package (npm pack)', () => {
  it('holds the built server and console, the bin, the install script and the licence; nothing of the source tree', () => {
    expect(packageProblems(packed)).toEqual([]);
    expect(packed.filter((p) => p.startsWith('.keyhold') || /(^|\/)admin\.(pat|password)$/.test(p))).toEqual([]);
    for (const prefix of FORBIDDEN_PREFIXES) expect(packed.some((p) => p.startsWith(prefix)), prefix).toBe(false);
  });

  it("package.json: the bin and every script an install runs are packed; prepare (the build) is not needed by a tarball's install", () => {
    expect(pkg.license).toBe('Apache-2.0');
    for (const target of Object.values(pkg.bin)) expect(packed).toContain(target);
    // npm runs these when a tarball is installed; "prepare" it runs only in a checkout and before packing.
    for (const hook of ['preinstall', 'install', 'postinstall']) {
      const script = pkg.scripts[hook];
      if (!script) continue;
      const files = [...script.matchAll(/node (\S+)/g)].map((m) => m[1]!);
      expect(files.length, hook).toBeGreaterThan(0);
      for (const f of files) expect(packed, `${hook}: ${script}`).toContain(f);
    }
  });
});
