// A refresh token's rotation, where a retry is not a reuse (docs/security.md
// section 4). oidc-provider's refresh grant consumes the presented token and
// then saves its successor, the access token and answers; a fault anywhere
// after the consume (a cut connection, a commit whose answer was lost, a
// response that never reached the client) left the token consumed, and the
// client's retry with it read as a reuse: the grant was revoked, the user
// logged out. So the refresh grant's consume (adapter.ts) is this step instead:
//
// - A token is taken again — its rotation redone — when the rotation that
//   consumed it stored no successor, or stored one that was never presented and
//   the retry comes within RETRY_GRACE_SECONDS. The library has checked before
//   that the same client presents it (and its DPoP key or certificate, if bound).
// - Each taking marks the token with a nonce, and the successor it makes
//   carries it: a successor is live only while its predecessor's latest taking
//   is the one that made it. One that a retry superseded, presented later, is a
//   replay — whoever holds it (the owner, or a thief who raced it) ends the grant.
// - Presenting a successor marks its predecessor's successor used: from then on
//   the predecessor is spent for good, and presenting it revokes the grant, as
//   every replay does (single-use.ts answerReplay).
//
// All of it is one conditional statement (oidc-store.ts rotateRefreshToken),
// so concurrent requests are decided one after the other, across processes.
import { randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';
import type { OidcPayload, OidcStateStore } from '../../store/oidc-store.js';
import { refreshTokenKey } from '../../store/oidc-store.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** How long after a rotation its unused successor may still be superseded by a retry of the same token. */
export const RETRY_GRACE_SECONDS = 60;

/** The rotation this request made: the predecessor's id and the nonce it was taken with. */
const rotations = new WeakMap<object, { from: string; nonce: string }>();

/** The refresh grant's request under way, if this is one. */
function refreshRequest(): Any {
  const ctx = (Provider as Any).ctx;
  return ctx?.oidc?.route === 'token' && ctx.oidc.params?.grant_type === 'refresh_token' ? ctx : undefined;
}

/**
 * The refresh token as the refresh grant should see it: without `consumed`
 * (the library would revoke the grant at once); whether it may be taken again
 * is the rotation step's decision. Any other lookup sees it as stored.
 */
export function asPresented(id: string, found: OidcPayload | undefined): OidcPayload | undefined {
  if (!found?.consumed || refreshRequest()?.oidc.params.refresh_token !== id) return found;
  const { consumed: _consumed, ...rest } = found;
  return rest;
}

/** The refresh grant's consume of `id`: true when this request took it (else a replay). */
export async function rotate(store: Pick<OidcStateStore, 'rotateRefreshToken'>, id: string): Promise<boolean> {
  const nonce = randomBytes(16).toString('base64url');
  const taken = await store.rotateRefreshToken(id, nonce, RETRY_GRACE_SECONDS);
  const ctx = refreshRequest();
  if (taken && ctx) rotations.set(ctx, { from: id, nonce });
  return taken;
}

/** A refresh token saved by a rotation carries its predecessor and that rotation's nonce. */
export function withRotation(payload: OidcPayload): OidcPayload {
  const ctx = refreshRequest();
  const made = ctx ? rotations.get(ctx) : undefined;
  return made ? { ...payload, keyholdRotatedFrom: refreshTokenKey(made.from), keyholdRotatedBy: made.nonce } : payload;
}
