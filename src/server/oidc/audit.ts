// The OpenID Provider's grants and revocations as events of the user (issue
// 17: "grants and their revocation are events"), from the library's own
// events (oidc-provider emits them on the Provider, an EventEmitter):
//   grant.saved             — a grant stored (consent, or a first-party login)
//   grant.revoked           — a grant and its tokens revoked (revocation
//                             endpoint, refresh-token or code reuse, logout)
//   access_token.destroyed, refresh_token.destroyed — one token revoked
// The library emits without waiting, so each is recorded in the background;
// a failure is logged, never the request's. Nothing of a token is recorded:
// only its kind, its grant's id and the client.
import type { OidcAuditEvent } from '../../domain/user/decider.js';
import type { RepeatedErrorLog } from '../repeated-errors.js';
import { deletedGrantOwner } from './revoked-grants.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** Records one audit event of a user (commands.recordOidc). */
export type RecordOidc = (userId: string, event: OidcAuditEvent) => Promise<void>;

/** The library's route names → why a grant was revoked. */
function reasonOf(route: unknown): 'revocation' | 'reuse' | 'logout' | 'other' {
  if (route === 'revocation') return 'revocation';
  // The token endpoint revokes a grant only when a refresh token or code is used a second time.
  if (route === 'token') return 'reuse';
  if (route === 'end_session' || route === 'end_session_confirm') return 'logout';
  return 'other';
}

/** Who and which client a revoked grant belonged to: the token the request used, else the logout's session. */
function ownerOf(ctx: Any, grantId: string): { accountId?: string; clientId?: string } {
  const entities = ctx?.oidc?.entities ?? {};
  for (const kind of ['RefreshToken', 'AccessToken', 'AuthorizationCode', 'DeviceCode']) {
    const e = entities[kind];
    if (e?.grantId === grantId) return { accountId: e.accountId, clientId: e.clientId };
  }
  // A replayed code's request holds no record of it: the grant it deleted says whose it was.
  const deleted = deletedGrantOwner(ctx, grantId);
  if (deleted) return deleted;
  const session = ctx?.oidc?.session;
  const authorizations: Record<string, { grantId?: string }> = session?.authorizations ?? {};
  const clientId = Object.entries(authorizations).find(([, a]) => a?.grantId === grantId)?.[0];
  return { accountId: session?.accountId, clientId };
}

export function auditProvider(provider: Any, record: RecordOidc, errors: RepeatedErrorLog): void {
  const run = (userId: unknown, event: OidcAuditEvent) => {
    if (typeof userId !== 'string' || !userId) return;
    record(userId, event).catch((err: Any) => {
      // A user removed meanwhile has no trail to add to.
      if (err?.reason === 'USER_NOT_FOUND') return;
      errors.error(err, { component: 'oidc', event: event.type }, 'recording an OpenID Provider event failed');
    });
  };
  provider.on('grant.saved', (grant: Any) => {
    run(grant.accountId, { type: 'user.oidc.grant.saved', payload: { grantId: String(grant.jti), clientId: String(grant.clientId), scope: String(grant.openid?.scope ?? '') } });
  });
  provider.on('grant.revoked', (ctx: Any, grantId: string) => {
    const { accountId, clientId } = ownerOf(ctx, grantId);
    run(accountId, { type: 'user.oidc.grant.revoked', payload: { grantId, clientId: String(clientId ?? ctx?.oidc?.client?.clientId ?? ''), reason: reasonOf(ctx?.oidc?.route) } });
  });
  for (const [name, tokenType] of [
    ['access_token.destroyed', 'access_token'],
    ['refresh_token.destroyed', 'refresh_token'],
  ] as const) {
    provider.on(name, (token: Any) => {
      run(token.accountId, { type: 'user.oidc.token.revoked', payload: { grantId: String(token.grantId ?? ''), clientId: String(token.clientId), tokenType } });
    });
  }
}
