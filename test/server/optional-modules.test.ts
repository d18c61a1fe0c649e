// The modules only some configurations use are loaded when first used, not at
// start-up: a server with no mail server and no sign-in through another
// provider does not carry nodemailer or openid-client, and one on PostgreSQL
// does not carry PGlite (docs/performance.md, "Optional modules loaded on first
// use"). Each start runs the build with a module hook that writes down every
// file Node loads, and is stopped once /healthz answers.
import { readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startChildKeyhold } from '../support/child-keyhold.js';
import { announcePostgresSkip, createPostgresDatabase, postgresAvailable, tempDir } from '../support/databases.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

const OPTIONAL = ['/node_modules/nodemailer/', '/node_modules/openid-client/', '/node_modules/@electric-sql/pglite/', '/node_modules/drizzle-orm/pglite/'];

/** Starts the build (on PGlite without `databaseUrl`), waits for /healthz, stops it; every file URL it loaded by then. */
async function loadedAtStart(databaseUrl?: string): Promise<string[]> {
  const dir = await tempDir();
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const list = path.join(dir, 'loaded.txt');
  writeFileSync(list, '');
  const hooks = path.join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(list)}, url + '\\n');
  return next(url, context);
}
`,
  );
  const register = path.join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  const child = await startChildKeyhold({ entry: 'build', nodeArgs: ['--import', pathToFileURL(register).href], dataDir: path.join(dir, 'data'), databaseUrl });
  cleanups.push(async () => void (await child.kill('SIGKILL')));
  expect((await fetch(`${child.url}/healthz`)).status).toBe(200);
  expect(await child.kill('SIGTERM'), child.output.join('\n')).toEqual({ code: 0, signal: null });
  return readFileSync(list, 'utf8').split('\n').filter(Boolean);
}

const optionalIn = (loaded: string[]) => OPTIONAL.filter((dir) => loaded.some((url) => url.includes(dir)));

describe('modules loaded at start-up', () => {
  it('on PGlite: PGlite and its driver, but neither the mail library nor the upstream sign-in library', { timeout: 90_000 }, async () => {
    const loaded = await loadedAtStart();
    // The hook sees packages: the protocol library is loaded at every start.
    expect(loaded.some((url) => url.includes('/node_modules/oidc-provider/'))).toBe(true);
    expect(optionalIn(loaded)).toEqual(['/node_modules/@electric-sql/pglite/', '/node_modules/drizzle-orm/pglite/']);
  });

  announcePostgresSkip('modules loaded at start-up on PostgreSQL');

  it.skipIf(!postgresAvailable)('on PostgreSQL: none of them', { timeout: 90_000 }, async () => {
    const created = await createPostgresDatabase();
    cleanups.push(() => created.drop());
    const loaded = await loadedAtStart(created.url);
    expect(loaded.some((url) => url.includes('/node_modules/postgres/'))).toBe(true);
    expect(optionalIn(loaded)).toEqual([]);
  });
});
