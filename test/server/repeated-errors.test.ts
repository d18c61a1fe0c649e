// The same server-side error, over and over (a full disk, a lost database),
// is logged once with its stack, then once per interval with a count — never a
// line per request. Real pino output, parsed as an operator's tools would.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { repeatedErrorLog } from '../../src/server/repeated-errors.js';
import { DatabaseUnavailable, StorageUnavailable } from '../../src/store/errors.js';

function logger() {
  const lines: any[] = [];
  const log = pino({ base: null }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines };
}
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

let flush: (() => void) | undefined;
afterEach(() => flush?.());

describe('repeated server-side errors', () => {
  it('1,000 identical failures in one interval: the first with its stack, then one line with the count', async () => {
    const { log, lines } = logger();
    const errors = repeatedErrorLog(log, { intervalMs: 300 });
    flush = errors.flush;
    for (let i = 0; i < 1000; i++) errors.error(new StorageUnavailable('STORAGE_FULL', 'disk full'), { rpc: 'AddOIDCApp' }, 'request failed on the server side');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, rpc: 'AddOIDCApp', err: { type: 'StorageUnavailable', message: 'disk full' }, msg: 'request failed on the server side' });
    expect(lines[0].err.stack).toContain('StorageUnavailable: disk full');
    await pause(450);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ rpc: 'AddOIDCApp', err: { type: 'StorageUnavailable', message: 'disk full' }, repeated: 999, msg: 'request failed on the server side (999 more times in the last 0.3 s)' });
    expect(lines[1].err.stack).toBe('');
  });

  it("one driver code is one kind whatever its detail (read or write, the connection's port); another code is another", () => {
    const { log, lines } = logger();
    const errors = repeatedErrorLog(log, { intervalMs: 300 });
    flush = errors.flush;
    for (const detail of ['read ECONNRESET', 'write ECONNRESET', 'write ECONNRESET 127.0.0.1:43585', 'read ECONNRESET 127.0.0.1:43601']) {
      errors.error(new DatabaseUnavailable(`the database is unavailable (ECONNRESET: ${detail})`), { rpc: 'AddOIDCApp' }, 'request failed on the server side');
    }
    errors.error(new DatabaseUnavailable('the database is unavailable (CONNECT_TIMEOUT: write CONNECT_TIMEOUT 127.0.0.1:43585)'), { rpc: 'AddOIDCApp' }, 'request failed on the server side');
    expect(lines.map((l) => l.err.message)).toEqual(['the database is unavailable (ECONNRESET: read ECONNRESET)', 'the database is unavailable (CONNECT_TIMEOUT: write CONNECT_TIMEOUT 127.0.0.1:43585)']);
  });

  it('a failure that keeps recurring gets one line per interval; after a quiet interval the next is logged in full again', async () => {
    const { log, lines } = logger();
    const errors = repeatedErrorLog(log, { intervalMs: 300 });
    flush = errors.flush;
    const fail = () => errors.error(new DatabaseUnavailable('gone'), { rpc: 'GetAppByID' }, 'request failed on the server side');
    fail();
    fail();
    fail();
    await pause(450); // the first interval's count; the second interval runs
    fail();
    fail();
    await pause(1_000); // its count, then a quiet interval: forgotten
    fail();
    expect(lines.map((l) => l.repeated ?? 'first')).toEqual(['first', 2, 2, 'first']);
    expect(lines.reduce((n, l) => n + (l.repeated ?? 1), 0)).toBe(6);
  });

  it('different failures, or the same one in another RPC, are logged separately; flush writes the counts still open', () => {
    const { log, lines } = logger();
    const errors = repeatedErrorLog(log, { intervalMs: 60_000 });
    flush = errors.flush;
    errors.error(new DatabaseUnavailable('gone'), { rpc: 'A' }, 'request failed on the server side');
    errors.error(new DatabaseUnavailable('gone'), { rpc: 'B' }, 'request failed on the server side');
    errors.error(new StorageUnavailable('STORAGE_FULL', 'full'), { rpc: 'A' }, 'request failed on the server side');
    errors.error(new DatabaseUnavailable('gone'), { rpc: 'A' }, 'request failed on the server side');
    expect(lines.map((l) => [l.rpc, l.err.type])).toEqual([
      ['A', 'DatabaseUnavailable'],
      ['B', 'DatabaseUnavailable'],
      ['A', 'StorageUnavailable'],
    ]);
    errors.flush();
    expect(lines.slice(3).map((l) => [l.rpc, l.repeated])).toEqual([['A', 1]]);
  });
});
