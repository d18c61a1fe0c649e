// The throttle on client authentication: wrong client secrets at the token,
// introspection and revocation endpoints slow down further tries per (client
// id, client address) and per client address, with the login's delays (doubling beyond a free
// allowance, capped: domain/identity/attempt-budget.ts), in this process's
// memory. Used by extensions.ts 1.
//
// Why not the login's shared budgets (src/store/attempt-budgets.ts): a client
// secret is 64 random characters of 62 (~381 bits, domain/oidc/client-secret.ts),
// so guessing one is hopeless with or without a limit — the throttle only keeps a misconfigured
// or hostile client from burning CPU; and the token endpoint is Keyhold's
// hottest path, where two more database round trips per request would cost
// every app. Passwords, recovery codes and user codes, which can be guessed,
// spend the shared budgets.
//
// Never per client id alone: client ids are public (they travel in every
// authorization request), so a count per id would let anyone who knows one
// keep that app's backend out with a few wrong secrets a minute.
import { waitSeconds, WINDOW_SECONDS } from '../../domain/identity/attempt-budget.js';

/** Wrong client secrets per (client id, client address) and per client address before delays start. */
export const FREE_CLIENT_FAILURES = { client: 5, ip: 20 } as const;

/** Failures per key (an address, a client id) in this process with `free` failures before delays, forgotten after WINDOW_SECONDS. */
export function failureCounter(free: number, limit = 100_000) {
  const seen = new Map<string, { count: number; last: number }>();
  return {
    wait(key: string, now = Date.now()): number {
      const entry = seen.get(key);
      if (!entry) return 0;
      if (now - entry.last > WINDOW_SECONDS * 1000) {
        seen.delete(key);
        return 0;
      }
      return waitSeconds(entry.count, free, entry.last, now);
    },
    /** Counts a failure; answers the key's failures so far. */
    failed(key: string): number {
      if (seen.size >= limit) seen.clear();
      const count = (seen.get(key)?.count ?? 0) + 1;
      seen.set(key, { count, last: Date.now() });
      return count;
    },
  };
}

/** Wrong client secrets per (client id, client address) and per client address (this process's memory). */
export function clientSecretThrottle() {
  const byClient = failureCounter(FREE_CLIENT_FAILURES.client);
  const byIp = failureCounter(FREE_CLIENT_FAILURES.ip);
  // No address holds a newline: the last one in the key separates the two.
  const clientAt = (clientId: string, ip: string) => `${clientId}\n${ip}`;
  return {
    /** Seconds the next try of this client from this address must wait; 0 when it may go. */
    wait: (clientId: string, ip: string) => Math.max(byClient.wait(clientAt(clientId, ip)), ip ? byIp.wait(ip) : 0),
    failed(clientId: string, ip: string): void {
      byClient.failed(clientAt(clientId, ip));
      if (ip) byIp.failed(ip);
    },
  };
}

export type ClientSecretThrottle = ReturnType<typeof clientSecretThrottle>;
