// The control socket: how `keyhold backup` gets a consistent copy of a running
// embedded Keyhold (docs/decisions.md, docs/security.md section 21). A Unix
// socket in the data directory, `<dataDir>/keyhold.sock`, answering one request:
// POST /backup, a tar stream of a snapshot of the database (pgdata/…), with the
// master key's check (server/oidc/keys.ts masterKeyCheck) in a header, never the key.
//
// Who can ask: whoever can open the socket, i.e. the data directory's owner (the
// directory is 0700, the socket 0600) — who can read every file there, the
// master key included, anyway. It is never a TCP port; PostgreSQL deployments
// have none (pg_dump makes their backups).
//
// The snapshot is made into `<dataDir>/backup-snapshot.<random>` (store/pglite-
// snapshot.ts) and streamed from there, so a slow or stuck reader never holds the
// database; it is deleted when the answer ends or breaks, and any left by a
// process that died is deleted at the next start. One backup at a time: the copy
// needs as much free space as the database itself.
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import http from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import { StorageUnavailable } from '../store/errors.js';
import { directoryEntries, tarStream } from '../store/tar.js';

export const CONTROL_SOCKET = 'keyhold.sock';
export const SNAPSHOT_PREFIX = 'backup-snapshot.';
/** The header of a backup answer naming the running key's check. */
export const MASTER_KEY_CHECK_HEADER = 'keyhold-master-key-check';
/**
 * A Unix socket's path must fit sockaddr_un (108 bytes on Linux, 104 on macOS,
 * the terminating NUL included); longer data directory paths get no socket.
 */
export const MAX_SOCKET_PATH_BYTES = 100;
/** A reader that takes nothing for this long is dropped (and its snapshot deleted). */
const IDLE_MS = 60_000;

export const controlSocketPath = (dataDir: string) => join(dataDir, CONTROL_SOCKET);

export interface ControlSocket {
  /** The socket's path, or undefined when this start offers none (logged why). */
  readonly path: string | undefined;
  close(): Promise<void>;
}

export interface ControlSocketOptions {
  dataDir: string;
  /** Copies the database into the new directory `target` (Database.snapshot). */
  snapshot(target: string): Promise<void>;
  /** The running master key's check (server/oidc/keys.ts). */
  masterKeyCheck: string;
  log: Logger;
}

/** Snapshot directories of an earlier process (this one holds the data directory's lock: none is in use). */
function removeLeftoverSnapshots(dataDir: string): void {
  for (const name of readdirSync(dataDir)) {
    if (name.startsWith(SNAPSHOT_PREFIX)) rmSync(join(dataDir, name), { recursive: true, force: true });
  }
}

function answer(res: http.ServerResponse, status: number, error: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', ...(status === 503 ? { 'retry-after': '10' } : {}) });
  res.end(JSON.stringify({ error, message }));
}

export async function openControlSocket(opts: ControlSocketOptions): Promise<ControlSocket> {
  const { dataDir, log } = opts;
  const path = controlSocketPath(dataDir);
  const none: ControlSocket = { path: undefined, close: async () => {} };
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    log.warn({ path, bytes: Buffer.byteLength(path), max: MAX_SOCKET_PATH_BYTES }, 'no control socket: its path would be too long for a Unix socket; `keyhold backup` can back up this data directory only while Keyhold is stopped');
    return none;
  }
  try {
    removeLeftoverSnapshots(dataDir);
    // This process holds the directory's lock: a socket there is a dead process's.
    const existing = lstatSync(path, { throwIfNoEntry: false });
    if (existing?.isSocket()) unlinkSync(path);
    else if (existing) {
      log.warn({ path }, 'no control socket: something that is not a socket has its name; `keyhold backup` can back up this data directory only while Keyhold is stopped');
      return none;
    }
  } catch (err) {
    log.warn({ err, path }, 'no control socket: the data directory could not be prepared for it');
    return none;
  }

  let busy = false;
  const server = http.createServer((req, res) => {
    if (req.url !== '/backup') return answer(res, 404, 'NOT_FOUND', 'the control socket answers POST /backup only');
    if (req.method !== 'POST') return answer(res, 405, 'METHOD_NOT_ALLOWED', 'POST /backup');
    if (busy) return answer(res, 409, 'BACKUP_IN_PROGRESS', 'a backup is being made; run keyhold backup again once it is done');
    busy = true;
    const target = join(dataDir, `${SNAPSHOT_PREFIX}${randomBytes(6).toString('hex')}`);
    const started = performance.now();
    void (async () => {
      try {
        // Copying a large database sends nothing for a while: only the answer's stream is held to the idle bound.
        req.socket.setTimeout(0);
        try {
          await opts.snapshot(target);
        } catch (err) {
          log.error({ err }, 'backup: the database snapshot failed');
          const storage = err instanceof StorageUnavailable;
          return answer(res, 503, storage ? err.reason : 'SNAPSHOT_FAILED', `the running Keyhold could not copy its database: ${(err as Error).message}`);
        }
        const snapshotMs = Math.round(performance.now() - started);
        req.socket.setTimeout(IDLE_MS);
        res.writeHead(200, { 'content-type': 'application/x-tar', [MASTER_KEY_CHECK_HEADER]: opts.masterKeyCheck });
        try {
          await pipeline(tarStream(directoryEntries(target, 'pgdata')), res);
          log.info({ snapshotMs, totalMs: Math.round(performance.now() - started) }, 'backup: database snapshot sent to keyhold backup on the control socket');
        } catch (err) {
          log.warn({ err, snapshotMs }, 'backup: the snapshot was not sent whole (the reader went away?)');
          res.destroy();
        }
      } finally {
        await rm(target, { recursive: true, force: true }).catch((err: unknown) => log.warn({ err, target }, 'backup: the snapshot directory could not be deleted'));
        busy = false;
      }
    })();
  });
  server.setTimeout(IDLE_MS);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    // Inside the 0700 directory already; its own mode says the same.
    chmodSync(path, 0o600);
  } catch (err) {
    server.close();
    log.warn({ err, path }, 'no control socket: listening on it failed; `keyhold backup` can back up this data directory only while Keyhold is stopped');
    return none;
  }
  server.on('error', (err) => log.warn({ err }, 'control socket error'));
  let closing: Promise<void> | undefined;
  return {
    path,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => {
        // Node leaves the socket file behind on some platforms.
        if (lstatSync(path, { throwIfNoEntry: false })?.isSocket()) unlinkSync(path);
      })),
  };
}
