// DPoP proofs (RFC 9449) for tests: a client's key pair (openid-client's, so
// its DPoP handle binds tokens to the same key) and proofs made with jose —
// good ones, and ones wrong in exactly one way — for requests openid-client
// does not send itself (gRPC, a replayed or tampered proof).
import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import * as oidc from 'openid-client';

export interface DpopKey {
  pair: CryptoKeyPair;
  publicJwk: JWK;
  /** openid-client's handle for `config`: token requests bound to this key. */
  handle(config: oidc.Configuration): oidc.DPoPHandle;
}

export async function dpopKey(alg: 'ES256' | 'EdDSA' = 'ES256'): Promise<DpopKey> {
  const pair = alg === 'ES256' ? await oidc.randomDPoPKeyPair('ES256') : ((await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true })) as CryptoKeyPair);
  const publicJwk = await exportJWK(pair.publicKey);
  return { pair, publicJwk, handle: (config) => oidc.getDPoPHandle(config, pair) };
}

export const ath = (token: string) => createHash('sha256').update(token).digest('base64url');

export interface ProofFields {
  htm: string;
  htu: string;
  /** The access token the proof goes with (`ath`); omitted: no ath. */
  token?: string;
  iat?: number;
  jti?: string;
  /** Claims and header members put over the good ones (undefined removes one). */
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
}

/** A DPoP proof signed by `key` (ES256 or EdDSA by the key), with the fields given. */
export async function proof(key: DpopKey, fields: ProofFields): Promise<string> {
  const claims: Record<string, unknown> = {
    htm: fields.htm,
    htu: fields.htu,
    iat: fields.iat ?? Math.floor(Date.now() / 1000),
    jti: fields.jti ?? randomUUID(),
    ...(fields.token !== undefined ? { ath: ath(fields.token) } : {}),
    ...fields.claims,
  };
  const alg = key.publicJwk.kty === 'OKP' ? 'EdDSA' : 'ES256';
  const header = { alg, typ: 'dpop+jwt', jwk: key.publicJwk, ...fields.header };
  const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  return new SignJWT(defined(claims)).setProtectedHeader(defined(header) as never).sign(key.pair.privateKey);
}
