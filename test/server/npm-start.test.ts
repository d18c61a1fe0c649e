// The README's contract: `npm start` runs Keyhold on an embedded database, prints
// the URL, serves /healthz, and SIGTERM drains and exits 0. A bad config value
// stops it with a message naming the variable. Both run the build
// (dist/server, scripts/build-server.mjs; vitest's global setup brings it up
// to date) with plain Node, no TypeScript loader: tsx is a development
// dependency only. The build's verification thread, migrations and console
// are found from dist/.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVER_DIST_DIR } from '../../scripts/build-server.mjs';
import { tempDir } from '../support/databases.js';
import { repoRoot } from '../support/keyhold.js';
import { createSoftAuthenticator } from '../support/soft-authenticator.js';

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

/** `npm start`, or the command it runs (`node bin/keyhold.js`) when the exit code itself is under test. */
function npmStart(env: Record<string, string>, direct = false) {
  const [cmd, args] = direct ? [process.execPath, ['bin/keyhold.js']] : ['npm', ['start', '--silent']];
  // Own process group, so the test can signal npm and the Keyhold it starts together.
  const child = spawn(cmd, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  groups.push(child.pid!);
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  // 'close', not 'exit': by then the last lines the process wrote have been read.
  const exited = new Promise<number | string | null>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)));
  return { child, output: () => out, exited };
}

/** A security key registered through the server: its verification runs on the build's verification thread. */
async function registerKey(url: string, token: string, port: number) {
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const me = await (await fetch(`${url}/auth/v1/users/me`, { headers: auth })).json();
  const userId = me.user.userId as string;
  const started = await (await fetch(`${url}/v2/users/${userId}/u2f`, { method: 'POST', headers: auth, body: '{}' })).json();
  const options = started.publicKeyCredentialCreationOptions;
  const credential = createSoftAuthenticator().makeRegistration({ challenge: options.challenge, origin: `http://localhost:${port}`, rpId: options.rp.id, fmt: 'packed' });
  const verified = await fetch(`${url}/v2/users/${userId}/u2f/${started.u2fId}`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ publicKeyCredential: credential, tokenName: 'built' }),
  });
  return { status: verified.status, body: await verified.json() };
}

describe('npm start', () => {
  it('runs the build with plain node: tsx only in devDependencies, nothing in the build or the bin loads it', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
    expect(pkg.dependencies.tsx).toBeUndefined();
    expect(pkg.devDependencies.tsx).toBeDefined();
    expect(pkg.scripts.start).toBe('node bin/keyhold.js');
    expect(fs.readFileSync(path.join(repoRoot, 'bin/keyhold.js'), 'utf8')).not.toMatch(/['"]tsx/);
    for (const file of fs.readdirSync(SERVER_DIST_DIR).filter((f) => f.endsWith('.mjs'))) {
      const code = fs.readFileSync(path.join(SERVER_DIST_DIR, file), 'utf8');
      expect(code, file).not.toMatch(/from ["']tsx|import\(["']tsx/);
      expect(code, file).not.toMatch(/\.ts["']\)/); // no TypeScript file loaded at run time
    }
    expect(fs.existsSync(path.join(SERVER_DIST_DIR, 'migrations/meta/_journal.json'))).toBe(true);
  });

  it.each([
    ['npm start', false],
    ['node bin/keyhold.js (what npm start runs), whose exit code is 0 after SIGTERM', true],
  ])('%s prints the URL, serves /healthz, verifies a key on its thread, never logs the admin token, and stops on SIGTERM', async (_label, direct) => {
    const dir = await tempDir('keyhold-start-');
    dirs.push(dir);
    // A misspelt setting is a warning, not a stop.
    const run = npmStart({ KEYHOLD_PORT: '0', KEYHOLD_DATA_DIR: dir, KEYHOLD_ISUER: 'https://login.example.com' }, direct);
    const deadline = Date.now() + 40_000;
    let url: string | undefined;
    while (!url && Date.now() < deadline) {
      url = /Keyhold listening on (http:\/\/[^\s]+)/.exec(run.output())?.[1];
      if (!url) await new Promise((r) => setTimeout(r, 100));
    }
    expect(url, run.output()).toBeDefined();
    expect(run.output()).toContain('"msg":"KEYHOLD_ISUER is not a Keyhold setting; did you mean KEYHOLD_ISSUER?"');
    // A new database: every migration logged as it ran, in order, with its time.
    const migrations = [...run.output().matchAll(/"migration":"(\d{4})","name":"(\w+)","ms":\d+/g)].map((m) => `${m[1]}_${m[2]}`);
    const journal = JSON.parse(fs.readFileSync(path.join(SERVER_DIST_DIR, 'migrations/meta/_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> };
    expect(migrations).toEqual(journal.entries.map((e) => e.tag));
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(200);
    const token = fs.readFileSync(`${dir}/admin.pat`, 'utf8').trim();
    expect(fs.statSync(`${dir}/admin.pat`).mode & 0o777).toBe(0o600);
    expect(run.output()).toContain(`${dir}/admin.pat`);
    expect(run.output()).not.toContain(token);
    if (direct) {
      // On Node 22+ the process replaced itself with the V8 flags that bound its memory (bin/runtime-flags.js):
      // the same pid, so supervisors and the signals below still reach Keyhold itself.
      const cmdline = fs.readFileSync(`/proc/${run.child.pid}/cmdline`, 'utf8').split('\0');
      const flagged = Number(process.versions.node.split('.')[0]) >= 22;
      expect(cmdline.includes('--liftoff-only'), cmdline.join(' ')).toBe(flagged);
      expect(cmdline.includes('--max-semi-space-size=16'), cmdline.join(' ')).toBe(flagged);
      const key = await registerKey(url!, token, Number(new URL(url!).port));
      expect(key.status, JSON.stringify(key.body)).toBe(200);
      // The console URL printed is the one its sign-in works at: the console app's redirect URI (the console
      // sends its own origin's /console/); the listening address's is refused.
      const port = new URL(url!).port;
      const consoleUrl = /; console at (\S+); /.exec(run.output())?.[1];
      expect(consoleUrl).toBe(`http://localhost:${port}/console/`);
      expect((await fetch(consoleUrl!)).status).toBe(200);
      const authorize = (redirectUri: string) =>
        fetch(`${new URL(consoleUrl!).origin}/oauth/v2/authorize?${new URLSearchParams({ client_id: 'keyhold-console', redirect_uri: redirectUri, response_type: 'code', scope: 'openid', state: 's', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`, { redirect: 'manual' });
      const signIn = await authorize(consoleUrl!);
      expect([signIn.status, signIn.headers.get('location')?.startsWith(`http://localhost:${port}/ui/login`)], await signIn.text()).toEqual([303, true]);
      const atAddress = await authorize(`${url}/console/`);
      expect([atAddress.status, await atAddress.text()]).toEqual([400, expect.stringContaining('invalid_redirect_uri')]);
    }
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

  it('a SIGTERM as soon as /healthz answers (before the start finished) still drains and exits 0', async () => {
    const dir = await tempDir('keyhold-early-term-');
    dirs.push(dir);
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(p));
      });
    });
    const run = npmStart({ KEYHOLD_PORT: String(port), KEYHOLD_DATA_DIR: dir }, true);
    const deadline = Date.now() + 40_000;
    let up = false;
    while (!up && Date.now() < deadline) {
      up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (!up) await new Promise((r) => setTimeout(r, 5));
    }
    expect(up, run.output()).toBe(true);
    process.kill(run.child.pid!, 'SIGTERM');
    expect(await run.exited, run.output()).toBe(0);
    // /healthz answers while the start still runs: the signal is then taken as "shut down once it ends".
    expect(run.output()).toMatch(/draining and shutting down|signal during the start: shutting down once it ends/);
  }, 60_000);

  it('refuses a bad configuration with the variable named, exit code 2', async () => {
    const run = npmStart({ KEYHOLD_PORT: 'eighty' }, true);
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain('KEYHOLD_PORT');
  }, 30_000);
});
