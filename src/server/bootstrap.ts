// First start against an empty database: create the instance and write the
// admin's token to KEYHOLD_ADMIN_PAT_FILE (mode 0600). Any later start, or a
// process that loses the bootstrap race, leaves everything as it is.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { planBootstrap } from '../domain/identity/bootstrap.js';
import { ConcurrencyConflict } from '../store/errors.js';
import type { EventStore } from '../store/event-store.js';
import { INSTANCE_ID } from '../store/events.js';
import type { Database } from '../store/database.js';
import { isBootstrapped } from '../store/queries/index.js';

export type BootstrapResult = { created: true; adminUserId: string; orgId: string } | { created: false };

export async function bootstrap(database: Database, store: EventStore, patFile: string, log: Logger): Promise<BootstrapResult> {
  if (await isBootstrapped(database.db)) return { created: false };
  const plan = planBootstrap();
  try {
    await store.append(plan.events, [
      { aggregateType: 'instance', aggregateId: INSTANCE_ID, sequence: 0 },
      { aggregateType: 'org', aggregateId: plan.orgId, sequence: 0 },
      { aggregateType: 'user', aggregateId: plan.adminUserId, sequence: 0 },
    ]);
  } catch (e) {
    if (e instanceof ConcurrencyConflict) return { created: false }; // another process bootstrapped first
    throw e;
  }
  fs.mkdirSync(path.dirname(patFile), { recursive: true });
  fs.writeFileSync(patFile, plan.adminToken + '\n', { mode: 0o600 });
  fs.chmodSync(patFile, 0o600);
  log.info({ patFile, adminUserId: plan.adminUserId, orgId: plan.orgId }, 'instance bootstrapped; admin token written to file');
  return { created: true, adminUserId: plan.adminUserId, orgId: plan.orgId };
}
