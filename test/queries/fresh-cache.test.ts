// The read-through cache's rules (src/queries/fresh-cache.ts), given a loader
// that counts its reads: what is kept, for how long, and what clear() undoes.
import { describe, expect, it } from 'vitest';
import { freshCache } from '../../src/queries/fresh-cache.js';
import { cachedClientLookups } from '../../src/queries/client-cache.js';
import type { StoredEvent } from '../../src/domain/events/index.js';

function counted<V>(answer: (key: string) => V | undefined) {
  const reads: string[] = [];
  let release: (() => void) | undefined;
  const gate = { hold: false };
  const load = async (key: string) => {
    reads.push(key);
    // What the database had when the read began, however late it arrives.
    const value = answer(key);
    if (gate.hold) await new Promise<void>((r) => (release = r));
    return value;
  };
  return { reads, load, gate, release: () => release?.() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('freshCache', () => {
  it('keeps a found value for its TTL, then reads it again', async () => {
    const { reads, load } = counted((k) => `v-${k}`);
    const cache = freshCache(load, { ttlMs: 200, maxEntries: 10 });
    expect(await cache.get('a')).toBe('v-a');
    expect(await cache.get('a')).toBe('v-a');
    expect(reads).toEqual(['a']);
    await sleep(250);
    expect(await cache.get('a')).toBe('v-a');
    expect(reads).toEqual(['a', 'a']);
  });

  it('never keeps an unknown key: it is read each time, so a key made elsewhere works at once', async () => {
    let exists = false;
    const { reads, load } = counted((k) => (exists ? k : undefined));
    const cache = freshCache(load, { ttlMs: 10_000, maxEntries: 10 });
    expect(await cache.get('new')).toBeUndefined();
    exists = true;
    expect(await cache.get('new')).toBe('new');
    expect(reads).toEqual(['new', 'new']);
  });

  it('clear() drops what it holds, and a read that began before it is not kept', async () => {
    let version = 1;
    const c = counted(() => `v${version}`);
    const cache = freshCache(c.load, { ttlMs: 10_000, maxEntries: 10 });
    expect(await cache.get('a')).toBe('v1');
    version = 2;
    cache.clear();
    expect(await cache.get('a')).toBe('v2');
    // A read in flight when the change lands answers what it read (v2), but is not kept.
    c.gate.hold = true;
    cache.clear();
    const inFlight = cache.get('a');
    await sleep(5);
    version = 3;
    cache.clear();
    // After clear() a new lookup does not join the read in flight: it reads again.
    c.gate.hold = false;
    expect(await cache.get('a')).toBe('v3');
    c.release();
    expect(await inFlight).toBe('v2');
    version = 4;
    // The later read (v3) is kept; the stale one that finished after it did not replace it.
    expect(await cache.get('a')).toBe('v3');
    expect(c.reads).toEqual(['a', 'a', 'a', 'a']);
    cache.clear();
    expect(await cache.get('a')).toBe('v4');
  });

  it('concurrent first reads of one key share one read; a failed read is not kept', async () => {
    let fail = true;
    const reads: string[] = [];
    const cache = freshCache(
      async (k: string) => {
        reads.push(k);
        await sleep(5);
        if (fail) throw new Error('database unavailable');
        return k;
      },
      { ttlMs: 10_000, maxEntries: 10 },
    );
    const results = await Promise.allSettled([cache.get('a'), cache.get('a'), cache.get('a')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(reads).toEqual(['a']);
    fail = false;
    expect(await Promise.all([cache.get('a'), cache.get('a')])).toEqual(['a', 'a']);
    expect(reads).toEqual(['a', 'a']);
  });

  it('holds at most maxEntries (the oldest goes first)', async () => {
    const { reads, load } = counted((k) => k);
    const cache = freshCache(load, { ttlMs: 10_000, maxEntries: 2 });
    for (const k of ['a', 'b', 'c', 'b', 'c', 'a']) await cache.get(k);
    expect(reads).toEqual(['a', 'b', 'c', 'a']);
  });
});

describe('cachedClientLookups', () => {
  const event = (type: string) => ({ type }) as unknown as StoredEvent;

  it("this process's changes to an app or a machine user's credentials clear it; other events do not", async () => {
    const reads: string[] = [];
    let listener: ((events: readonly StoredEvent[]) => void) | undefined;
    const lookups = cachedClientLookups(
      {
        appByClientId: async (id) => (reads.push(`app ${id}`), { id } as never),
        machineByClientId: async (id) => (reads.push(`machine ${id}`), { clientId: id } as never),
      },
      { ttlMs: 60_000, onAppended: (l) => (listener = l) },
    );
    const both = async () => {
      await lookups.appByClientId('app1');
      await lookups.machineByClientId('machine-1');
    };
    await both();
    await both();
    expect(reads).toHaveLength(2);
    for (const unrelated of ['user.login.succeeded', 'u2f.used', 'project.added', 'user.human.changed']) {
      listener!([event(unrelated)]);
      await both();
    }
    expect(reads).toHaveLength(2);
    const changes = ['app.deactivated', 'app.oidc.secret.changed', 'app.removed', 'user.machine.secret.set', 'user.machine.secret.removed', 'user.deactivated', 'user.reactivated', 'user.locked', 'user.unlocked', 'user.removed'];
    for (const change of changes) {
      const before = reads.length;
      listener!([event('u2f.used'), event(change)]);
      await both();
      expect(reads.length - before, change).toBe(2);
    }
  });
});
