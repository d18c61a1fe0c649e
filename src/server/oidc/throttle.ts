// The login's throttle: repeated wrong passwords slow down further tries, per
// account (counted from the user's events, so shared by every process) and per
// client IP (this process's memory), with a delay that doubles per failure
// beyond a free allowance, capped. Never a hard lock: nobody can lock an admin
// out by typing wrong passwords (a lock is LockUser's or a lockout policy's).

/** Wrong passwords per account before delays start, and per client IP (password spraying hits many accounts from one IP). */
export const FREE_FAILURES = { account: 5, ip: 20 } as const;
/** Wrong client secrets (token, introspection, revocation endpoints) per client id and per client IP before delays start. */
export const FREE_CLIENT_FAILURES = { client: 5, ip: 20 } as const;
/** The first delay (seconds), doubling per further failure; the longest; how far back failures count. */
export const FIRST_DELAY_SECONDS = 5;
export const MAX_DELAY_SECONDS = 900;
export const WINDOW_SECONDS = 3600;

/** Seconds to wait before the next try after `failures` failures, the last at `last`; 0 when free. */
export function waitSeconds(failures: number, free: number, last: Date | undefined, now = Date.now()): number {
  if (failures < free || !last) return 0;
  const delay = Math.min(MAX_DELAY_SECONDS, FIRST_DELAY_SECONDS * 2 ** (failures - free));
  const left = Math.ceil((last.getTime() + delay * 1000 - now) / 1000);
  return Math.max(0, left);
}

/** Failures per client IP in this process, forgotten after WINDOW_SECONDS. */
export function ipFailures(limit = 100_000) {
  return failureCounter(FREE_FAILURES.ip, limit);
}

/** Failures per key (an IP, a client id) in this process with `free` failures before delays, forgotten after WINDOW_SECONDS. */
export function failureCounter(free: number, limit = 100_000) {
  const seen = new Map<string, { count: number; last: Date }>();
  return {
    wait(ip: string, now = Date.now()): number {
      const entry = seen.get(ip);
      if (!entry) return 0;
      if (now - entry.last.getTime() > WINDOW_SECONDS * 1000) {
        seen.delete(ip);
        return 0;
      }
      return waitSeconds(entry.count, free, entry.last, now);
    },
    /** Counts a failure; answers the key's failures so far (the one that reaches `free` engages the delays). */
    failed(ip: string): number {
      if (seen.size >= limit) seen.clear();
      const entry = seen.get(ip);
      const count = (entry?.count ?? 0) + 1;
      seen.set(ip, { count, last: new Date() });
      return count;
    },
  };
}

/**
 * The throttle on client authentication (secret guessing at the token,
 * introspection and revocation endpoints): per client id and per client IP,
 * in this process's memory, the login's delays. Used by extensions.ts 1.
 */
export function clientSecretThrottle() {
  const byClient = failureCounter(FREE_CLIENT_FAILURES.client);
  const byIp = failureCounter(FREE_CLIENT_FAILURES.ip);
  return {
    /** Seconds the next try of this client from this IP must wait; 0 when it may go. */
    wait: (clientId: string, ip: string) => Math.max(byClient.wait(clientId), ip ? byIp.wait(ip) : 0),
    failed(clientId: string, ip: string): void {
      byClient.failed(clientId);
      if (ip) byIp.failed(ip);
    },
  };
}

export type ClientSecretThrottle = ReturnType<typeof clientSecretThrottle>;
