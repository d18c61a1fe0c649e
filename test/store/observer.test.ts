// The store's observer port (src/store/observer.ts): how a failure is named
// for keyhold_database_errors_total, and the read model's finders reporting
// their failures without changing them.
import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict, DatabaseUnavailable, EVENTS_SEQUENCE_KEY, StorageUnavailable, UniqueViolation } from '../../src/store/errors.js';
import { databaseErrorKind, NO_OBSERVER, reportingFailures, type DatabaseErrorKind, type StoreObserver } from '../../src/store/observer.js';

/** A driver error as postgres.js and PGlite raise them, wrapped by drizzle the way it does. */
const driver = (code: string, extra: Record<string, unknown> = {}) => ({ message: 'wrapped', cause: Object.assign(new Error(`driver ${code}`), { code, ...extra }) });

describe('databaseErrorKind', () => {
  const cases: [string, unknown, DatabaseErrorKind][] = [
    ['a refused connection', driver('ECONNREFUSED'), 'unavailable'],
    ['an admin shutdown', driver('57P01'), 'unavailable'],
    ['DatabaseUnavailable', new DatabaseUnavailable(), 'unavailable'],
    ['a full disk', driver('53100'), 'storage_full'],
    ['a read-only standby', driver('25006'), 'storage_unavailable'],
    ['StorageUnavailable (full)', new StorageUnavailable('STORAGE_FULL', 'full'), 'storage_full'],
    ['the sequence key (a concurrent append)', driver('23505', { constraint_name: EVENTS_SEQUENCE_KEY }), 'conflict'],
    ['a serialization failure', driver('40001'), 'conflict'],
    ['ConcurrencyConflict', new ConcurrencyConflict(), 'conflict'],
    ['a taken name', driver('23505', { constraint: 'apps_project_name_key' }), 'unique_violation'],
    ['UniqueViolation', new UniqueViolation('apps_project_name_key'), 'unique_violation'],
    ['a syntax error', driver('42601'), 'other'],
    ['no driver code at all', new Error('boom'), 'other'],
  ];
  for (const [what, err, kind] of cases) it(`${what} → ${kind}`, () => expect(databaseErrorKind(err)).toBe(kind));
});

describe('reportingFailures', () => {
  it('reports each failed call once, passes the same rejection on, and leaves successes and plain values alone', async () => {
    const seen: DatabaseErrorKind[] = [];
    const observer: StoreObserver = { ...NO_OBSERVER, databaseError: (kind) => seen.push(kind) };
    const lost = driver('ECONNRESET');
    const finders = reportingFailures(
      { ok: async (x: number) => x + 1, lost: async () => Promise.reject(lost), plain: (x: number) => x * 2, limit: 5 },
      observer,
    );
    expect(await finders.ok(1)).toBe(2);
    expect(finders.plain(4)).toBe(8);
    expect(finders.limit).toBe(5);
    await expect(finders.lost()).rejects.toBe(lost);
    expect(seen).toEqual(['unavailable']);
  });

  it('without an observer the object is returned as it is (no wrapper on the hot paths)', () => {
    const finders = { a: async () => 1 };
    expect(reportingFailures(finders, NO_OBSERVER)).toBe(finders);
  });
});
