// Public key algorithms, as COSE algorithm identifiers (IANA "COSE Algorithms").
import { reject } from './rejection.js';

export const COSE_ALG = {
  ES256: -7,
  EdDSA: -8,
  RS256: -257,
} as const;

/**
 * What Keyhold offers in pubKeyCredParams and accepts by default: ES256 (every
 * security key), EdDSA (newer keys), RS256 (Windows Hello / TPM). Order is
 * preference; the authenticator takes the first it supports.
 */
export const DEFAULT_ALGORITHMS: readonly number[] = [COSE_ALG.ES256, COSE_ALG.EdDSA, COSE_ALG.RS256];

const COSE_KEY_ALG_LABEL = 3;

/** The `alg` (label 3) of a decoded COSE_Key. */
export function readCoseAlgorithm(coseKey: Map<unknown, unknown>): number {
  const alg = coseKey.get(COSE_KEY_ALG_LABEL);
  if (typeof alg !== 'number' || !Number.isInteger(alg)) {
    reject('CREDENTIAL_MALFORMED', 'the credential public key has no integer algorithm (COSE label 3)');
  }
  return alg;
}

export function checkAlgorithm(alg: number, allowed: readonly number[]): void {
  if (!allowed.includes(alg)) {
    reject('ALGORITHM_NOT_ALLOWED', `the credential's key algorithm (COSE ${alg}) is not one this server accepts`);
  }
}
