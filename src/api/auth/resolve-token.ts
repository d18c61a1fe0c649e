// Bearer token → Caller: hash lookup of the personal access token (with its
// user), expiry check, then the user's memberships.
//
// Resolved callers are cached, because without it every request pays two
// queries before its own work (bench: the largest share of the round trips of
// AddOIDCApp). The cache is small and short-lived on purpose:
// - keyed by the token's SHA-256 hash (the plaintext is not kept), bounded to
//   MAX_ENTRIES, oldest evicted first; only valid tokens are cached, so random
//   tokens neither fill it nor are remembered as invalid (a new token works at once);
// - the token's expiry is checked on every use, so an expired token is refused
//   at the same instant as without the cache;
// - any membership or token event appended by this process clears it at once
//   (an in-flight lookup that began before such an event is not stored);
// - entries live TTL_MS = 1 s, which bounds how long a change written by another
//   Keyhold process sharing the PostgreSQL takes to show here.
import { hashToken } from '../../domain/identity/tokens.js';
import type { ResolveToken } from '../../server/interceptors/auth.js';
import type { EventTypeName } from '../../store/events.js';
import { findPatByHash, membershipsOfUser } from '../../store/queries/index.js';
import type { Caller, Deps } from '../context.js';

export const TTL_MS = 1_000;
export const MAX_ENTRIES = 10_000;

/** Events after which a cached caller may be wrong: its roles or its token changed. */
const IDENTITY_EVENTS: ReadonlySet<EventTypeName> = new Set<EventTypeName>([
  'instance.member.added',
  'org.member.added',
  'project.member.added',
  'user.pat.added',
]);

interface Entry {
  caller: Caller;
  /** The token's own expiry (ms since epoch), or Infinity. */
  expiresAt: number;
  /** When this entry stops being trusted (TTL). */
  freshUntil: number;
}

export function tokenResolver(deps: Pick<Deps, 'database'> & Partial<Pick<Deps, 'store'>>, options: { ttlMs?: number } = {}): ResolveToken {
  const db = deps.database.db;
  const ttlMs = options.ttlMs ?? TTL_MS;
  const cache = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<Entry | undefined>>();
  let generation = 0;
  deps.store?.onAppended?.((events) => {
    if (events.some((e) => IDENTITY_EVENTS.has(e.type as EventTypeName))) {
      generation++;
      cache.clear();
      inFlight.clear();
    }
  });

  async function lookup(hash: string): Promise<Entry | undefined> {
    const found = await findPatByHash(db, hash);
    if (!found) return undefined;
    const rows = await membershipsOfUser(db, found.user.id);
    return {
      caller: {
        userId: found.user.id,
        orgId: found.user.orgId,
        tokenId: found.pat.id,
        memberships: rows.map((m) => ({ scopeType: m.scopeType, scopeId: m.scopeId, orgId: m.orgId, roles: m.roles })),
      },
      expiresAt: found.pat.expiresAt ? found.pat.expiresAt.getTime() : Infinity,
      freshUntil: 0,
    };
  }

  function load(hash: string): Promise<Entry | undefined> {
    // Concurrent first uses of one token share one lookup.
    let pending = inFlight.get(hash);
    if (!pending) {
      const startedIn = generation;
      pending = lookup(hash).then(
        (entry) => {
          if (inFlight.get(hash) === pending) inFlight.delete(hash);
          if (entry && startedIn === generation) {
            entry.freshUntil = Date.now() + ttlMs;
            if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
            cache.set(hash, entry);
          }
          return entry;
        },
        (err) => {
          if (inFlight.get(hash) === pending) inFlight.delete(hash);
          throw err;
        },
      );
      inFlight.set(hash, pending);
    }
    return pending;
  }

  return async (token) => {
    if (token.length > 256) return undefined;
    const hash = hashToken(token);
    const now = Date.now();
    let entry = cache.get(hash);
    if (entry && entry.freshUntil <= now) {
      cache.delete(hash);
      entry = undefined;
    }
    entry ??= await load(hash);
    if (!entry || entry.expiresAt <= Date.now()) return undefined;
    return entry.caller;
  };
}
