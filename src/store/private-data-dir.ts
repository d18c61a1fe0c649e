// The PGlite data directory holds every secret hash, challenge and event: only
// the owner may read or write it (0700 directories, 0600 files), as PostgreSQL
// insists for its own data directory.
//
// Why it was not: PGlite runs initdb on an in-memory scratch file system and
// copies the result into the real directory with the scratch's modes (0666
// files), and emscripten's file layer creates every file 0777 & ~umask and then
// chmods it to the mode asked for, after applying its own emulated umask (0022)
// — chmod ignores the process umask. Under umask 0022, 969 of 1,027 files were
// 0666 (pg_control, postgresql.conf, every heap file); files PostgreSQL opens
// through fopen (pg_internal.init, statistics) came out 0644.
//
// So: (1) the Keyhold data directory is made 0700 before anything is created
// in it, which alone keeps everyone else out of everything below it; (2) an
// existing pgdata is swept to 0700/0600 at each start (directories of earlier
// versions); (3) PGlite gets a NodeFS whose create and chmod operations drop the
// group and other bits, so files it creates later (relations, WAL segments,
// pg_internal.init) are private from their first moment. A directory that stays
// group- or world-accessible because it cannot be changed stops the start.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { DataDirPermissions } from './errors.js';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
/** Permission bits of the group and of others. */
const SHARED_BITS = 0o077;

/** Whether a file or directory with these permission bits lets anyone but its owner in. */
export const isShared = (mode: number): boolean => (mode & SHARED_BITS) !== 0;

/** The mode a path should have, or undefined for what is left alone (symbolic links: chmod would follow them). */
function wanted(isDirectory: boolean, isFile: boolean): number | undefined {
  return isDirectory ? PRIVATE_DIR_MODE : isFile ? PRIVATE_FILE_MODE : undefined;
}

/**
 * Makes `path` private (one path, not recursive). When it cannot be changed
 * (not the owner: EPERM; a read-only mount: EROFS) and is still shared, throws
 * DataDirPermissions naming it. A private path that cannot be changed is fine.
 */
function makePrivate(path: string, dataDir: string): void {
  const stat = lstatSync(path);
  const mode = wanted(stat.isDirectory(), stat.isFile());
  if (mode === undefined || (stat.mode & 0o777) === mode) return;
  try {
    chmodSync(path, mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown error';
    if (isShared(stat.mode)) throw new DataDirPermissions(dataDir, path, stat.mode & 0o777, stat.uid, code);
  }
}

function sweep(path: string, dataDir: string): void {
  makePrivate(path, dataDir);
  if (!lstatSync(path).isDirectory()) return;
  for (const name of readdirSync(path)) sweep(join(path, name), dataDir);
}

/**
 * Creates `dataDir` when missing and makes it and everything under
 * `<dataDir>/pgdata` owner-only; throws DataDirPermissions when a shared path
 * cannot be fixed. Other files in `dataDir` (the lock, the admin token) are
 * Keyhold's own and written 0600.
 */
export function securePgliteDir(dataDir: string, pgdata: string): void {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  makePrivate(dataDir, dataDir);
  // Made here: NodeFS would create it with the process umask.
  mkdirSync(pgdata, { recursive: true, mode: PRIVATE_DIR_MODE });
  sweep(pgdata, dataDir);
}

/** Makes an existing directory and everything below it owner-only (a pgdata prepared elsewhere, ./pglite-open.ts). */
export function securePgdata(pgdata: string, dataDir: string): void {
  sweep(pgdata, dataDir);
}

// The slice of emscripten's NODEFS this relies on (PGlite 0.5: Module.NODEFS).
interface NodeOps {
  mknod(parent: unknown, name: string, mode: number, dev: number): unknown;
  setattr(node: unknown, attr: { mode?: number }): void;
}
interface EmscriptenNodeFs {
  node_ops: NodeOps;
  stream_ops: { setattr(stream: unknown, attr: { mode?: number }): void };
}
const PATCHED = Symbol('keyhold.privateModes');

/** Wraps NODEFS so that every mode it creates or sets loses the group and other bits. */
function dropSharedBits(nodefs: EmscriptenNodeFs & { [PATCHED]?: true }): void {
  if (nodefs[PATCHED]) return;
  const { mknod, setattr } = nodefs.node_ops;
  const streamSetattr = nodefs.stream_ops.setattr;
  const privately = <A extends { mode?: number }>(attr: A): A => (attr.mode == null ? attr : { ...attr, mode: attr.mode & ~SHARED_BITS });
  nodefs.node_ops.mknod = (parent, name, mode, dev) => mknod(parent, name, mode & ~SHARED_BITS, dev);
  nodefs.node_ops.setattr = (node, attr) => setattr(node, privately(attr));
  nodefs.stream_ops.setattr = (stream, attr) => streamSetattr(stream, privately(attr));
  nodefs[PATCHED] = true;
}

/**
 * PGlite's NodeFS on `pgdata`, creating every file and directory owner-only.
 * Throws at open when PGlite's file layer no longer looks as expected (an
 * upgrade): better no start than a database others can write.
 */
export class PrivateNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]) {
    const { emscriptenOpts } = await super.init(pg, opts);
    const preRun = emscriptenOpts.preRun ?? [];
    return {
      emscriptenOpts: {
        ...emscriptenOpts,
        // Before NodeFS's own hook mounts the directory.
        preRun: [
          (mod: unknown) => {
            const nodefs = (mod as { NODEFS?: EmscriptenNodeFs }).NODEFS;
            if (typeof nodefs?.node_ops?.mknod !== 'function' || typeof nodefs.stream_ops?.setattr !== 'function') {
              throw new Error('PGlite file layer changed (no NODEFS node_ops): Keyhold cannot keep the database files private');
            }
            dropSharedBits(nodefs);
          },
          ...preRun,
        ],
      },
    };
  }
}
