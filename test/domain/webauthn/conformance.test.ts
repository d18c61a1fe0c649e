// Runs the 92 real registration responses of fixtures/conformance/ (collected
// from the test suites of SimpleWebAuthn, py_webauthn, go-webauthn and fido2-lib;
// its README says where the copy comes from, licences beside it) through
// Keyhold's verifyRegistration, under the conditions each source test set up,
// and compares with what that source expects.
//
// Where Keyhold decides differently on purpose, the vector is listed in
// DELIBERATE_DIFFERENCES with the reason, and its test asserts Keyhold's own
// outcome instead. Every other vector must agree.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { COSEALG } from '@simplewebauthn/server/helpers';
import { SettingsService, type AttestationFormat } from '@simplewebauthn/server';
import { resolveAnchorName } from './fixtures/trust-anchors.js';
import {
  verifyRegistration,
  type RegistrationFailureReason,
  type RegistrationVerificationResult,
  type TrustAnchors,
} from '../../../src/domain/webauthn/index.js';

interface Vector {
  name: string;
  fmt: string | null;
  credential: unknown;
  expectedChallenge: string;
  expectedOrigin: string;
  expectedRPID: string;
  requireUserVerification: boolean;
  sourceExpects: 'ok' | 'error' | 'parse-only';
  sourceConditions: {
    fixedDate: string | null;
    trustAnchors?: Record<string, string[] | string> | string | null;
    allowCrossOrigin?: boolean;
    rpTopOrigins?: string[];
  };
  simplewebauthnOutcomeUnderSourceConditions: { conditions?: { clock?: string } };
  extraOptions?: { supportedAlgorithmIDs?: number[] };
}

const VECTORS_PATH = fileURLToPath(new URL('./fixtures/conformance/vectors.json', import.meta.url));
const vectors: Vector[] = JSON.parse(readFileSync(VECTORS_PATH, 'utf8'));

type Outcome = 'ok' | RegistrationFailureReason;

/** Node 20's WebCrypto has no ML-DSA; a later runtime may, and then those vectors agree. */
const RUNTIME_VERIFIES_ML_DSA = SettingsService.runtimeSupportsPQC();

const ML_DSA_WHY =
  "this runtime's WebCrypto cannot verify ML-DSA signatures, so the key could never be used to sign in; " +
  'Keyhold refuses to store it (SimpleWebAuthn raises PQCNotSupportedError) instead of creating a dead credential';

const ID_MISMATCH_WHY =
  'id/rawId is not the credential id the authenticator attested in authData; design §7 makes that a refusal, as ' +
  'go-webauthn does (otherwise a client could file a key under another id). SimpleWebAuthn does not compare them';

/**
 * Vectors on which Keyhold deliberately decides otherwise than their source, with
 * Keyhold's outcome and why.
 */
const DELIBERATE_DIFFERENCES: Record<string, { keyhold: Outcome; why: string }> = {
  'swa-packed-self-ec2': { keyhold: 'CREDENTIAL_MALFORMED', why: `${ID_MISMATCH_WHY} (here id is "bbb", not even canonical base64url)` },
  'swa-packed-x5c-yubikey': { keyhold: 'CREDENTIAL_MALFORMED', why: `${ID_MISMATCH_WHY} (here id is "aaa")` },
  'go-apple-ngrok': { keyhold: 'CREDENTIAL_MALFORMED', why: ID_MISMATCH_WHY },
  'swa-android-safetynet-cts-fail-not-enforced': {
    keyhold: 'ATTESTATION_INVALID',
    why:
      'Keyhold always enforces SafetyNet ctsProfileMatch: a device failing Android\'s compatibility test is not a ' +
      'trustworthy authenticator; the source switched enforcement off (attestationSafetyNetEnforceCTSCheck: false)',
  },
  'swa-android-safetynet-revoked-cert': {
    keyhold: 'ok',
    why:
      'the revocation is visible only in an online CRL; certificate revocation is soft-fail (SimpleWebAuthn treats an ' +
      'unreachable CRL as "not revoked") and this run is offline by construction (fetch is stubbed to fail)',
  },
  ...(RUNTIME_VERIFIES_ML_DSA
    ? {}
    : {
        'py-none-ml-dsa-44': { keyhold: 'ALGORITHM_NOT_ALLOWED' as const, why: ML_DSA_WHY },
        'py-none-ml-dsa-65': { keyhold: 'ALGORITHM_NOT_ALLOWED' as const, why: ML_DSA_WHY },
        'py-none-ml-dsa-87': { keyhold: 'ALGORITHM_NOT_ALLOWED' as const, why: ML_DSA_WHY },
      }),
  'py-fido-u2f-tokenbinding-not-supported': {
    keyhold: 'ok',
    why:
      '"not-supported" is a TokenBindingStatus of WebAuthn Level 1 (old Firefox sent it) and token binding is gone ' +
      'from Level 3; py_webauthn only knows "present"/"supported". Keyhold, like SimpleWebAuthn, accepts it',
  },
  'py-fido-u2f-tokenbinding-unused-string': {
    keyhold: 'CREDENTIAL_MALFORMED',
    why:
      'clientDataJSON.tokenBinding must be a TokenBinding object; a bare string is malformed client data ' +
      '(SimpleWebAuthn refuses it as well); py_webauthn accepts it',
  },
  'go-w3c-spec-TPMES256': {
    keyhold: 'ATTESTATION_INVALID',
    why:
      'the W3C vector\'s TPM manufacturer "id:00000000" is synthetic and in no TCG vendor registry; go-webauthn ' +
      'registers it only in its test init(). Keyhold keeps the real registry',
  },
  'go-w3c-spec-FIDOU2FES256': {
    keyhold: 'ATTESTATION_INVALID',
    why:
      'a fido-u2f statement with a non-zero AAGUID: U2F devices have no AAGUID (the client writes zeros), so the ' +
      'data cannot come from a U2F key; SimpleWebAuthn refuses it, go-webauthn does not look',
  },
  'go-android-key-0': {
    keyhold: 'ATTESTATION_INVALID',
    why:
      "the leaf's AuthorityKeyIdentifier does not match the intermediate's SubjectKeyIdentifier, so no certificate " +
      "path is built (as with openssl verify); Go's crypto/x509 checks only the signature. Anchors as in the source",
  },
};

/**
 * The reason Keyhold gives for each vector its source expects to fail: agreeing on
 * "error" is not enough, it must be refused for the right reason.
 */
const REASONS_FOR_SOURCE_ERRORS: Record<string, RegistrationFailureReason> = {
  'swa-none-wrong-challenge': 'CHALLENGE_MISMATCH',
  'swa-none-wrong-origin': 'ORIGIN_NOT_ALLOWED',
  'swa-none-wrong-rpid': 'RP_ID_MISMATCH',
  'swa-android-safetynet-cts-fail-enforced': 'ATTESTATION_INVALID',
  'swa-tpm-aaguid-ext-mismatch': 'ATTESTATION_INVALID',
  'swa-packed-aaguid-ext-mismatch': 'ATTESTATION_INVALID',
  'py-unsupported-fmt-derived': 'ATTESTATION_FORMAT_UNSUPPORTED',
  'py-packed-wrong-trust-anchor': 'ATTESTATION_INVALID',
  'py-empty-attestation-object': 'CREDENTIAL_MALFORMED',
  'go-w3c-spec-NoneES256CrossOriginNotAllowed': 'ORIGIN_NOT_ALLOWED',
  'go-w3c-spec-NoneES256TopOriginNotAllowed': 'ORIGIN_NOT_ALLOWED',
  'go-w3c-spec-AndroidKeyES256': 'ATTESTATION_INVALID',
};

// ---------------------------------------------------------------------------
// The source's conditions

/** Every algorithm SimpleWebAuthn knows: the sources did not restrict algorithms. */
const ALL_COSE_ALGORITHMS = Object.values(COSEALG).filter((v): v is number => typeof v === 'number');

/**
 * The verifier's clock. vectors.json records it per vector as the clock under which
 * the source's expectation holds: the source's pinned date, or — for SafetyNet,
 * whose JWS must be less than 60 s old and which SimpleWebAuthn cannot exempt —
 * the JWS timestamp + 1 s, or a time inside the certificates' validity windows
 * where the source ran on the real clock years ago. "real clock" means now.
 */
function clockFor(v: Vector): Date | undefined {
  const recorded = v.simplewebauthnOutcomeUnderSourceConditions.conditions?.clock;
  const iso = recorded && !Number.isNaN(Date.parse(recorded)) ? recorded : v.sourceConditions.fixedDate;
  return iso ? new Date(iso) : undefined;
}

const FORMATS: AttestationFormat[] = ['packed', 'fido-u2f', 'tpm', 'android-key', 'android-safetynet', 'apple'];

/**
 * The source's trust anchors. Absent: SimpleWebAuthn's defaults. A string
 * (fido2-lib) says the source validated no chain to a root: no anchors for any
 * format. Otherwise the named anchors per format, other formats at defaults.
 */
function trustAnchorsFor(v: Vector): TrustAnchors | undefined {
  const configured = v.sourceConditions.trustAnchors;
  if (configured === undefined || configured === null) return undefined;
  if (typeof configured === 'string') return Object.fromEntries(FORMATS.map((f) => [f, []]));
  const anchors: TrustAnchors = {};
  for (const [fmt, names] of Object.entries(configured)) {
    if (fmt === 'note') continue;
    if (!FORMATS.includes(fmt as AttestationFormat) || !Array.isArray(names)) {
      throw new Error(`${v.name}: unexpected trust anchor entry ${fmt}`);
    }
    anchors[fmt as AttestationFormat] = names.flatMap((n) => resolveAnchorName(fmt as AttestationFormat, n));
  }
  return anchors;
}

async function runVector(v: Vector): Promise<RegistrationVerificationResult> {
  const clock = clockFor(v);
  if (clock) {
    // SimpleWebAuthn has no clock parameter; it reads Date.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(clock);
  }
  return verifyRegistration({
    credential: v.credential,
    expectedChallenge: v.expectedChallenge,
    expectedOrigins: [v.expectedOrigin],
    expectedRpId: v.expectedRPID,
    requireUserVerification: v.requireUserVerification,
    supportedAlgorithmIDs: v.extraOptions?.supportedAlgorithmIDs ?? ALL_COSE_ALGORITHMS,
    trustAnchors: trustAnchorsFor(v),
    allowCrossOrigin: v.sourceConditions.allowCrossOrigin ?? false,
    allowedTopOrigins: v.sourceConditions.rpTopOrigins,
  });
}

const outcomeOf = (r: RegistrationVerificationResult): Outcome => (r.ok ? 'ok' : r.reason);

// ---------------------------------------------------------------------------

const agreed: string[] = [];
const differed: string[] = [];

beforeAll(() => {
  // SimpleWebAuthn downloads CRLs while checking certificate paths. The corpus is a
  // recorded, offline run: no test may depend on what a CA serves today.
  vi.stubGlobal('fetch', () => Promise.reject(new Error('offline: the conformance run fetches nothing')));
});

afterEach(() => {
  vi.useRealTimers();
});

afterAll(() => {
  vi.unstubAllGlobals();
  const lines = differed.map((name) => `  ${name} → ${DELIBERATE_DIFFERENCES[name].keyhold}: ${DELIBERATE_DIFFERENCES[name].why}`);
  console.log(
    `WebAuthn conformance: Keyhold agrees with the source on ${agreed.length}/${vectors.length} vectors; ` +
      `${differed.length} deliberate differences:\n${lines.join('\n')}`,
  );
});

describe('WebAuthn registration conformance corpus', () => {
  it('has the 92 vectors the README describes', () => {
    expect(vectors).toHaveLength(92);
    expect(new Set(vectors.map((v) => v.name)).size).toBe(92);
  });

  it('lists only existing vectors as deliberate differences and reasons', () => {
    const names = new Set(vectors.map((v) => v.name));
    for (const name of [...Object.keys(DELIBERATE_DIFFERENCES), ...Object.keys(REASONS_FOR_SOURCE_ERRORS)]) {
      expect(names.has(name), name).toBe(true);
    }
  });

  for (const v of vectors) {
    it(`${v.name} (${v.fmt ?? 'no fmt'}, source expects ${v.sourceExpects})`, async () => {
      const result = await runVector(v);
      const outcome = outcomeOf(result);
      const difference = DELIBERATE_DIFFERENCES[v.name];
      if (difference) {
        expect(outcome, result.ok ? 'verified' : result.detail).toBe(difference.keyhold);
        // A listed difference must still be one; otherwise the list is stale.
        const sourceAgrees = v.sourceExpects === 'ok' ? result.ok : v.sourceExpects === 'error' ? !result.ok : true;
        expect(sourceAgrees, 'listed as a deliberate difference but Keyhold agrees with the source').toBe(false);
        differed.push(v.name);
        return;
      }
      if (v.sourceExpects === 'ok') {
        expect(outcome, result.ok ? 'verified' : result.detail).toBe('ok');
      } else if (v.sourceExpects === 'error') {
        expect(outcome, result.ok ? 'verified' : result.detail).toBe(REASONS_FOR_SOURCE_ERRORS[v.name] ?? 'a listed reason');
      }
      // parse-only: the source only parses it; reaching here without a throw is the check.
      agreed.push(v.name);
    });
  }

  // Four sources held standard base64; vectors.json carries their original spelling.
  // SimpleWebAuthn decodes it silently into other bytes (and then fails on an
  // unrelated check, or not at all); Keyhold says what is wrong.
  for (const v of vectors.filter((x) => (x as { credentialAsInSource?: unknown }).credentialAsInSource)) {
    it(`${v.name}: the source's standard-base64 spelling is refused as malformed`, async () => {
      const asInSource = (v as unknown as { credentialAsInSource: unknown }).credentialAsInSource;
      const result = await runVector({ ...v, credential: asInSource });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.reason).toBe('CREDENTIAL_MALFORMED');
      // swa-packed-x5c-yubikey's id "aaa" is refused before its clientDataJSON is read.
      expect(result.detail).toMatch(/standard base64|not canonical base64url/);
    });
  }

  it('accounts for every vector: agreement or a listed difference', () => {
    expect(agreed.length + differed.length).toBe(vectors.length);
    expect(differed.length).toBe(Object.keys(DELIBERATE_DIFFERENCES).length);
  });
});
