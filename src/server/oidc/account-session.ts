// The account page's session port (src/account/ports.ts) over oidc-provider:
// the browser's login session as the provider reads it from its session
// cookie — through the adapter, which ends a session whose user is no longer
// active or whose sessions ended after it signed in (adapter.ts) — and the
// user's grants, revoked as the revocation endpoint's reuse detection does:
// the grant and every token issued under it in one statement.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppGrant, SessionPort } from '../../account/ports.js';
import type { OidcStateStore } from '../../store/oidc-store.js';
import type { RecordOidc } from './audit.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

export function accountSessionPort(deps: { provider: () => Any; store: Pick<OidcStateStore, 'find' | 'grantsOf' | 'revokeGrant'>; audit?: RecordOidc }): SessionPort {
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
      const grants = await deps.store.grantsOf(accountId);
      return Promise.all(
        grants.map(async (g): Promise<AppGrant> => {
          const client = await provider.Client.find(g.clientId).catch(() => undefined);
          return { ...g, appName: String(client?.clientName ?? g.clientId) };
        }),
      );
    },
    async revokeGrant(accountId, grantId) {
      if (!grantId) return false;
      const stored = await deps.store.find('Grant', grantId);
      if (stored?.accountId !== accountId) return false;
      const gone = await deps.store.revokeGrant(grantId);
      if (!gone) return false;
      await deps.audit?.(accountId, { type: 'user.oidc.grant.revoked', payload: { grantId, clientId: String(gone.clientId ?? ''), reason: 'revocation' } });
      return true;
    },
  };
}
