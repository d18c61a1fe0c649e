// First start against an empty database: create the instance and write the
// admin's token to KEYHOLD_ADMIN_PAT_FILE (mode 0600). Any later start, or a
// process that loses the bootstrap race, leaves everything as it is.
//
// Crash safety: the token is on disk (fsynced, in a per-process pending file
// next to the PAT file) before the commit that makes it valid, and is renamed
// into place after it. A process killed between the two leaves a valid token
// in its pending file, and the next start moves it into place — otherwise the
// instance would have an admin whose token nobody has. Pending files of
// attempts that never committed hold no valid token and are removed.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { planBootstrap } from '../domain/identity/bootstrap.js';
import { hashToken } from '../domain/identity/tokens.js';
import { ConcurrencyConflict } from '../store/errors.js';
import type { EventStore } from '../store/event-store.js';
import { INSTANCE_ID } from '../store/events.js';
import type { Database } from '../store/database.js';
import { findPatByHash, isBootstrapped } from '../store/queries/index.js';

export type BootstrapResult = { created: true; adminUserId: string; orgId: string } | { created: false };

/** Per process, so processes racing the bootstrap with one PAT path do not overwrite each other's token. */
export const pendingPatFile = (patFile: string, pid = process.pid) => `${patFile}.${pid}.pending`;

function writeSecretFile(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w', 0o600);
  try {
    fs.writeFileSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(file, 0o600);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function bootstrap(database: Database, store: EventStore, patFile: string, log: Logger): Promise<BootstrapResult> {
  if (await isBootstrapped(database.db)) {
    await recoverPendingPat(database, patFile, log);
    return { created: false };
  }
  const plan = planBootstrap();
  const pending = pendingPatFile(patFile);
  writeSecretFile(pending, plan.adminToken + '\n');
  try {
    await store.append(plan.events, [
      { aggregateType: 'instance', aggregateId: INSTANCE_ID, sequence: 0 },
      { aggregateType: 'org', aggregateId: plan.orgId, sequence: 0 },
      { aggregateType: 'user', aggregateId: plan.adminUserId, sequence: 0 },
    ]);
  } catch (e) {
    if (e instanceof ConcurrencyConflict) {
      fs.rmSync(pending, { force: true });
      return { created: false }; // another process bootstrapped first
    }
    // Anything else (the database went away) may have happened after the
    // commit: the pending file stays for the next start to judge.
    throw e;
  }
  fs.renameSync(pending, patFile);
  fs.chmodSync(patFile, 0o600);
  log.info({ patFile, adminUserId: plan.adminUserId, orgId: plan.orgId }, 'instance bootstrapped; admin token written to file');
  return { created: true, adminUserId: plan.adminUserId, orgId: plan.orgId };
}

/**
 * Pending token files of dead processes: a valid token (its bootstrap
 * committed, the rename did not happen) goes into place when the PAT file is
 * missing; any other is removed. Files of live processes are theirs to finish.
 */
async function recoverPendingPat(database: Database, patFile: string, log: Logger): Promise<void> {
  const dir = path.dirname(patFile);
  const prefix = `${path.basename(patFile)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return; // no directory, no pending file
  }
  for (const name of names) {
    const pid = Number(name.slice(prefix.length, -'.pending'.length));
    if (!name.startsWith(prefix) || !name.endsWith('.pending') || !Number.isInteger(pid) || pid <= 0) continue;
    if (pid !== process.pid && processAlive(pid)) continue;
    const file = path.join(dir, name);
    const token = fs.readFileSync(file, 'utf8').trim();
    const valid = token !== '' && (await findPatByHash(database.db, hashToken(token))) !== undefined;
    if (valid && !fs.existsSync(patFile)) {
      fs.renameSync(file, patFile);
      fs.chmodSync(patFile, 0o600);
      log.warn({ patFile }, 'admin token of an interrupted bootstrap moved into place');
    } else if (!valid || fs.readFileSync(patFile, 'utf8').trim() === token) {
      fs.rmSync(file, { force: true });
    }
  }
}
