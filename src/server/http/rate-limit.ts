// Rate limiting: a token bucket per client address — an IPv4 host or an IPv6 /64
// (domain/identity/address-key.ts) — (checked before authentication, so
// unauthenticated floods and token guessing are slowed too) and one per personal
// access token (checked after, keyed by the token's id, so made-up tokens create
// no buckets). Both are interceptors, so every RPC is covered on every protocol:
// gRPC, gRPC-Web, Connect and REST (which runs the same interceptors).
//
// Over the limit: RESOURCE_EXHAUSTED (HTTP 429) with reason RATE_LIMITED, a
// google.rpc.RetryInfo detail and a `retry-after` header (a trailer on gRPC and
// gRPC-Web) in whole seconds.
//
// Memory is bounded: buckets live in one Map kept in least-recently-used order;
// a bucket that has refilled to the brim holds nothing worth keeping and is
// dropped from the cold end as requests arrive, and past `maxBuckets` the coldest
// buckets go regardless.
import { createContextKey, type Interceptor } from '@connectrpc/connect';
import { callerKey } from '../../access/caller.js';
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import { addressBucketKey } from '../../domain/identity/address-key.js';

/** The client's IP address, put into each call's context values by app.ts (and REST). */
export const clientAddressKey = createContextKey<string | undefined>(undefined, { description: 'client IP address' });

export interface RateLimitOptions {
  /** Sustained requests per second per key; 0 turns limiting off. */
  perSecond: number;
  /** Bucket size (requests allowed at once); 0 means "same as perSecond", at least 1. */
  burst: number;
  /** Most buckets kept at once (default 100 000, a few MiB). */
  maxBuckets?: number;
  /** Clock in milliseconds (tests). */
  now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export type TakeResult = { ok: true } | { ok: false; retryAfterMs: number };

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  readonly ratePerMs: number;
  readonly burst: number;
  readonly maxBuckets: number;
  private readonly now: () => number;

  constructor(opts: RateLimitOptions) {
    if (!(opts.perSecond > 0)) throw new RangeError('perSecond must be positive');
    this.ratePerMs = opts.perSecond / 1000;
    this.burst = Math.max(1, opts.burst || opts.perSecond);
    this.maxBuckets = opts.maxBuckets ?? 100_000;
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.buckets.size;
  }

  private level(b: Bucket, now: number): number {
    return Math.min(this.burst, b.tokens + (now - b.at) * this.ratePerMs);
  }

  /** Takes one request's token from `key`'s bucket, or says how long until one is there. */
  take(key: string): TakeResult {
    const now = this.now();
    const found = this.buckets.get(key);
    const tokens = found ? this.level(found, now) : this.burst;
    // Re-insert: the Map's order is least recently used first.
    this.buckets.delete(key);
    let result: TakeResult;
    if (tokens >= 1) {
      this.buckets.set(key, { tokens: tokens - 1, at: now });
      result = { ok: true };
    } else {
      this.buckets.set(key, { tokens, at: now });
      result = { ok: false, retryAfterMs: Math.ceil((1 - tokens) / this.ratePerMs) };
    }
    this.evict(now);
    return result;
  }

  /** Drops full (idle) buckets from the cold end, and the coldest ones beyond the cap. */
  private evict(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (this.buckets.size > this.maxBuckets || this.level(bucket, now) >= this.burst) this.buckets.delete(key);
      else break;
    }
  }
}

/** RATE_LIMITED, naming the wait: the Status carries it as retry-after and RetryInfo (status.ts). */
function rateLimited(retryAfterMs: number): KeyholdError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new KeyholdError('RATE_LIMITED', { retryAfterSeconds: String(seconds) });
}

export interface RateLimiter {
  /** Per client IP; goes before the authentication interceptor. */
  byAddress: Interceptor;
  /** Takes one request's token from the client IP's bucket (the one byAddress takes from): other surfaces than the RPCs. */
  takeAddress(address: string): TakeResult;
  /** Per personal access token; goes after it. */
  byToken: Interceptor;
  buckets: TokenBuckets;
}

/** The two interceptors, or undefined when limiting is off (perSecond 0). `onLimited` hears of each refusal (metrics.ts). */
export function createRateLimiter(opts: RateLimitOptions, onLimited: (by: 'address' | 'token') => void = () => {}): RateLimiter | undefined {
  if (!(opts.perSecond > 0)) return undefined;
  const buckets = new TokenBuckets(opts);
  const check = (key: string) => {
    const r = buckets.take(key);
    if (r.ok) return;
    onLimited(key.startsWith('ip:') ? 'address' : 'token');
    throw rateLimited(r.retryAfterMs);
  };
  const addressKey = (address: string) => `ip:${addressBucketKey(address)}`;
  return {
    buckets,
    takeAddress: (address) => buckets.take(addressKey(address)),
    byAddress: (next) => async (req) => {
      const address = req.contextValues.get(clientAddressKey);
      if (address) check(addressKey(address));
      return next(req);
    },
    byToken: (next) => async (req) => {
      const caller = req.contextValues.get(callerKey);
      if (caller) check(`token:${caller.tokenId}`);
      return next(req);
    },
  };
}
