// The account page's session port (src/account/ports.ts) over oidc-provider:
// the browser's login session as the provider reads it from its session
// cookie — through the adapter, which ends a session whose user is no longer
// active or whose sessions ended after it signed in (adapter.ts) — and the
// user's grants by app, revoked as the reuse detection does: each grant and
// every token issued under it in one statement.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppGrant, SessionPort } from '../../account/ports.js';
import type { OidcStateStore } from '../../store/oidc-store.js';
import type { RecordOidc } from './audit.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

export function accountSessionPort(deps: { provider: () => Any; store: Pick<OidcStateStore, 'grantsOf' | 'revokeGrant'>; audit?: RecordOidc }): SessionPort {
  return {
    async current(req: IncomingMessage, res: ServerResponse) {
      const provider = deps.provider();
      const session = await provider.Session.get(provider.createContext(req, res));
      const accountId = session?.accountId;
      if (typeof accountId !== 'string' || !accountId) return undefined;
      return { uid: String(session.uid), accountId, loginTs: Number(session.loginTs ?? 0) };
    },
    async grantsOf(accountId) {
      const provider = deps.provider();
      const clientIds = [...new Set((await deps.store.grantsOf(accountId)).map((g) => g.clientId))];
      return Promise.all(
        clientIds.map(async (clientId): Promise<AppGrant> => {
          const client = await provider.Client.find(clientId).catch(() => undefined);
          return { clientId, appName: String(client?.clientName ?? clientId) };
        }),
      );
    },
    async revokeApp(accountId, clientId) {
      // Only the grants this user holds: another user's, or another app's, are never named here.
      const grants = (await deps.store.grantsOf(accountId)).filter((g) => g.clientId === clientId);
      let revoked = false;
      for (const { grantId } of grants) {
        const gone = await deps.store.revokeGrant(grantId);
        if (!gone) continue;
        revoked = true;
        await deps.audit?.(accountId, { type: 'user.oidc.grant.revoked', payload: { grantId, clientId, reason: 'revocation' } });
      }
      return revoked;
    },
  };
}
