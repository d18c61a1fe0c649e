// Backups keep an instance working (docs/backup.md): a user with a password and a
// security key logs in to an app and gets an ID token; a backup is taken while
// Keyhold runs — `keyhold backup` (the build, as a user runs it) on PGlite, the
// manual's own pg_dump and pg_restore blocks on PostgreSQL — and the restored
// Keyhold, at the same address, verifies that ID token against its key set (the
// same signing keys) and lets the same user log in again with the same password
// and key (soft authenticator, no browser). On PGlite also the refusals: a wrong
// master key, a non-empty data directory, and a start without the key kept apart.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { createLocalJWKSet, jwtVerify } from 'jose';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runBackup, runRestore } from '../../src/server/backup.js';
import { cliAction } from '../../src/server/cli.js';
import { loadConfig } from '../../src/server/config.js';
import { tarHeader, tarStream, type TarEntry } from '../../src/store/tar.js';
import { startKeyhold } from '../../src/server/start.js';
import { announcePostgresSkip, createPostgresDatabase, pgliteDirFromTemplate, postgresAvailable, tempDir, type PostgresDatabase } from '../support/databases.js';
import { humanUser, PASSWORD } from '../support/key-login.js';
import { repoRoot, startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { addApp, browser, formAction, formToken } from '../support/oidc-login.js';
import { createSoftAuthenticator, type SoftAuthenticator } from '../support/soft-authenticator.js';
import { startRegistration } from '../support/u2f.js';

const run = promisify(execFile);

const REDIRECT = 'http://localhost:5178/cb';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

/** A port nobody listens on now: the restored Keyhold takes the original's address. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** `keyhold <args>` as a user runs it (the build), without throwing on a non-zero exit. */
async function keyhold(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(repoRoot, 'bin/keyhold.js'), ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const failed = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** One request on a Unix socket; the answer's head (its body unread). */
function ask(socketPath: string, method: string, urlPath: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, method, path: urlPath }, resolve);
    req.on('error', reject);
    req.end();
  });
}

async function text(res: http.IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of res) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** What the original instance made, to be found again in the restored one. */
interface Made {
  base: string;
  clientId: string;
  userId: string;
  username: string;
  key: SoftAuthenticator;
  idToken: string;
}

/** Password, then the security key, then the code redeemed: the ID token and its claims. */
async function logIn(base: string, clientId: string, username: string, key: SoftAuthenticator, signCount: number): Promise<string> {
  const b = browser(base, { 'accept-language': 'en' });
  const authorize = new URL(`${base}/oauth/v2/authorize`);
  authorize.search = new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 'backup', code_challenge: CHALLENGE, code_challenge_method: 'S256' }).toString();
  const first = await b.follow(authorize);
  const named = await b.request(new URL(formAction(first.html!, 'username')!, first.url), { form: { form_token: formToken(first.html!), username } });
  const form = await b.follow(new URL(named.headers.get('location')!, first.url));
  const sent = await b.request(new URL(formAction(form.html!, 'password')!, form.url), { form: { form_token: formToken(form.html!), username, password: PASSWORD } });
  const step = await b.follow(new URL(sent.headers.get('location') ?? form.url.href, form.url));
  expect(step.html, 'the password is accepted and the key is asked for').toContain('data-mode="authenticate"');
  const options = JSON.parse(/data-options="([^"]+)"/.exec(step.html!)![1]!.replaceAll('&quot;', '"'));
  expect(options.allowCredentials.map((c: { id: string }) => c.id)).toEqual([key.credentialId]);
  const answer = key.makeAssertion({ challenge: options.challenge, origin: base, rpId: options.rpId, signCount });
  const keyed = await b.request(new URL(formAction(step.html!, 'key')!, step.url), { form: { form_token: formToken(step.html!), response: JSON.stringify(answer), failure: '' } });
  const back = (await b.follow(new URL(keyed.headers.get('location')!, step.url))).left!;
  expect(back.origin + back.pathname, 'the key finished the login').toBe(REDIRECT);
  const res = await fetch(`${base}/oauth/v2/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: clientId, code: back.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: VERIFIER }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id_token: string }).id_token;
}

/** An app, a user with a password and a security key, and an ID token from a login with both. */
async function makeInstanceState(kh: TestKeyhold, base: string): Promise<Made> {
  const projectId = (await kh.rest('POST', '/management/v1/projects', { name: 'Backed up' })).body.id;
  const { clientId } = await addApp(kh, projectId, { redirectUris: [REDIRECT], authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE', appType: 'OIDC_APP_TYPE_USER_AGENT', devMode: true });
  const { userId, username } = await humanUser(kh, 'backed-up');
  const reg = await startRegistration(kh, userId);
  const key = createSoftAuthenticator();
  const credential = key.makeRegistration({ challenge: reg.challenge, origin: base, rpId: reg.rpId });
  expect((await kh.rest('POST', `/v2/users/${userId}/u2f/${reg.u2fId}`, { publicKeyCredential: credential, tokenName: 'backed-up key' })).status).toBe(200);
  const idToken = await logIn(base, clientId, username, key, 1);
  return { base, clientId, userId, username, key, idToken };
}

/** The restored instance answers at the same address as the one `made` describes. */
async function expectRestored(made: Made): Promise<void> {
  const jwks = createLocalJWKSet(await (await fetch(`${made.base}/oauth/v2/keys`)).json());
  // Signed before the backup, by the original: the restored key set verifies it.
  const before = await jwtVerify(made.idToken, jwks, { issuer: made.base, audience: made.clientId });
  expect(before.payload.sub).toBe(made.userId);
  // The same user, the same password and the same key (its counter moves on).
  const after = await jwtVerify(await logIn(made.base, made.clientId, made.username, made.key, 2), jwks, { issuer: made.base, audience: made.clientId });
  expect(after.payload.sub).toBe(made.userId);
  expect(after.payload.amr).toEqual(['pwd', 'hwk', 'mfa']);
}

describe('backup and restore of the embedded database (keyhold backup / keyhold restore)', () => {
  let work: string;
  let original: string;
  let kh: TestKeyhold | undefined;
  let made: Made;
  let env: Record<string, string>;
  let laterUserId: string;
  const backupFile = () => path.join(work, 'keyhold.backup');

  beforeAll(async () => {
    work = await tempDir('keyhold-backup-');
    original = await pgliteDirFromTemplate();
    const port = await freePort();
    // The admin token outside the data directory, as an operator keeps it: the restored instance takes it too.
    env = { KEYHOLD_PORT: String(port), KEYHOLD_ADMIN_PAT_FILE: path.join(work, 'admin.pat'), KEYHOLD_WEBAUTHN_VERIFY_THREADS: '0' };
    kh = await startTestKeyhold({ env: { ...env, KEYHOLD_DATA_DIR: original } });
    made = await makeInstanceState(kh, `http://localhost:${port}`);
  }, 60_000);
  afterAll(async () => {
    await kh?.close();
    await rm(original, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  });

  it("the control socket: owner-only, POST /backup alone, one backup at a time, the snapshot deleted when its reader goes away", async () => {
    const socketPath = path.join(original, 'keyhold.sock');
    expect(statSync(socketPath).isSocket()).toBe(true);
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    expect((await ask(socketPath, 'GET', '/backup')).statusCode).toBe(405);
    expect((await ask(socketPath, 'POST', '/anything-else')).statusCode).toBe(404);
    // A reader that does not read: the snapshot stays and a second backup waits its turn.
    const first = await ask(socketPath, 'POST', '/backup');
    expect(first.statusCode).toBe(200);
    expect(first.headers['keyhold-master-key-check']).toMatch(/^[\w-]{16}$/);
    const snapshots = () => readdirSync(original).filter((n) => n.startsWith('backup-snapshot.'));
    expect(snapshots()).toHaveLength(1);
    const second = await ask(socketPath, 'POST', '/backup');
    expect(second.statusCode).toBe(409);
    expect(JSON.parse(await text(second)).error).toBe('BACKUP_IN_PROGRESS');
    first.destroy();
    await vi.waitFor(() => expect(snapshots()).toEqual([]), { timeout: 10_000, interval: 50 });
  });

  it('a backup of the running Keyhold, restored into a new data directory, keeps logins, signing keys and security keys', async () => {
    const backedUp = await keyhold(['backup', backupFile()], { KEYHOLD_DATA_DIR: original });
    expect(backedUp.code, backedUp.stderr).toBe(0);
    expect(backedUp.stdout).toContain('(the running Keyhold)');
    expect(backedUp.stdout).toContain(`The master key is NOT in this backup. It is the file ${path.join(original, 'masterkey')}`);
    expect(statSync(backupFile()).mode & 0o777).toBe(0o600);
    // The snapshot the server made for it goes once sent; its socket stays for the next backup.
    await vi.waitFor(() => expect(readdirSync(original).filter((n) => n.startsWith('backup-snapshot.'))).toEqual([]), { timeout: 10_000, interval: 50 });
    expect(existsSync(path.join(original, 'keyhold.sock'))).toBe(true);
    // Read by the system's tar: the description first, the database, and no master key.
    const listed = (await run('tar', ['-tzf', backupFile()])).stdout.split('\n').filter(Boolean);
    expect(listed[0]).toBe('keyhold-backup.json');
    expect(listed).toContain('pgdata/PG_VERSION');
    expect(listed).not.toContain('masterkey');
    expect(listed.every((name) => name === 'keyhold-backup.json' || name.startsWith('pgdata/'))).toBe(true);

    // Written after the backup: not in the restore.
    laterUserId = (await humanUser(kh!, 'after-backup')).userId;
    await kh!.close();
    kh = undefined;
    // The key kept apart, and none left beside the database: no start, and no new key made over the sealed ones.
    const keyCopy = path.join(work, 'masterkey-kept-apart');
    renameSync(path.join(original, 'masterkey'), keyCopy);
    const keyless = loadConfig({ KEYHOLD_PORT: '0', KEYHOLD_DATA_DIR: original, KEYHOLD_ADMIN_PAT_FILE: env.KEYHOLD_ADMIN_PAT_FILE! });
    await expect(startKeyhold(keyless, pino({ level: 'silent' }))).rejects.toThrow(`the master key file ${path.join(original, 'masterkey')} is missing, but the database holds keys sealed with a master key`);
    expect(existsSync(path.join(original, 'masterkey'))).toBe(false);

    const restoredDir = path.join(work, 'restored');
    const restored = await keyhold(['restore', backupFile(), '--master-key-file', keyCopy], { KEYHOLD_DATA_DIR: restoredDir });
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(`The master key: written to ${path.join(restoredDir, 'masterkey')} (mode 0600) from --master-key-file ${keyCopy}, verified.`);
    expect(statSync(path.join(restoredDir, 'masterkey')).mode & 0o777).toBe(0o600);

    kh = await startTestKeyhold({ env: { ...env, KEYHOLD_DATA_DIR: restoredDir } });
    await expectRestored(made);
    expect((await kh.rest('GET', `/v2/users/${laterUserId}`)).status).toBe(404);

    // A restore never writes over a data directory that holds something.
    const again = await keyhold(['restore', backupFile(), '--master-key-file', keyCopy], { KEYHOLD_DATA_DIR: restoredDir });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${restoredDir} is not empty`);
  }, 60_000);

  it('a wrong master key is refused before anything is written', async () => {
    const wrongKey = path.join(work, 'wrong-key');
    writeFileSync(wrongKey, 'not-the-master-key-of-this-backup-0123456789\n', { mode: 0o600 });
    const refusedDir = path.join(work, 'refused');
    const refused = await keyhold(['restore', backupFile(), '--master-key-file', wrongKey], { KEYHOLD_DATA_DIR: refusedDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is not the one this backup's secrets are sealed with");
    expect(existsSync(refusedDir)).toBe(false);

  }, 60_000);
});

describe('keyhold restore refuses a crafted backup, writing nothing', () => {
  let work: string;
  beforeAll(async () => {
    work = await tempDir('keyhold-crafted-');
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  /** A gzip'd archive: a valid description, then `entries` (headers given raw, or files). */
  async function crafted(name: string, entries: (TarEntry | Buffer)[]): Promise<string> {
    const manifest = Buffer.from(JSON.stringify({ format: 'keyhold-backup', version: 1, createdAt: new Date().toISOString(), keyhold: 'test', masterKey: { included: false, check: null } }));
    const parts: Buffer[] = [];
    for await (const chunk of tarStream((async function* () {
      yield { name: 'keyhold-backup.json', type: 'file', size: manifest.length, mode: 0o600, mtime: 0, body: [manifest] } satisfies TarEntry;
      for (const e of entries) if (!Buffer.isBuffer(e)) yield e;
    })())) parts.push(chunk as Buffer);
    // Raw headers go before the two closing blocks.
    const raw = entries.filter(Buffer.isBuffer);
    const archive = Buffer.concat([...parts.slice(0, -2), ...raw, Buffer.alloc(1024)]);
    const file = path.join(work, name);
    writeFileSync(file, gzipSync(archive));
    return file;
  }

  async function restoreInto(file: string, dataDir: string) {
    let out = '';
    let err = '';
    const code = await runRestore(file, undefined, { env: { KEYHOLD_DATA_DIR: dataDir }, out: (t) => void (out += t), err: (t) => void (err += t) });
    return { code, out, err };
  }

  it('an entry climbing out of pgdata/, a link, an absolute name, not a backup at all', async () => {
    const body = Buffer.from('x');
    const entry = (name: string): TarEntry => ({ name, type: 'file', size: 1, mode: 0o600, mtime: 0, body: [body] });
    const symlink = Buffer.from(tarHeader({ name: 'pgdata/link', type: 'file', size: 0, mode: 0o777, mtime: 0 }));
    symlink.write('2', 156, 1, 'ascii');
    symlink.write('        ', 148, 8, 'ascii');
    symlink.write(`${symlink.reduce((a, b) => a + b, 0).toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
    const cases: [string, string, RegExp][] = [
      ['climbing.backup', await crafted('climbing.backup', [entry('pgdata/PG_VERSION'), entry('pgdata/../escaped')]), /holds an entry a backup never holds \(pgdata\/\.\.\/escaped\)/],
      ['absolute.backup', await crafted('absolute.backup', [entry(path.join(work, 'absolute-escaped'))]), /holds an entry a backup never holds/],
      ['outside.backup', await crafted('outside.backup', [entry('escaped')]), /holds an entry a backup never holds \(escaped\)/],
      ['link.backup', await crafted('link.backup', [entry('pgdata/PG_VERSION'), symlink]), /a kind a backup never holds \(type "2"\)/],
      ['plain.backup', path.join(work, 'plain.backup'), /not a Keyhold backup \(not gzip data, or damaged\)/],
    ];
    writeFileSync(path.join(work, 'plain.backup'), 'not an archive at all');
    for (const [label, file, message] of cases) {
      const dataDir = path.join(work, `into-${label}`);
      const res = await restoreInto(file, dataDir);
      expect(res.code, label).toBe(1);
      expect(res.err, label).toMatch(message);
      expect(existsSync(path.join(dataDir, 'pgdata')), label).toBe(false);
      expect(existsSync(path.join(dataDir, 'pgdata.restore')), label).toBe(false);
    }
    expect(existsSync(path.join(work, 'escaped'))).toBe(false);
    expect(existsSync(path.join(work, 'absolute-escaped'))).toBe(false);
  });
});

describe('keyhold backup and restore: the command line', () => {
  const io = (env: Record<string, string>) => {
    const said = { out: '', err: '' };
    return { said, io: { env, out: (t: string) => void (said.out += t), err: (t: string) => void (said.err += t) } };
  };

  it('one file and the options each command takes; anything else is exit 2 before anything runs', () => {
    expect(cliAction(['backup', 'kh.backup'])).toEqual({ kind: 'backup', file: 'kh.backup', includeMasterKey: false });
    expect(cliAction(['backup', '--include-master-key', 'kh.backup'])).toEqual({ kind: 'backup', file: 'kh.backup', includeMasterKey: true });
    expect(cliAction(['restore', 'kh.backup', '--master-key-file', 'key'])).toEqual({ kind: 'restore', file: 'kh.backup', masterKeyFile: 'key' });
    expect(cliAction(['restore', '--master-key-file=key', 'kh.backup'])).toEqual({ kind: 'restore', file: 'kh.backup', masterKeyFile: 'key' });
    for (const args of [['backup'], ['backup', 'a', 'b'], ['backup', 'f', '--master-key-file', 'k'], ['restore', 'f', '--include-master-key'], ['restore', 'f', '--master-key-file'], ['restore', '-']]) {
      expect(cliAction(args), args.join(' ')).toMatchObject({ kind: 'exit', code: 2 });
    }
  });

  it('with DATABASE_URL both refuse (exit 2), pointing at pg_dump and pg_restore; a directory without a database has nothing to back up', async () => {
    const postgres = { DATABASE_URL: 'postgres://keyhold@127.0.0.1:5432/keyhold', KEYHOLD_MASTERKEY: 'a-master-key-of-at-least-32-characters' };
    const b = io(postgres);
    expect(await runBackup('kh.backup', false, b.io)).toBe(2);
    expect(b.said.err).toContain('with DATABASE_URL, PostgreSQL holds the data: use pg_dump (docs/backup.md)');
    const r = io(postgres);
    expect(await runRestore('kh.backup', undefined, r.io)).toBe(2);
    expect(r.said.err).toContain('use pg_restore (docs/backup.md)');
    const empty = await tempDir('keyhold-nothing-');
    try {
      const n = io({ KEYHOLD_DATA_DIR: empty });
      expect(await runBackup(path.join(empty, 'kh.backup'), false, n.io)).toBe(1);
      expect(n.said.err).toContain(`no Keyhold database in ${empty}`);
      expect(readdirSync(empty)).toEqual([]);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

announcePostgresSkip('backup and restore with pg_dump and pg_restore');

/** The ```text block of docs/backup.md that runs `command`: the test runs the manual's own steps. */
function manualBlock(command: string): string {
  const manual = readFileSync(path.join(repoRoot, 'docs/backup.md'), 'utf8');
  const blocks = [...manual.matchAll(/^```text\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).filter((b) => new RegExp(`^${command} `, 'm').test(b));
  expect(blocks, `docs/backup.md has one block running ${command}`).toHaveLength(1);
  return blocks[0]!;
}

describe.skipIf(!postgresAvailable)('backup and restore on PostgreSQL (pg_dump and pg_restore, as docs/backup.md says)', () => {
  let work: string;
  let kh: TestKeyhold | undefined;
  let copy: PostgresDatabase | undefined;

  beforeAll(async () => {
    work = await tempDir('keyhold-pg-backup-');
  });
  afterAll(async () => {
    await kh?.close();
    await copy?.drop();
    await rm(work, { recursive: true, force: true });
  });

  it("a dump of the running Keyhold's database, restored into a new database, keeps logins, signing keys and security keys", async () => {
    const port = await freePort();
    const env = { KEYHOLD_PORT: String(port), KEYHOLD_ADMIN_PAT_FILE: path.join(work, 'admin.pat'), KEYHOLD_WEBAUTHN_VERIFY_THREADS: '0' };
    kh = await startTestKeyhold({ postgres: true, env });
    const made = await makeInstanceState(kh, `http://localhost:${port}`);

    const shell = (block: string, vars: Record<string, string>) => run('bash', ['-c', `set -euo pipefail\n${block}`], { cwd: work, env: { PATH: process.env.PATH ?? '', ...vars }, timeout: 30_000 });
    await shell(manualBlock('pg_dump'), { DATABASE_URL: kh.config.databaseUrl! });
    expect(statSync(path.join(work, 'keyhold.dump')).size).toBeGreaterThan(0);
    await kh.close(); // drops the original database: the restore stands on its own
    kh = undefined;

    copy = await createPostgresDatabase();
    await shell(manualBlock('pg_restore'), { RESTORE_DATABASE_URL: copy.url });
    // The same KEYHOLD_MASTERKEY (startTestKeyhold's, with DATABASE_URL) and the same address.
    kh = await startTestKeyhold({ env: { ...env, DATABASE_URL: copy.url } });
    await expectRestored(made);
  }, 60_000);
});
