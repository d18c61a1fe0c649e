// Keyhold's own JWT access tokens (RFC 9068), checked where the library does
// not: at userinfo (jwt-userinfo.ts) and as a bearer token on Keyhold's API
// (machine-clients.ts). One check for both: `typ` at+jwt, signed by one of
// Keyhold's current keys (RS256 or ES256), this issuer, not expired.
import { createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';

const b64json = (part: string | undefined): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

// A signing key's public KeyObject, made once per key object (the set changes only at a
// rotation): importing a JWK on every request was work done again for each token.
const publicKeys = new WeakMap<Record<string, unknown>, KeyObject>();
function publicKeyOf(jwk: Record<string, unknown>): KeyObject {
  let key = publicKeys.get(jwk);
  if (!key) {
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = jwk;
    key = createPublicKey({ key: pub as JsonWebKey, format: 'jwk' });
    publicKeys.set(jwk, key);
  }
  return key;
}

export type AccessJwtCheck = { payload: Record<string, unknown> } | { problem: 'malformed' | 'not an access token' | 'invalid' };

/** The payload of a valid Keyhold access JWT, or why it is not one. */
export function checkAccessJwt(token: string, issuer: string, signingKeys: readonly Record<string, unknown>[], nowMs = Date.now()): AccessJwtCheck {
  const [h, p, s, ...rest] = token.split('.');
  const header = b64json(h);
  const payload = b64json(p);
  if (!header || !payload || s === undefined || rest.length) return { problem: 'malformed' };
  if (String(header.typ).toLowerCase() !== 'at+jwt') return { problem: 'not an access token' };
  const jwk = signingKeys.find((k) => k.kid === header.kid && k.alg === header.alg);
  if (!jwk) return { problem: 'invalid' };
  const key = publicKeyOf(jwk);
  const signed = Buffer.from(`${h}.${p}`);
  const signature = Buffer.from(s, 'base64url');
  const ok =
    header.alg === 'RS256'
      ? verify('sha256', signed, key, signature)
      : header.alg === 'ES256'
        ? verify('sha256', signed, { key, dsaEncoding: 'ieee-p1363' }, signature)
        : false;
  if (!ok) return { problem: 'invalid' };
  if (payload.iss !== issuer || typeof payload.exp !== 'number' || payload.exp * 1000 <= nowMs) return { problem: 'invalid' };
  return { payload };
}
