// Two Keyholds on one PostgreSQL: `a` in this process (its REST and gRPC
// helpers), `b` a child process, both under one issuer so a login at one and a
// token used at the other are one deployment behind a load balancer. For tests
// of how a change made at one process reaches the other within the caches'
// bound. Call inside a `describe.runIf(postgresAvailable)`.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll } from 'vitest';
import { startChildKeyhold, type ChildKeyhold } from './child-keyhold.js';
import { createPostgresDatabase, tempDir } from './databases.js';
import { startTestKeyhold, type TestKeyhold } from './keyhold.js';

export interface TwoProcesses {
  /** The issuer both answer for (requests sent to either with `sendTo`). */
  readonly issuer: string;
  readonly a: TestKeyhold;
  readonly b: ChildKeyhold;
}

/** Starts both before the describe's tests and stops them (and drops their database) after. */
export function twoProcesses(name: string, issuer = 'http://keyhold.test'): TwoProcesses {
  let a: TestKeyhold | undefined;
  let b: ChildKeyhold | undefined;
  let drop: (() => Promise<void>) | undefined;
  const dirs: string[] = [];
  beforeAll(async () => {
    const pg = await createPostgresDatabase();
    drop = pg.drop;
    dirs.push(await tempDir(`keyhold-${name}-a-`), await tempDir(`keyhold-${name}-b-`));
    a = await startTestKeyhold({ env: { DATABASE_URL: pg.url, KEYHOLD_DATA_DIR: dirs[0]!, KEYHOLD_ISSUER: issuer } });
    b = await startChildKeyhold({ dataDir: dirs[1]!, databaseUrl: pg.url, env: { KEYHOLD_ISSUER: issuer } });
  }, 120_000);
  afterAll(async () => {
    await b?.kill('SIGTERM');
    await a?.close();
    await drop?.();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });
  return {
    issuer,
    get a() {
      if (!a) throw new Error('the first process is not started yet');
      return a;
    },
    get b() {
      if (!b) throw new Error('the second process is not started yet');
      return b;
    },
  };
}

/** Milliseconds until `check` holds (Infinity after `limitMs`), asking every 50 ms. */
export async function within(check: () => Promise<boolean>, limitMs = 3000): Promise<number> {
  const from = Date.now();
  while (Date.now() - from < limitMs) {
    if (await check()) return Date.now() - from;
    await new Promise((r) => setTimeout(r, 50));
  }
  return Infinity;
}
