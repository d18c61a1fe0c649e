// Whose grant a request deleted, for the rest of that request. The audit
// (audit.ts) names the owner of a revoked grant from the records the request
// used; a replayed authorization or device code's request holds none (the
// library revokes before it keeps the code, and the revocation deletes the
// code), so the adapter notes here each grant it deletes, and the audit asks.
import Provider from 'oidc-provider';
import type { OidcPayload } from '../../store/oidc-store.js';

export interface GrantOwner {
  accountId?: string;
  clientId?: string;
}

/** Per request (the library's context object): grant id → its owner. */
const deleted = new WeakMap<object, Map<string, GrantOwner>>();

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Notes that the request being handled deleted grant `grantId`, stored as `grant`. */
export function noteDeletedGrant(grantId: string, grant: OidcPayload): void {
  const ctx: object | undefined = Provider.ctx;
  if (!ctx) return;
  let grants = deleted.get(ctx);
  if (!grants) deleted.set(ctx, (grants = new Map()));
  grants.set(grantId, { accountId: text(grant.accountId), clientId: text(grant.clientId) });
}

/** The owner of grant `grantId` when this request deleted it. */
export function deletedGrantOwner(ctx: object | undefined, grantId: string): GrantOwner | undefined {
  return ctx ? deleted.get(ctx)?.get(grantId) : undefined;
}
