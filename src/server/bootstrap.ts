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
import { addHumanAdmin, HUMAN_ADMIN_USERNAME } from '../commands/instance/add-human-admin.js';
import { bootstrapInstance, planBootstrap } from '../commands/instance/bootstrap.js';
import { addConsoleApp, allowConsoleApiAccess, CONSOLE_CLIENT_ID, CONSOLE_PROJECT_ID, consoleRedirectUri } from '../commands/instance/add-console-app.js';
import type { EventStore, Ids, Secrets } from '../commands/ports.js';
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import { generateClientSecret } from '../domain/oidc/index.js';
import { hashToken } from '../domain/identity/tokens.js';
import { loginUser, verifyPassword } from '../queries/passwords.js';
import type { ReadModel } from '../queries/read-model.js';
import { cryptoSecrets, randomIds } from './ports.js';

type BootstrapReads = Pick<ReadModel, 'isBootstrapped' | 'patByHash'>;

export type BootstrapResult = { created: true; adminUserId: string; orgId: string } | { created: false };

/** Per process, so processes racing the bootstrap with one PAT path do not overwrite each other's token. */
export const pendingPatFile = (patFile: string, pid = process.pid) => `${patFile}.${pid}.pending`;

function writeSecretFile(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Always a new file: a left-over one would keep its mode, and whoever opened
  // it while it was readable would keep reading it (chmod revokes no open file).
  fs.rmSync(file, { force: true });
  const fd = fs.openSync(file, 'wx', 0o600);
  try {
    fs.writeFileSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function bootstrap(
  read: BootstrapReads,
  events: EventStore,
  patFile: string,
  log: Logger,
  ports: { ids: Ids; secrets: Secrets } = { ids: randomIds, secrets: cryptoSecrets },
): Promise<BootstrapResult> {
  if (await read.isBootstrapped()) {
    await recoverPendingPat(read, patFile, log);
    return { created: false };
  }
  const plan = planBootstrap(ports);
  const pending = pendingPatFile(patFile);
  writeSecretFile(pending, plan.adminToken + '\n');
  try {
    await bootstrapInstance({ events }, plan);
  } catch (e) {
    if (e instanceof KeyholdError && e.reason === 'ID_TAKEN') {
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
 * What the start line says about the admin token: only a process that
 * bootstrapped wrote the file. A later start — or a second process on an
 * already bootstrapped PostgreSQL, whose KEYHOLD_ADMIN_PAT_FILE may name a file
 * that was never written — must not point an operator at a token it never made.
 */
export function adminTokenSummary(result: BootstrapResult, patFile: string): { text: string; fields: Record<string, unknown> } {
  if (result.created) return { text: `instance bootstrapped, admin token written to ${patFile}`, fields: { bootstrapped: true, adminPatFile: patFile } };
  const exists = fs.existsSync(patFile);
  return {
    text: exists
      ? `instance was already bootstrapped; no admin token written (${patFile} is from an earlier start)`
      : 'instance was already bootstrapped; no admin token written (the first start wrote it to its own KEYHOLD_ADMIN_PAT_FILE)',
    fields: { bootstrapped: false, ...(exists ? { adminPatFile: patFile } : {}) },
  };
}

/**
 * Pending token files of dead processes: a valid token (its bootstrap
 * committed, the rename did not happen) goes into place when the PAT file is
 * missing; any other is removed. Files of live processes are theirs to finish.
 */
async function recoverPendingPat(read: BootstrapReads, patFile: string, log: Logger): Promise<void> {
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
    const valid = token !== '' && (await read.patByHash(hashToken(token))) !== undefined;
    if (valid && !fs.existsSync(patFile)) {
      fs.renameSync(file, patFile);
      fs.chmodSync(patFile, 0o600);
      log.warn({ patFile }, 'admin token of an interrupted bootstrap moved into place');
    } else if (!valid || fs.readFileSync(patFile, 'utf8').trim() === token) {
      fs.rmSync(file, { force: true });
    }
  }
}

// --- the human admin ---------------------------------------------------------

/** Where the human admin's initial password is written: next to the PAT file. */
export const adminPasswordFile = (patFile: string) => path.join(path.dirname(patFile), 'admin.password');

type HumanAdminReads = Pick<ReadModel, 'defaultOrgId' | 'usersByLoginName' | 'passwordOf'>;

export type HumanAdminResult = { created: true; userId: string; passwordFile: string } | { created: false };

/**
 * Makes the human admin (HUMAN_ADMIN_USERNAME, IAM_OWNER, a random initial
 * password that must be changed at the first login) when the instance has none
 * — on a new instance and on one bootstrapped before it existed — and writes
 * the password like the PAT: a per-process pending file (0600, fsynced) before
 * the commit, renamed into place after it. Idempotent: a later start finds the
 * user and only moves a valid pending password of an interrupted start into place.
 */
export async function ensureHumanAdmin(
  read: HumanAdminReads,
  events: EventStore,
  patFile: string,
  log: Logger,
  ports: { ids: Ids; secrets: Secrets } = { ids: randomIds, secrets: cryptoSecrets },
): Promise<HumanAdminResult> {
  const file = adminPasswordFile(patFile);
  const existing = await loginUser(read, HUMAN_ADMIN_USERNAME);
  if (existing.found !== 'none') {
    if (existing.found === 'one') await recoverPendingPassword(read, existing.user.id, file, log);
    return { created: false };
  }
  const orgId = await read.defaultOrgId();
  if (!orgId) return { created: false };
  const password = generateClientSecret().slice(0, 24); // ~143 bits from the CSPRNG
  const userId = ports.ids.newId();
  const pending = pendingPatFile(file);
  writeSecretFile(pending, password + '\n');
  try {
    await addHumanAdmin({ events }, { userId, orgId, password, passwordHash: await ports.secrets.passwordHash(password) });
  } catch (e) {
    if (e instanceof KeyholdError && (e.reason === 'USERNAME_TAKEN' || e.reason === 'USER_ID_TAKEN')) {
      fs.rmSync(pending, { force: true });
      return { created: false }; // another process made it first
    }
    throw e; // may have committed: the pending file stays for the next start to judge
  }
  fs.renameSync(pending, file);
  fs.chmodSync(file, 0o600);
  log.info({ passwordFile: file, userId, username: HUMAN_ADMIN_USERNAME }, 'human admin created; initial password written to file (to be changed at first login)');
  return { created: true, userId, passwordFile: file };
}

/** Pending password files of dead processes: the admin's current password goes into place when the file is missing; others are removed. */
async function recoverPendingPassword(read: HumanAdminReads, userId: string, file: string, log: Logger): Promise<void> {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(name.slice(prefix.length, -'.pending'.length));
    if (!name.startsWith(prefix) || !name.endsWith('.pending') || !Number.isInteger(pid) || pid <= 0) continue;
    if (pid !== process.pid && processAlive(pid)) continue;
    const pendingFile = path.join(dir, name);
    const password = fs.readFileSync(pendingFile, 'utf8').trim();
    const valid = password !== '' && (await verifyPassword(read, userId, password)).result === 'ok';
    if (valid && !fs.existsSync(file)) {
      fs.renameSync(pendingFile, file);
      fs.chmodSync(file, 0o600);
      log.warn({ passwordFile: file }, 'admin password of an interrupted start moved into place');
    } else {
      fs.rmSync(pendingFile, { force: true });
    }
  }
}

// --- the console's app -------------------------------------------------------

/**
 * Makes the console's `Keyhold` project and USER_AGENT app (commands/instance/
 * add-console-app.ts) when the instance has none — at every start, so
 * instances bootstrapped before get it too — and allows it the API audience
 * unless that was ever decided. Idempotent; of two processes racing, one
 * commits and the other meets ID_TAKEN (and then finds the app).
 */
export async function ensureConsoleApp(
  read: Pick<ReadModel, 'appByClientId' | 'defaultOrgId'>,
  events: EventStore,
  issuer: string,
  log: Logger,
): Promise<{ created: boolean }> {
  const allowFound = async () => {
    const found = await read.appByClientId(CONSOLE_CLIENT_ID);
    if (found && !found.apiAccess) await allowConsoleApiAccess({ events }, { projectId: found.projectId });
    return found !== undefined;
  };
  if (await allowFound()) return { created: false };
  const orgId = await read.defaultOrgId();
  if (!orgId) return { created: false };
  try {
    await addConsoleApp({ events }, { orgId, issuer, actor: 'keyhold' });
  } catch (e) {
    if (!(e instanceof KeyholdError && e.reason === 'ID_TAKEN')) throw e;
    // Another process made it a moment ago (or the console's project stayed after its app was removed).
    await allowFound();
    return { created: false };
  }
  await allowConsoleApiAccess({ events }, { projectId: CONSOLE_PROJECT_ID });
  log.info({ clientId: CONSOLE_CLIENT_ID, redirectUri: consoleRedirectUri(issuer) }, 'console app created: the console signs in through the login');
  return { created: true };
}
