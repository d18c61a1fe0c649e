// Bearer token → Caller: hash lookup of the personal access token (with its
// user), expiry check, then the user's memberships.
import { hashToken } from '../../domain/identity/tokens.js';
import type { ResolveToken } from '../../server/interceptors/auth.js';
import { findPatByHash, membershipsOfUser } from '../../store/queries/index.js';
import type { Deps } from '../context.js';

export function tokenResolver(deps: Pick<Deps, 'database'>): ResolveToken {
  const db = deps.database.db;
  return async (token) => {
    if (token.length > 256) return undefined;
    const found = await findPatByHash(db, hashToken(token));
    if (!found) return undefined;
    if (found.pat.expiresAt && found.pat.expiresAt.getTime() <= Date.now()) return undefined;
    const rows = await membershipsOfUser(db, found.user.id);
    return {
      userId: found.user.id,
      orgId: found.user.orgId,
      tokenId: found.pat.id,
      memberships: rows.map((m) => ({ scopeType: m.scopeType, scopeId: m.scopeId, orgId: m.orgId, roles: m.roles })),
    };
  };
}
