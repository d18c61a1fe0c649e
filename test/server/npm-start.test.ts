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
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

function npmStart(env: Record<string, string>) {
  const child = spawn('npm', ['start', '--silent'], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

describe('npm start', () => {
  it('prints the URL, serves /healthz, never logs the admin token, and exits 0 on SIGTERM', async () => {
    const dir = await tempDir('keyhold-start-');
    dirs.push(dir);
    const run = npmStart({ KEYHOLD_PORT: '0', KEYHOLD_DATA_DIR: dir });
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
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  }, 60_000);

  it('refuses a bad configuration with the variable named, exit code 2', async () => {
    const run = npmStart({ KEYHOLD_PORT: 'eighty' });
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain('KEYHOLD_PORT');
  }, 30_000);
});
