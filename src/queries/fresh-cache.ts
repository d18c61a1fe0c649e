// A read-through cache for lookups that nearly every request repeats (the
// caller behind a token, the OpenID client behind a client id). One seam, one
// set of rules, so each cache built on it only says what it holds and which
// events make it stale:
// - only found values are kept: an unknown key is asked again each time, so a
//   key created a moment ago (here or in another process) works at once, and
//   random keys neither fill the cache nor are remembered as unknown;
// - an entry is trusted for `ttlMs` from the start of its read, which bounds
//   how long a change made by another Keyhold process sharing the PostgreSQL
//   takes to show here;
// - `clear()` (called on this process's own appends) drops everything at once,
//   and a lookup that began before it is not stored;
// - concurrent first lookups of one key share one read;
// - at most `maxEntries`, the oldest evicted first.

export interface FreshCache<V> {
  get(key: string): Promise<V | undefined>;
  clear(): void;
}

export interface FreshCacheOptions {
  ttlMs: number;
  maxEntries: number;
}

export function freshCache<V>(load: (key: string) => Promise<V | undefined>, options: FreshCacheOptions): FreshCache<V> {
  const entries = new Map<string, { value: V; freshUntil: number }>();
  const inFlight = new Map<string, Promise<V | undefined>>();
  let generation = 0;

  function read(key: string): Promise<V | undefined> {
    let pending = inFlight.get(key);
    if (pending) return pending;
    const startedIn = generation;
    // The TTL counts from the read's start: what it answers may be that old already.
    const readAt = Date.now();
    const settle = () => {
      if (inFlight.get(key) === pending) inFlight.delete(key);
    };
    pending = load(key).then(
      (value) => {
        settle();
        if (value !== undefined && startedIn === generation) {
          if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value!);
          entries.set(key, { value, freshUntil: readAt + options.ttlMs });
        }
        return value;
      },
      (err: unknown) => {
        settle();
        throw err;
      },
    );
    inFlight.set(key, pending);
    return pending;
  }

  return {
    async get(key) {
      const entry = entries.get(key);
      if (entry && entry.freshUntil > Date.now()) return entry.value;
      if (entry) entries.delete(key);
      return read(key);
    },
    clear() {
      generation++;
      entries.clear();
      inFlight.clear();
    },
  };
}
