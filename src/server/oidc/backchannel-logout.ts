// Back-Channel Logout 1.0 for the sessions Keyhold ends (end one, end the
// others, end all; lock, deactivate, remove; a password set by someone else):
// the change marks its sessions ended in its own transaction
// (store/projections/user-sessions.ts); this loop takes them — each process
// its own rows, each row once (OidcStateStore.takeEndedSessions) — and posts
// a logout token to every app the session signed in to that registered a
// back-channel logout URI, through the provider's own Client.backchannelLogout
// (signed with the provider's key, `sid` and `sub`, the URI fixed by the app's
// registration; backchannel-fetch.ts: no redirects, a short timeout).
// A sign-out at end_session is the provider's own (it tells the apps itself).
//
// Best effort, after the change committed: the user's action never waits for
// an app, and an app that is down misses the token (it is not retried: its own
// session ends at its own expiry). A failure is logged with the app's client id
// and the HTTP status, never the token (docs/security.md section 33).
import type { Logger } from 'pino';
import type { OidcStateStore } from '../../store/oidc-store.js';

/** How often ended sessions are looked for. */
export const BACKCHANNEL_POLL_MS = 500;
/** Sessions taken per round. */
const BATCH = 50;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** Tells the apps of the sessions ended since the last round; how many tokens were sent. */
export async function sendLogoutTokens(store: Pick<OidcStateStore, 'takeEndedSessions'>, provider: Any, log: Logger): Promise<number> {
  const ended = await store.takeEndedSessions(BATCH);
  const sends: Promise<boolean>[] = [];
  for (const session of ended) {
    for (const [clientId, { sid }] of Object.entries(session.apps)) {
      sends.push(
        (async () => {
          // An app removed or deactivated since is no client any more: nothing to tell.
          const client = await provider.Client.find(clientId);
          if (!client?.backchannelLogoutUri) return false;
          await client.backchannelLogout(session.userId, sid);
          return true;
        })().catch((err: unknown) => {
          const status = (err as { response?: { status?: number } })?.response?.status;
          log.warn({ clientId, ...(status ? { status } : { reason: err instanceof Error ? err.name : 'error' }) }, 'back-channel logout not delivered');
          return false;
        }),
      );
    }
  }
  return (await Promise.all(sends)).filter(Boolean).length;
}

/** Runs sendLogoutTokens every BACKCHANNEL_POLL_MS, one round at a time. */
export function backchannelLoop(store: Pick<OidcStateStore, 'takeEndedSessions'>, provider: () => Any, log: Logger, onError: (err: unknown) => void): NodeJS.Timeout {
  let running = false;
  return setInterval(() => {
    const current = provider();
    if (running || !current) return;
    running = true;
    sendLogoutTokens(store, current, log)
      .catch(onError)
      .finally(() => {
        running = false;
      });
  }, BACKCHANNEL_POLL_MS).unref();
}
