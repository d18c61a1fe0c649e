// The README's contract: `npm start` runs Keyhold on an embedded database, prints
// the URL, serves /healthz, and SIGTERM drains and exits 0. A bad config value
// stops it with a message naming the variable.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/databases.js';
import { repoRoot } from '../support/keyhold.js';

const dirs: string[] = [];
const groups: number[] = [];
afterAll(async () => {
  // Whatever a failed assertion left running: the whole process group (npm and Keyhold).
  for (const pid of groups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** `npm start`, or the command it runs (`node --import tsx src/main.ts`) when the exit code itself is under test. */
function npmStart(env: Record<string, string>, direct = false) {
  const [cmd, args] = direct ? [process.execPath, ['--import', 'tsx', 'src/main.ts']] : ['npm', ['start', '--silent']];
  // Own process group, so the test can signal npm and the Keyhold it starts together.
  const child = spawn(cmd, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  groups.push(child.pid!);
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const exited = new Promise<number | string | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  return { child, output: () => out, exited };
}

describe('npm start', () => {
  it.each([
    ['npm start', false],
    ['node src/main.ts (what npm start runs), whose exit code is 0 after SIGTERM', true],
  ])('%s prints the URL, serves /healthz, never logs the admin token, and stops on SIGTERM', async (_label, direct) => {
    const dir = await tempDir('keyhold-start-');
    dirs.push(dir);
    const run = npmStart({ KEYHOLD_PORT: '0', KEYHOLD_DATA_DIR: dir }, direct);
    const deadline = Date.now() + 40_000;
    let url: string | undefined;
    while (!url && Date.now() < deadline) {
      url = /Keyhold listening on (http:\/\/[^\s]+)/.exec(run.output())?.[1];
      if (!url) await new Promise((r) => setTimeout(r, 100));
    }
    expect(url, run.output()).toBeDefined();
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(200);
    const token = fs.readFileSync(`${dir}/admin.pat`, 'utf8').trim();
    expect(fs.statSync(`${dir}/admin.pat`).mode & 0o777).toBe(0o600);
    expect(run.output()).toContain(`${dir}/admin.pat`);
    expect(run.output()).not.toContain(token);
    // SIGTERM to the group, as a terminal or a supervisor sends it: Keyhold drains and exits 0;
    // npm exits 0 with it or dies of the signal itself, depending on which sees it first.
    process.kill(-run.child.pid!, 'SIGTERM');
    const code = await run.exited;
    if (direct) expect(code).toBe(0);
    else expect([0, 'SIGTERM']).toContain(code);
    // Keyhold finishes draining and nothing of the group is left running.
    const alive = () => {
      try {
        process.kill(-run.child.pid!, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toBe(false);
    if (direct) expect(run.output()).toContain('draining and shutting down');
  }, 60_000);

  it('refuses a bad configuration with the variable named, exit code 2', async () => {
    const run = npmStart({ KEYHOLD_PORT: 'eighty' }, true);
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain('KEYHOLD_PORT');
  }, 30_000);
});
