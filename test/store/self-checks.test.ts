// Start-up self-checks of what Keyhold takes from its libraries beyond their
// public API (src/store/postgres-repairs.ts, src/store/pglite-sql.ts, src/server/http/listener.ts;
// docs/performance.md): the postgres.js repairs, PGlite's locks, Node's HTTP/2
// compatibility layer. Each must fail loudly, naming the fix,
// when the library is not what Keyhold was written against.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterEach, describe, expect, it } from 'vitest';
import { attachRequestHandler } from '../../src/server/http/listener.js';
import { assertPostgresRepaired, postgresPackageRoot, PostgresDriverNotRepaired, REPAIR_MARKER } from '../../src/store/postgres-repairs.js';
import { assertPgliteInternals } from '../../src/store/pglite-sql.js';
import { repoRoot } from '../support/keyhold.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A postgres package directory holding `files` (path → text). */
function fakeDriver(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'kh-pg-driver-'));
  dirs.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  return root;
}

describe('the postgres.js repairs', () => {
  it('the installed driver carries them, and the repair script writes the marker the check looks for', () => {
    expect(() => assertPostgresRepaired()).not.toThrow();
    expect(readFileSync(join(postgresPackageRoot(), 'src/connection.js'), 'utf8').startsWith(REPAIR_MARKER)).toBe(true);
    expect(readFileSync(join(repoRoot, 'scripts/patch-postgres-js.mjs'), 'utf8')).toContain(`const MARKER = '${REPAIR_MARKER}';`);
  });

  it('an unrepaired driver (npm install --ignore-scripts) is refused, naming the file and the fix', () => {
    const root = fakeDriver({ 'src/connection.js': "import net from 'net'\n", 'src/index.js': `${REPAIR_MARKER}\nexport default 1\n` });
    let thrown: unknown;
    try {
      assertPostgresRepaired(root);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(PostgresDriverNotRepaired);
    expect((thrown as Error).message).toContain('src/connection.js');
    expect((thrown as Error).message).not.toContain('src/index.js');
    expect((thrown as Error).message).toContain('node scripts/patch-postgres-js.mjs');
    expect(() => assertPostgresRepaired(fakeDriver({}))).toThrow(PostgresDriverNotRepaired);
  });
});

describe("PGlite's locks", () => {
  it('are there in the installed PGlite; a PGlite without them is refused, naming them', () => {
    expect(() => assertPgliteInternals(PGlite.prototype)).not.toThrow();
    const renamed = { _checkReady() {}, _runExclusiveQuery() {}, runExclusiveTransaction() {} };
    expect(() => assertPgliteInternals(renamed)).toThrow(/lacks _runExclusiveTransaction, which Keyhold's PGlite adapter/);
  });
});

describe("Node's HTTP/2 compatibility layer", () => {
  it('is found as the one stream listener attaching a request handler adds', () => {
    const server = http2.createServer();
    const compat = attachRequestHandler(server, () => {});
    expect(server.listeners('stream')).toEqual([compat]);
    expect(server.listeners('request')).toHaveLength(1);
  });

  it('a start fails loudly when Node sets the layer up differently', () => {
    // No stream listener appears (e.g. a Node whose compat layer is built in another way).
    expect(() => attachRequestHandler(new EventEmitter() as never, () => {})).toThrow(/node:http2 changed: attaching a 'request' listener added 0 'stream' listeners/);
    // A server whose layer is in place already (a second handler brings none).
    const server = http2.createServer(() => {});
    expect(() => attachRequestHandler(server, () => {})).toThrow(/added 0 'stream' listeners/);
  });
});
