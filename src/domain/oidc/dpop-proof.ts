// Sender-constrained access tokens (DPoP, RFC 9449) where Keyhold checks a
// token itself: its management API and userinfo for JWT access tokens. The
// OpenID Provider binds a token to the client's key (`cnf.jkt`, the key's
// thumbprint) whenever the token request carries a proof; such a token is
// only good under `Authorization: DPoP <token>` with a fresh proof of that key
// for this very request (§4.3, §7.1): a stolen bound token is worth nothing
// without the key. One rule for both places, here:
//
// - the scheme follows the token: bound → `DPoP` with a proof; unbound →
//   `Bearer` (an unbound token under `DPoP` is refused, as the library does);
// - the proof: one compact JWS, `typ` dpop+jwt, an alg the OpenID Provider
//   accepts for proofs (asymmetric), a public `jwk` whose signature verifies,
//   `htm` the request's method, `htu` the endpoint's URL as the issuer names it
//   (query and fragment ignored), `iat` within PROOF_WINDOW_SECONDS of now,
//   `ath` the token's SHA-256, no nonce (none is issued), the jwk's thumbprint
//   the token's `cnf.jkt`, and a `jti` used once — claimed by one atomic
//   insert, so of concurrent uses of one proof, on any number of processes,
//   exactly one passes.
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';

/** The proof algorithms accepted: the OpenID Provider's own list (configuration.ts enabledJWA.dPoPSigningAlgValues). */
export const DPOP_ALGS = ['ES256', 'Ed25519', 'EdDSA'] as const;
/** How far a proof's `iat` may lie from now (the library's window at its token endpoint). */
export const PROOF_WINDOW_SECONDS = 300;

/** Each accepted alg: the key type and curves it takes, and how its signature verifies. */
const ALGS: Readonly<Record<string, { kty: string; crv: readonly string[]; verify: (data: Buffer, key: KeyObject, signature: Buffer) => boolean }>> = {
  ES256: { kty: 'EC', crv: ['P-256'], verify: (data, key, sig) => verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, sig) },
  Ed25519: { kty: 'OKP', crv: ['Ed25519'], verify: (data, key, sig) => verify(null, data, key, sig) },
  EdDSA: { kty: 'OKP', crv: ['Ed25519', 'Ed448'], verify: (data, key, sig) => verify(null, data, key, sig) },
};

/** RFC 7638: the members a key type's thumbprint is computed over, in lexicographic order. */
const THUMBPRINT_MEMBERS: Readonly<Record<string, readonly string[]>> = { EC: ['crv', 'kty', 'x', 'y'], OKP: ['crv', 'kty', 'x'] };
/** Members only a private (or symmetric) key has. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

const sha256 = (value: string | Buffer) => createHash('sha256').update(value).digest('base64url');

/** The JWK thumbprint (RFC 7638, SHA-256) of a public key: what `cnf.jkt` holds. */
export function jwkThumbprint(jwk: Record<string, unknown>): string {
  const members = THUMBPRINT_MEMBERS[String(jwk.kty)] ?? [];
  return sha256(JSON.stringify(Object.fromEntries(members.map((m) => [m, jwk[m]]))));
}

/** How a token came: its scheme, the DPoP header, and the request it came with. */
export interface Presented {
  scheme: 'bearer' | 'dpop';
  token: string;
  /** The DPoP request header, when sent. */
  proof: string | undefined;
  /** The request's method (`htm`). */
  method: string;
  /** The endpoint's URL as the issuer names it, without query (`htu`). */
  url: string;
}

/**
 * Why a presented token is refused (texts fixed here, never a value the client
 * sent): `required` — bound, but not sent as DPoP with a proof; `invalid` — the
 * proof fails a check; `unbound` — sent as DPoP but bound to no key.
 */
export type SenderRefusal = { kind: 'required' | 'invalid' | 'unbound'; problem: string };

/** Claims a proof's id once: true for the first claim of `key` while it lives (OidcStateStore.insertNew). */
export type ClaimOnce = (key: string, expiresInSeconds: number) => Promise<boolean>;

/**
 * Whether the token may be used as presented, given the key it is bound to
 * (`jkt`, its `cnf.jkt`; undefined: unbound). Undefined when it may; else why not.
 */
export async function checkSenderConstraint(presented: Presented, jkt: string | undefined, claimOnce: ClaimOnce, nowSeconds = Math.floor(Date.now() / 1000)): Promise<SenderRefusal | undefined> {
  if (jkt === undefined) return presented.scheme === 'dpop' ? { kind: 'unbound', problem: 'the token is not bound to a key; send it as Bearer' } : undefined;
  if (presented.scheme !== 'dpop' || presented.proof === undefined) {
    return { kind: 'required', problem: 'the token is bound to a key; send it as "Authorization: DPoP <token>" with a DPoP proof' };
  }
  const checked = verifyProof(presented, nowSeconds);
  if ('problem' in checked) return { kind: 'invalid', problem: checked.problem };
  if (checked.jkt !== jkt) return { kind: 'invalid', problem: 'the proof is signed by another key than the one the token is bound to' };
  // Last, so that only a proof good in every other way takes a row.
  const fresh = await claimOnce(sha256(`${checked.jkt}:${checked.jti}`), Math.max(1, checked.iat + PROOF_WINDOW_SECONDS - nowSeconds));
  return fresh ? undefined : { kind: 'invalid', problem: 'the proof was used before (jti)' };
}

const b64json = (part: string | undefined): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

const invalid = (problem: string) => ({ problem });

/** The proof's checks that need no storage (§4.3 steps 1–11 but the jti's use): its key's thumbprint, jti and iat, or the first problem. */
export function verifyProof(presented: Presented, nowSeconds: number): { jkt: string; jti: string; iat: number } | { problem: string } {
  const parts = (presented.proof ?? '').split('.');
  if (parts.length !== 3) return invalid('the proof is not a compact JWT');
  const [h, p, s] = parts as [string, string, string];
  const header = b64json(h);
  const payload = b64json(p);
  if (!header || !payload) return invalid('the proof is not a compact JWT');
  if (String(header.typ).toLowerCase() !== 'dpop+jwt') return invalid('typ is not dpop+jwt');
  if (!(DPOP_ALGS as readonly unknown[]).includes(header.alg)) return invalid(`alg is not one of ${DPOP_ALGS.join(', ')}`);
  const alg = ALGS[header.alg as string]!;
  const jwk = header.jwk;
  if (!jwk || typeof jwk !== 'object' || Array.isArray(jwk)) return invalid('the header has no jwk');
  const key = jwk as Record<string, unknown>;
  if (PRIVATE_MEMBERS.some((m) => m in key)) return invalid('the jwk is not a public key');
  if (key.kty !== alg.kty || !alg.crv.includes(String(key.crv))) return invalid('the jwk does not fit the alg');
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: key as never, format: 'jwk' });
  } catch {
    return invalid('the jwk is not a usable public key');
  }
  let verified = false;
  try {
    verified = alg.verify(Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s, 'base64url'));
  } catch {
    verified = false;
  }
  if (!verified) return invalid('the signature does not verify with the jwk');
  if (typeof payload.jti !== 'string' || payload.jti === '') return invalid('jti is missing');
  if (payload.htm !== presented.method) return invalid('htm is not the method of this request');
  if (typeof payload.htu !== 'string' || !sameEndpoint(payload.htu, presented.url)) return invalid('htu is not the URL of this endpoint');
  if (typeof payload.iat !== 'number' || Math.abs(nowSeconds - payload.iat) > PROOF_WINDOW_SECONDS) return invalid(`iat is not within ${PROOF_WINDOW_SECONDS} seconds of now`);
  if (payload.nonce !== undefined) return invalid('nonces are not supported');
  if (payload.ath !== sha256(presented.token)) return invalid('ath is not the hash of this access token');
  return { jkt: jwkThumbprint(key), jti: payload.jti, iat: payload.iat };
}

/** RFC 9449 §4.3 step 9: the URLs compared without query and fragment, normalized as URLs. */
function sameEndpoint(htu: string, expected: string): boolean {
  const sent = URL.parse(htu);
  const want = URL.parse(expected);
  if (!sent || !want) return false;
  sent.search = sent.hash = want.search = want.hash = '';
  return sent.href === want.href;
}
