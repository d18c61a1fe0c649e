// `keyhold backup <file>` and `keyhold restore <file>` for the embedded database
// (docs/backup.md; PostgreSQL is backed up with pg_dump). Configured by the same
// environment as the server (KEYHOLD_DATA_DIR, KEYHOLD_MASTERKEY).
//
// A backup is a gzip'd ustar archive (store/tar.ts), in this order:
//   keyhold-backup.json  what it is: format version, when, from what, the master key's check
//   masterkey            only with --include-master-key
//   pgdata/…             the database files, checkpointed and consistent
// The database comes from the running Keyhold through its control socket
// (control-socket.ts), or, when none runs, from the data directory itself under
// its lock. The master key stays out by default: the archive's signing keys and
// sealed secrets are then useless to whoever gets hold of it (docs/security.md 20).
import { closeSync, createReadStream, createWriteStream, existsSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { DataDirLocked } from '../store/errors.js';
import { lockDataDir, type DirLock } from '../store/lock-file.js';
import { directoryEntries, readTar, TarFormatError, tarStream, type TarEntry } from '../store/tar.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { controlSocketPath, MASTER_KEY_CHECK_HEADER } from './control-socket.js';
import { masterKeyCheck, masterKeyOf } from './oidc/keys.js';
import { KEYHOLD_VERSION } from './version.js';

export const MANIFEST_ENTRY = 'keyhold-backup.json';
export const KEY_ENTRY = 'masterkey';
export const BACKUP_FORMAT = 'keyhold-backup';
export const BACKUP_VERSION = 1;

export interface Manifest {
  format: typeof BACKUP_FORMAT;
  version: number;
  createdAt: string;
  keyhold: string;
  pglite: string;
  /** Where the database was read: from the running Keyhold, or from its stopped data directory. */
  source: 'running' | 'stopped';
  dataDir: string;
  masterKey: {
    included: boolean;
    /** masterKeyCheck of the key the secrets are sealed with; null when it could not be known. */
    check: string | null;
  };
}

export interface Io {
  env: Record<string, string | undefined>;
  out(text: string): void;
  err(text: string): void;
}

/** A refusal or failure the command explains in one message; `code` 2 for a usage or configuration error. */
class CommandError extends Error {
  constructor(
    message: string,
    readonly code: 1 | 2 = 1,
  ) {
    super(message);
  }
}

const processIo: Io = { env: process.env, out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

function embeddedConfig(io: Io, command: 'backup' | 'restore'): Config {
  let config: Config;
  try {
    config = loadConfig(io.env);
  } catch (e) {
    if (e instanceof ConfigError) throw new CommandError(`invalid configuration: ${e.message}`, 2);
    throw e;
  }
  if (config.databaseUrl) {
    const tool = command === 'backup' ? 'pg_dump' : 'pg_restore';
    throw new CommandError(`keyhold ${command} is for the embedded database; with DATABASE_URL, PostgreSQL holds the data: use ${tool} (docs/backup.md)`, 2);
  }
  return config;
}

function pgliteVersion(): string {
  try {
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    return (JSON.parse(readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The master key as the server reads it: KEYHOLD_MASTERKEY, else `<dataDir>/masterkey`. */
function keySource(config: Config): { secret?: string; where: string } {
  if (config.oidc.masterKey !== undefined) return { secret: config.oidc.masterKey, where: 'KEYHOLD_MASTERKEY' };
  try {
    const secret = readFileSync(config.oidc.masterKeyFile, 'utf8').trim();
    return { secret: secret || undefined, where: config.oidc.masterKeyFile };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    return { where: config.oidc.masterKeyFile };
  }
}

const checkOf = (secret: string) => masterKeyCheck(masterKeyOf(secret));

/** A name a backup may hold: relative, `/`-separated, nothing that climbs out or is empty. */
export function safeEntryName(name: string): boolean {
  if (name === '' || name.includes('\\') || name.includes('\0') || name.startsWith('/')) return false;
  return name.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

const isDataEntry = (name: string) => safeEntryName(name) && name.startsWith('pgdata/');

function textEntry(name: string, text: string): TarEntry {
  const bytes = Buffer.from(text, 'utf8');
  return { name, type: 'file', size: bytes.length, mode: 0o600, mtime: Math.floor(Date.now() / 1000), body: [bytes] };
}

async function* only<T extends TarEntry>(entries: AsyncIterable<T>, what: string): AsyncGenerator<T> {
  for await (const entry of entries) {
    if (!isDataEntry(entry.name)) throw new CommandError(`${what} sent an entry outside pgdata/ (${entry.name.slice(0, 100)}): not a database snapshot`);
    yield entry;
  }
}

interface Snapshot {
  source: 'running' | 'stopped';
  /** The running server's key check (none when read from a stopped directory). */
  check?: string;
  entries: AsyncIterable<TarEntry>;
  done(): void;
}

/**
 * Asks the running Keyhold for a snapshot over its control socket; undefined
 * when nothing listens there (no socket, or a dead process's).
 */
function askRunningKeyhold(dataDir: string): Promise<Snapshot | undefined> {
  const socketPath = controlSocketPath(dataDir);
  if (!lstatSync(socketPath, { throwIfNoEntry: false })?.isSocket()) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, method: 'POST', path: '/backup' }, (res) => {
      if (res.statusCode === 200) {
        const check = res.headers[MASTER_KEY_CHECK_HEADER];
        resolve({ source: 'running', check: typeof check === 'string' ? check : undefined, entries: only(readTar(res), 'the running Keyhold'), done: () => res.destroy() });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        let message = Buffer.concat(chunks).toString('utf8');
        try {
          message = (JSON.parse(message) as { message?: string }).message ?? message;
        } catch {
          /* the text as it came */
        }
        reject(new CommandError(`the running Keyhold refused the backup (${res.statusCode}): ${message.slice(0, 500)}`));
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A socket file nobody listens on: its process died; the directory's lock decides below.
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') resolve(undefined);
      else reject(err);
    });
    req.end();
  });
}

/** The stopped data directory's own files, read under its lock so that no Keyhold starts meanwhile. */
function readStoppedDirectory(dataDir: string): Snapshot {
  let lock: DirLock;
  try {
    lock = lockDataDir(dataDir);
  } catch (e) {
    if (e instanceof DataDirLocked) {
      throw new CommandError(
        `process ${e.pid} holds ${dataDir} (a Keyhold starting, or one that offers no control socket: its log says why) and did not answer on ${controlSocketPath(dataDir)}. ` +
          'Run keyhold backup again once it serves, or stop it first.',
      );
    }
    throw e;
  }
  return { source: 'stopped', entries: directoryEntries(path.join(dataDir, 'pgdata'), 'pgdata'), done: () => lock.release() };
}

/** fsync of a file: an error means its bytes may not be on disk, so it is the command's error. */
function fsyncFile(p: string): void {
  const fd = openSync(p, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Errors of a directory's fsync that say the platform cannot do it, not that a write was lost. */
const DIRECTORY_FSYNC_UNSUPPORTED = new Set(['EISDIR', 'EINVAL', 'EPERM', 'EACCES', 'ENOTSUP']);

/** fsync of a directory (its entries): a platform that cannot do it still renames and links atomically. */
function fsyncDirectory(p: string): void {
  try {
    fsyncFile(p);
  } catch (e) {
    if (!DIRECTORY_FSYNC_UNSUPPORTED.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
  }
}

/** Writes the archive next to `file` and links it into place: never a half-written backup, never over an existing file. */
async function writeArchive(file: string, entries: AsyncIterable<TarEntry>): Promise<number> {
  const partial = `${file}.partial-${process.pid}`;
  try {
    await pipeline(tarStream(entries), createGzip({ level: 1 }), createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
    fsyncFile(partial);
    try {
      linkSync(partial, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new CommandError(`${file} exists (made meanwhile): keyhold backup never replaces a file`);
      throw e;
    }
    fsyncDirectory(path.dirname(file));
  } finally {
    rmSync(partial, { force: true });
  }
  return statSync(file).size;
}

const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

async function backup(file: string, includeMasterKey: boolean, io: Io): Promise<void> {
  const config = embeddedConfig(io, 'backup');
  const dataDir = config.dataDir;
  const target = path.resolve(file);
  if (existsSync(target)) throw new CommandError(`${target} exists: keyhold backup never replaces a file; name a new one`);
  if (!existsSync(path.join(dataDir, 'pgdata', 'PG_VERSION'))) {
    throw new CommandError(`no Keyhold database in ${dataDir} (KEYHOLD_DATA_DIR${io.env.KEYHOLD_DATA_DIR ? '' : ', default .keyhold'}): nothing to back up`);
  }
  const key = keySource(config);
  if (includeMasterKey && key.secret === undefined) throw new CommandError(`--include-master-key: there is no master key to include (no KEYHOLD_MASTERKEY, no ${key.where})`);

  const snapshot = (await askRunningKeyhold(dataDir)) ?? readStoppedDirectory(dataDir);
  let size: number;
  let check: string | null = null;
  try {
    check = snapshot.check ?? (key.secret !== undefined ? checkOf(key.secret) : null);
    if (includeMasterKey && check !== null && checkOf(key.secret!) !== check) {
      throw new CommandError(`--include-master-key: the master key this command reads (${key.where}) is not the one the running Keyhold uses; run keyhold backup with the same KEYHOLD_MASTERKEY as the server`);
    }
    const manifest: Manifest = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      createdAt: new Date().toISOString(),
      keyhold: KEYHOLD_VERSION,
      pglite: pgliteVersion(),
      source: snapshot.source,
      dataDir,
      masterKey: { included: includeMasterKey, check },
    };
    const entries = async function* (): AsyncGenerator<TarEntry> {
      yield textEntry(MANIFEST_ENTRY, `${JSON.stringify(manifest, null, 2)}\n`);
      if (includeMasterKey) yield textEntry(KEY_ENTRY, `${key.secret}\n`);
      yield* snapshot.entries;
    };
    try {
      size = await writeArchive(target, entries());
    } catch (e) {
      if (e instanceof CommandError) throw e;
      // The running Keyhold stopped meanwhile, the disk filled up…: no file was left.
      throw new CommandError(`no backup written: ${(e as Error).message}`);
    }
  } finally {
    snapshot.done();
  }

  const from = snapshot.source === 'running' ? 'the running Keyhold' : 'the stopped data directory';
  io.out(`Backed up ${dataDir} (${from}) to ${target}: ${megabytes(size)}, mode 0600.\n`);
  if (includeMasterKey) {
    io.err(
      'keyhold backup: WARNING: this backup holds the master key. With it, the sealed signing keys and secrets in the backup open: ' +
        'whoever reads the file can sign ID tokens as this Keyhold. Keep it as safe as the server itself, or back up without ' +
        '--include-master-key and keep the key apart.\n',
    );
    return;
  }
  const seen = key.secret !== undefined && (check === null || checkOf(key.secret) === check);
  const where = !seen
    ? key.secret === undefined && check === null
      ? `It should be the file ${key.where}, which does not exist: without the key the database was sealed with, its signing keys and sealed secrets cannot be opened.`
      : `It is not the one this command sees (${key.where}${key.secret === undefined ? ', which does not exist' : ''}): it is the KEYHOLD_MASTERKEY the running Keyhold was started with; keep that value apart from the backups.`
    : key.where === 'KEYHOLD_MASTERKEY'
      ? "It is the KEYHOLD_MASTERKEY of Keyhold's environment: keep that value where you keep your other secrets, apart from the backups."
      : `It is the file ${key.where}: keep a copy of it apart from the backups (another place, fewer readers).`;
  io.out(
    `The master key is NOT in this backup. ${where}\n` +
      `A restore needs both: keyhold restore ${target} --master-key-file <the copy of the key>\n`,
  );
}

/** What restore needs from a key given by file or by the backup: the text, and where it came from. */
interface GivenKey {
  secret: string;
  from: string;
}

function readKeyFile(file: string): GivenKey {
  let secret: string;
  try {
    secret = readFileSync(file, 'utf8').trim();
  } catch (e) {
    throw new CommandError(`--master-key-file: ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, 2);
  }
  if ([...secret].length < 32) throw new CommandError(`--master-key-file: ${file} does not hold a master key (at least 32 characters)`, 2);
  return { secret, from: `--master-key-file ${file}` };
}

async function readSmall(entry: TarEntry, max: number): Promise<string> {
  if (entry.type !== 'file' || entry.size > max) throw new CommandError(`not a Keyhold backup: ${entry.name} is not what a backup holds there`);
  const parts: Buffer[] = [];
  for await (const part of entry.body ?? []) parts.push(part);
  return Buffer.concat(parts).toString('utf8');
}

function parseManifest(text: string): Manifest {
  let m: Partial<Manifest>;
  try {
    m = JSON.parse(text) as Partial<Manifest>;
  } catch {
    throw new CommandError('not a Keyhold backup: its description (keyhold-backup.json) is not JSON');
  }
  if (m.format !== BACKUP_FORMAT || typeof m.version !== 'number') throw new CommandError('not a Keyhold backup: keyhold-backup.json names another format');
  if (m.version > BACKUP_VERSION) throw new CommandError(`this backup was made in format ${m.version} by Keyhold ${m.keyhold}; this Keyhold (${KEYHOLD_VERSION}) reads format ${BACKUP_VERSION}: restore it with that version or a later one`);
  if (typeof m.masterKey?.included !== 'boolean') throw new CommandError('not a Keyhold backup: keyhold-backup.json lacks masterKey');
  return m as Manifest;
}

/** The data directory must be new or empty: a restore never mixes with, or replaces, a database. */
function assertEmpty(dataDir: string): void {
  const stat = statSync(dataDir, { throwIfNoEntry: false });
  if (!stat) return;
  if (!stat.isDirectory()) throw new CommandError(`${dataDir} is not a directory`);
  if (readdirSync(dataDir).length > 0) {
    throw new CommandError(`${dataDir} is not empty: keyhold restore writes only into a new or empty data directory and never replaces one; set KEYHOLD_DATA_DIR to another, or move this one away first`);
  }
}

async function writeFileFrom(file: string, body: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<void> {
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  await pipeline(body, out);
}

/**
 * fsyncs every file, eight at once: the restored database is on disk once the
 * command says so. One after the other as each file was written, a new
 * instance's 1,078 files took 6 s more on a loaded machine; together, 0.4 s.
 */
async function syncAll(paths: readonly string[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < paths.length) {
        const handle = await open(paths[next++]!, 'r');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      }
    }),
  );
}

async function restore(file: string, masterKeyFile: string | undefined, io: Io): Promise<void> {
  const config = embeddedConfig(io, 'restore');
  const dataDir = config.dataDir;
  const source = path.resolve(file);
  if (!statSync(source, { throwIfNoEntry: false })?.isFile()) throw new CommandError(`${source}: no such file`, 2);
  assertEmpty(dataDir);
  const fromFlag = masterKeyFile ? readKeyFile(path.resolve(masterKeyFile)) : undefined;

  const gunzip = createGunzip();
  // A read error ends the pipeline, and with it the reading below.
  pipeline(createReadStream(source), gunzip).catch(() => {});
  try {
    await restoreFrom(source, gunzip, config, fromFlag, io);
  } finally {
    gunzip.destroy();
  }
}

async function restoreFrom(source: string, archive: AsyncIterable<Buffer>, config: Config, fromFlag: GivenKey | undefined, io: Io): Promise<void> {
  const dataDir = config.dataDir;
  const entries = readTar(archive)[Symbol.asyncIterator]();
  const next = async () => {
    try {
      const r = await entries.next();
      return r.done ? undefined : r.value;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR') throw new CommandError(`${source} is not a Keyhold backup (not gzip data, or damaged)`);
      if (e instanceof TarFormatError) throw new CommandError(`${source}: ${e.message}`);
      throw e;
    }
  };
  const first = await next();
  if (first?.name !== MANIFEST_ENTRY) throw new CommandError(`${source} is not a Keyhold backup (it does not begin with ${MANIFEST_ENTRY})`);
  const manifest = parseManifest(await readSmall(first, 64 * 1024));
  let entry = await next();
  let fromBackup: GivenKey | undefined;
  if (entry?.name === KEY_ENTRY) {
    fromBackup = { secret: (await readSmall(entry, 4096)).trim(), from: 'the backup' };
    entry = await next();
  }

  // Every key given is checked against the backup's before anything is written.
  const check = manifest.masterKey.check;
  const envKey = config.oidc.masterKey;
  for (const given of [fromFlag, fromBackup, envKey === undefined ? undefined : { secret: envKey, from: 'KEYHOLD_MASTERKEY' }]) {
    if (given && check !== null && checkOf(given.secret) !== check) {
      throw new CommandError(`the master key from ${given.from} is not the one this backup's secrets are sealed with: the restored Keyhold could not open its signing keys. Nothing was written.`);
    }
  }
  const keyToWrite = envKey === undefined ? (fromFlag ?? fromBackup) : undefined;

  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lock = lockDataDir(dataDir);
  const staging = path.join(dataDir, 'pgdata.restore');
  const pgdata = path.join(dataDir, 'pgdata');
  try {
    // Another restore or a start may have come between the check above and the lock.
    if (readdirSync(dataDir).some((name) => name !== 'keyhold.lock')) throw new CommandError(`${dataDir} is not empty any more: another process wrote there`);
    mkdirSync(staging, { mode: 0o700 });
    const written: string[] = [];
    const directories: string[] = [staging];
    for (; entry; entry = await next()) {
      if (!isDataEntry(entry.name)) throw new CommandError(`${source} holds an entry a backup never holds (${entry.name.slice(0, 100)}): refused, nothing restored`);
      const to = path.join(staging, entry.name.slice('pgdata/'.length));
      if (entry.type === 'directory') {
        mkdirSync(to, { recursive: true, mode: 0o700 });
        directories.push(to);
      } else {
        mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
        await writeFileFrom(to, entry.body ?? []);
        written.push(to);
      }
    }
    if (!existsSync(path.join(staging, 'PG_VERSION'))) throw new CommandError(`${source} holds no database (no pgdata/PG_VERSION)`);
    await syncAll(written);
    directories.forEach(fsyncDirectory);
    renameSync(staging, pgdata);
    if (keyToWrite) {
      await writeFileFrom(config.oidc.masterKeyFile, [Buffer.from(`${keyToWrite.secret}\n`)]);
      fsyncFile(config.oidc.masterKeyFile);
    }
    fsyncDirectory(dataDir);
    io.out(`Restored ${source} (taken ${manifest.createdAt} from ${manifest.source === 'running' ? 'a running' : 'a stopped'} Keyhold ${manifest.keyhold}) into ${dataDir}: ${written.length} files.\n`);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    rmSync(pgdata, { recursive: true, force: true });
    throw e;
  } finally {
    lock.release();
  }

  if (envKey !== undefined) {
    io.out(`The master key: KEYHOLD_MASTERKEY is set${check === null ? '' : " and is the backup's"}; Keyhold will use it.\n`);
  } else if (keyToWrite) {
    io.out(`The master key: written to ${config.oidc.masterKeyFile} (mode 0600) from ${keyToWrite.from}${check === null ? ' (the backup records no check: it could not be verified)' : ', verified'}.\n`);
  } else {
    io.out(
      `The master key is NOT in place: before starting Keyhold, copy the key kept apart to ${config.oidc.masterKeyFile} (mode 0600) ` +
        'or set KEYHOLD_MASTERKEY to it. Keyhold refuses to start without it.\n',
    );
  }
  io.out(`The admin token (admin.pat) is never in a backup: the one you kept still works. Start Keyhold with KEYHOLD_DATA_DIR=${dataDir}.\n`);
}

async function run(command: 'backup' | 'restore', work: (io: Io) => Promise<void>, io: Io): Promise<number> {
  try {
    await work(io);
    return 0;
  } catch (e) {
    const code = e instanceof CommandError ? e.code : 1;
    io.err(`keyhold ${command}: ${(e as Error).message}\n`);
    return code;
  }
}

export function runBackup(file: string, includeMasterKey: boolean, io: Io = processIo): Promise<number> {
  return run('backup', (i) => backup(file, includeMasterKey, i), io);
}

export function runRestore(file: string, masterKeyFile: string | undefined, io: Io = processIo): Promise<number> {
  return run('restore', (i) => restore(file, masterKeyFile, i), io);
}
