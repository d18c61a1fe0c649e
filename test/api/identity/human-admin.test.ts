// The human admin. Every start makes sure the instance has
// one (keyhold-admin, IAM_OWNER, a random password that must be changed at the
// first login, written next to the PAT file with mode 0600) — on a new instance
// and on one bootstrapped before it existed; a restart makes no second one.
import fs from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { HUMAN_ADMIN_USERNAME } from '../../../src/commands/instance/add-human-admin.js';
import { loginUser, verifyPassword } from '../../../src/queries/passwords.js';
import { adminPasswordFile, bootstrap, ensureHumanAdmin } from '../../../src/server/bootstrap.js';
import { loadConfig } from '../../../src/server/config.js';
import { loggerOptions } from '../../../src/server/logger.js';
import { startKeyhold } from '../../../src/server/start.js';
import { openDatabase } from '../../../src/store/database.js';
import { createEventStore } from '../../../src/store/event-store.js';
import { createReadModel } from '../../../src/store/read-model.js';
import { tempDir } from '../../support/databases.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('the human admin', () => {
  it('a new instance gets keyhold-admin: IAM_OWNER, password file 0600 next to the PAT, change required; a restart keeps it', async () => {
    const dataDir = await tempDir('keyhold-human-admin-');
    dirs.push(dataDir);
    const config = loadConfig({ KEYHOLD_PORT: '0', KEYHOLD_DATA_DIR: dataDir, KEYHOLD_LOG_LEVEL: 'info' });
    const lines: string[] = [];
    const kh = await startKeyhold(config, pino(loggerOptions(config), { write: (l: string) => void lines.push(l) }));
    let password: string;
    let userId: string;
    try {
      expect(kh.humanAdmin.created).toBe(true);
      const file = adminPasswordFile(config.adminPatFile);
      expect(path.dirname(file)).toBe(path.dirname(config.adminPatFile));
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      password = fs.readFileSync(file, 'utf8').trim();
      expect(password.length).toBeGreaterThanOrEqual(20);
      const found = await loginUser(kh.readModel, HUMAN_ADMIN_USERNAME);
      expect(found.found).toBe('one');
      userId = (found as { user: { id: string } }).user.id;
      expect(await verifyPassword(kh.readModel, userId, password)).toMatchObject({ result: 'ok', changeRequired: true });
      expect(await kh.readModel.membershipsOf(userId)).toEqual([expect.objectContaining({ scopeType: 'instance', roles: ['IAM_OWNER'] })]);
      expect(lines.join('\n')).not.toContain(password);
    } finally {
      await kh.stop();
    }
    const again = await startKeyhold(config, pino({ level: 'silent' }));
    try {
      expect(again.humanAdmin).toEqual({ created: false });
      expect(fs.readFileSync(adminPasswordFile(config.adminPatFile), 'utf8').trim()).toBe(password);
      expect((await again.readModel.usersByLoginName(HUMAN_ADMIN_USERNAME, undefined, 5)).map((u) => u.id)).toEqual([userId]);
    } finally {
      await again.stop();
    }
  }, 60_000);

  it('an instance bootstrapped before the human admin existed gets one at the next start, once', async () => {
    const dataDir = await tempDir('keyhold-human-admin-old-');
    dirs.push(dataDir);
    const patFile = path.join(dataDir, 'admin.pat');
    const database = await openDatabase({ dataDir });
    const log = pino({ level: 'silent' });
    try {
      const read = createReadModel(database);
      const events = createEventStore(database);
      // What bootstrap alone makes, as on an instance older than the human admin: the machine admin only.
      expect((await bootstrap(read, events, patFile, log)).created).toBe(true);
      expect(await loginUser(read, HUMAN_ADMIN_USERNAME)).toEqual({ found: 'none' });
      const made = await ensureHumanAdmin(read, events, patFile, log);
      expect(made.created).toBe(true);
      expect(await ensureHumanAdmin(read, events, patFile, log)).toEqual({ created: false });
      const password = fs.readFileSync(adminPasswordFile(patFile), 'utf8').trim();
      expect((await verifyPassword(read, (made as { userId: string }).userId, password)).result).toBe('ok');
    } finally {
      await database.close();
    }
  }, 60_000);
});
