// verifyRegistration, one reason at a time: a real, correctly signed registration
// from the software authenticator, changed in exactly one place.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  REGISTRATION_FAILURE_REASONS,
  verifyRegistration,
  type RegistrationFailureReason,
  type RegistrationVerificationInput,
  type RegistrationVerificationResult,
} from '../../../src/domain/webauthn/index.js';
import {
  createSoftAuthenticator,
  encodeCbor,
  type CborValue,
  type MakeRegistrationOptions,
} from '../../support/soft-authenticator.js';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';

const RP_ID = 'login.example.com';
const ORIGIN = 'https://login.example.com';
const CHALLENGE = randomBytes(32).toString('base64url');

const key = createSoftAuthenticator({ alg: -7 });

function register(options: Partial<MakeRegistrationOptions> = {}, authenticator = key): RegistrationResponseJSON {
  return authenticator.makeRegistration({ challenge: CHALLENGE, origin: ORIGIN, rpId: RP_ID, fmt: 'packed', ...options });
}

function verify(credential: unknown, input: Partial<RegistrationVerificationInput> = {}) {
  return verifyRegistration({
    credential,
    expectedChallenge: CHALLENGE,
    expectedOrigins: [ORIGIN],
    expectedRpId: RP_ID,
    ...input,
  });
}

async function expectRefused(
  pending: Promise<RegistrationVerificationResult>,
  reason: RegistrationFailureReason,
  detail?: RegExp,
): Promise<string> {
  const result = await pending;
  expect(result.ok ? 'verified' : `${result.reason}: ${result.detail}`).toMatch(new RegExp(`^${reason}: `));
  if (result.ok) return '';
  if (detail) expect(result.detail).toMatch(detail);
  return result.detail;
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const fromB64url = (s: string) => Uint8Array.from(Buffer.from(s, 'base64url'));

describe('verifyRegistration accepts', () => {
  it('a packed self-attested registration and returns what to store', async () => {
    const result = await verify(register({ signCount: 7, transports: ['usb', 'nfc'] }));
    expect(result).toEqual({
      ok: true,
      credential: {
        credentialId: key.credentialId,
        publicKey: key.cosePublicKey,
        algorithm: -7,
        format: 'packed',
        aaguid: '00000000-0000-0000-0000-000000000000',
        signCount: 7,
        transports: ['usb', 'nfc'],
        backupEligible: false,
        backedUp: false,
        userVerified: false,
        rpId: RP_ID,
      },
    });
  });

  it('a "none" registration', async () => {
    const result = await verify(register({ fmt: 'none' }));
    expect(result.ok && result.credential.format).toBe('none');
  });

  it('the same key twice (duplicate detection is the caller\'s, by credential id)', async () => {
    const first = await verify(register());
    const second = await verify(register());
    expect(first.ok && second.ok).toBe(true);
    if (first.ok && second.ok) expect(second.credential.credentialId).toBe(first.credential.credentialId);
  });

  it('EdDSA and RS256 keys by default, and reports AAGUID, UV and backup flags', async () => {
    const aaguid = Uint8Array.from(Buffer.from('ee882879721c491397753dfcce97072a', 'hex'));
    const ed = createSoftAuthenticator({ alg: -8, aaguid });
    const edResult = await verify(register({ flags: { uv: true, be: true, bs: true } }, ed));
    expect(edResult).toMatchObject({
      ok: true,
      credential: { algorithm: -8, aaguid: 'ee882879-721c-4913-9775-3dfcce97072a', userVerified: true, backupEligible: true, backedUp: true },
    });
    const rsa = createSoftAuthenticator({ alg: -257 });
    expect(await verify(register({}, rsa))).toMatchObject({ ok: true, credential: { algorithm: -257 } });
  });

  it('a configured origin written with a trailing slash', async () => {
    expect((await verify(register(), { expectedOrigins: [`${ORIGIN}/`] })).ok).toBe(true);
  });

  it('only known transports, once each', async () => {
    const result = await verify(register({ transports: ['usb', 'fake', 'usb', 'hybrid'] }));
    expect(result.ok && result.credential.transports).toEqual(['usb', 'hybrid']);
  });

  it('a response without transports (older clients)', async () => {
    const credential = register({ tamper: { json: (j) => void delete j.response.transports } });
    expect(await verify(credential)).toMatchObject({ ok: true, credential: { transports: [] } });
  });
});

describe('CREDENTIAL_MALFORMED', () => {
  it.each([
    ['null', null],
    ['an array', [register()]],
    ['a string', JSON.stringify(register())],
    ['a number', 42],
    ['undefined', undefined],
  ])('the credential is %s', async (_what, credential) => {
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', /not a JSON object/);
  });

  it.each<[string, (j: Record<string, any>) => void, RegExp]>([
    ['id missing', (j) => delete j.id, /^id is missing/],
    ['rawId a number', (j) => (j.rawId = 5), /^rawId is missing or not a string/],
    ['type not public-key', (j) => (j.type = 'password'), /type is not "public-key"/],
    ['response missing', (j) => delete j.response, /^response is missing/],
    ['clientDataJSON empty', (j) => (j.response.clientDataJSON = ''), /clientDataJSON is empty/],
    ['attestationObject not a string', (j) => (j.response.attestationObject = {}), /attestationObject is missing or not a string/],
    ['transports not strings', (j) => (j.response.transports = ['usb', 1]), /transports is not a list of strings/],
    ['id and rawId differ', (j) => (j.rawId = b64url(randomBytes(32))), /id and rawId name different credentials/],
  ])('%s', async (_what, edit, detail) => {
    const credential = register({ tamper: { json: edit as (j: RegistrationResponseJSON) => void } });
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', detail);
  });

  it('standard base64 instead of base64url is refused, not mis-decoded', async () => {
    // JSON may carry trailing spaces; make its length ≡ 1 (mod 3) so base64 needs '==' padding.
    const credential = register({ tamper: { clientDataJSON: (json) => json + ' '.repeat((4 - (json.length % 3)) % 3) } });
    const standard = Buffer.from(credential.response.clientDataJSON, 'base64url').toString('base64');
    expect(standard).toMatch(/==$/); // the case under test
    credential.response.clientDataJSON = standard;
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', /clientDataJSON is standard base64/);
  });

  it('characters outside base64url', async () => {
    const credential = register({ tamper: { json: (j) => (j.response.attestationObject += '.') } });
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', /outside the base64url alphabet/);
  });

  it('a non-canonical base64url id (stray low bits)', async () => {
    const credential = register({ tamper: { json: (j) => {
      // 32 bytes → 43 characters; the last carries 4 unused bits. Set one.
      const last = j.id.at(-1)!;
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      j.id = j.rawId = j.id.slice(0, -1) + alphabet[alphabet.indexOf(last) | 1];
    } } });
    expect(fromB64url(credential.id)).toEqual(key.credentialIdBytes); // Node decodes it to the same bytes
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', /^id is not canonical base64url/);
  });

  it('clientDataJSON that is not JSON', async () => {
    const credential = register({ tamper: { clientDataJSON: (json) => json.slice(0, -1) } });
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', /clientDataJSON is not valid JSON/);
  });

  it('clientDataJSON that is not UTF-8', async () => {
    const credential = register({ tamper: { json: (j) => (j.response.clientDataJSON = b64url(Uint8Array.of(0x7b, 0xff, 0x7d))) } });
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', /not UTF-8/);
  });

  it('clientDataJSON with a member twice (two parsers would read two ceremonies)', async () => {
    const credential = register({ tamper: { clientDataJSON: (json) => json.replace('{', '{"type":"webauthn.get",') } });
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', /clientDataJSON has a key twice in one object \(at clientDataJSON\.type\)/);
    const origin = register({ tamper: { clientDataJSON: (json) => json.replace(/}$/, ',"origin":"https://evil.example"}') } });
    await expectRefused(verify(origin), 'CREDENTIAL_MALFORMED', /at clientDataJSON\.origin/);
  });

  it('clientDataJSON with half a surrogate pair escaped', async () => {
    const credential = register({ tamper: { clientDataJSON: (json) => json.replace(/}$/, ',"note":"\\ud800"}') } });
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', /unpaired surrogate/);
  });

  it('clientDataJSON without an origin', async () => {
    const credential = register({ tamper: { clientDataJSON: (json) => JSON.stringify({ ...JSON.parse(json), origin: undefined }) } });
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', /clientDataJSON.origin is missing/);
  });

  it('a tokenBinding that is a bare string', async () => {
    const credential = register({ tamper: { clientDataJSON: (json) => JSON.stringify({ ...JSON.parse(json), tokenBinding: 'unused' }) } });
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', /tokenBinding is not an object/);
  });

  it('an attestationObject that is not CBOR', async () => {
    const credential = register({ tamper: { json: (j) => (j.response.attestationObject = b64url(Uint8Array.of(0xa3, 0x63, 0x66))) } });
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', /attestationObject is not valid CBOR/);
  });

  it('bytes after the attestationObject map', async () => {
    const credential = register({ tamper: { json: (j) => {
      j.response.attestationObject = b64url(Uint8Array.from([...fromB64url(j.response.attestationObject), 0x00]));
    } } });
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', /not exactly one canonical CBOR map/);
  });

  it('an attestationObject without authData', async () => {
    const credential = register({ tamper: { attestationObject: (m) => void m.delete('authData') } });
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', /authData is missing/);
  });

  it('authenticator data cut short', async () => {
    const credential = register({ tamper: { authData: (a) => a.slice(0, 60) } });
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', /truncated inside the credential id/);
  });

  it('authenticator data with trailing bytes', async () => {
    const credential = register({ tamper: { authData: (a) => Uint8Array.from([...a, 0xf6]) } });
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', /1 unexpected trailing bytes/);
  });

  it('no attested credential data (AT unset)', async () => {
    await expectRefused(verify(register({ flags: { at: false } })), 'CREDENTIAL_MALFORMED', /AT flag unset/);
  });

  it('backed up but not backup eligible', async () => {
    await expectRefused(verify(register({ flags: { bs: true } })), 'CREDENTIAL_MALFORMED', /BS\) but not backup eligible/);
  });

  it('an id that is not the attested credential id', async () => {
    const other = createSoftAuthenticator();
    const credential = register({ tamper: { json: (j) => (j.id = j.rawId = other.credentialId) } });
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED', /does not match the credential id in the authenticator data/);
  });
});

describe('the ceremony', () => {
  it('WRONG_CEREMONY: an authentication response (webauthn.get)', async () => {
    await expectRefused(verify(register({ clientDataType: 'webauthn.get' })), 'WRONG_CEREMONY', /"webauthn.create"/);
  });

  it('CHALLENGE_MISMATCH: another challenge, never echoed', async () => {
    const sent = randomBytes(32).toString('base64url');
    const detail = await expectRefused(verify(register({ challenge: sent })), 'CHALLENGE_MISMATCH');
    expect(detail).not.toContain(sent);
    expect(detail).not.toContain(CHALLENGE);
  });

  it('ORIGIN_NOT_ALLOWED: another origin, never echoed', async () => {
    const sent = 'https://login.example.com.evil.test';
    const detail = await expectRefused(verify(register({ origin: sent })), 'ORIGIN_NOT_ALLOWED');
    expect(detail).toBe('the origin is not one of the configured origins');
  });

  it('ORIGIN_NOT_ALLOWED: created in a cross-origin iframe, unless allowed', async () => {
    const embedded = register({ crossOrigin: true, topOrigin: 'https://portal.example.com' });
    await expectRefused(verify(embedded), 'ORIGIN_NOT_ALLOWED', /cross-origin frame/);
    expect((await verify(embedded, { allowCrossOrigin: true })).ok).toBe(true);
    expect((await verify(embedded, { allowCrossOrigin: true, allowedTopOrigins: ['https://portal.example.com/'] })).ok).toBe(true);
    await expectRefused(
      verify(embedded, { allowCrossOrigin: true, allowedTopOrigins: ['https://other.example.com'] }),
      'ORIGIN_NOT_ALLOWED',
      /top-level origin/,
    );
  });

  it('RP_ID_MISMATCH: authData scoped to another RP ID (correctly signed)', async () => {
    await expectRefused(verify(register({ rpIdForHash: 'example.com' })), 'RP_ID_MISMATCH', /rpIdHash/);
  });

  it('USER_NOT_PRESENT: UP flag unset (correctly signed)', async () => {
    await expectRefused(verify(register({ flags: { up: false } })), 'USER_NOT_PRESENT', /UP/);
  });

  it('USER_NOT_VERIFIED: only when verification is required', async () => {
    await expectRefused(verify(register(), { requireUserVerification: true }), 'USER_NOT_VERIFIED', /UV/);
    expect((await verify(register({ flags: { uv: true } }), { requireUserVerification: true })).ok).toBe(true);
    expect((await verify(register())).ok).toBe(true);
  });

  it('ALGORITHM_NOT_ALLOWED: an ES512 key by default, accepted when allowed', async () => {
    const es512 = createSoftAuthenticator({ alg: -36 });
    await expectRefused(verify(register({}, es512)), 'ALGORITHM_NOT_ALLOWED', /COSE -36/);
    expect((await verify(register({}, es512), { supportedAlgorithmIDs: [-7, -36] })).ok).toBe(true);
    await expectRefused(verify(register(), { supportedAlgorithmIDs: [-8] }), 'ALGORITHM_NOT_ALLOWED', /COSE -7/);
  });

  it('ATTESTATION_FORMAT_UNSUPPORTED: a format nobody defined', async () => {
    const credential = register({ tamper: { attestationObject: (m) => void m.set('fmt', 'x-vendor-proprietary') } });
    const detail = await expectRefused(verify(credential), 'ATTESTATION_FORMAT_UNSUPPORTED');
    expect(detail).not.toContain('x-vendor-proprietary');
  });

  it('ATTESTATION_INVALID: a packed signature changed in one byte', async () => {
    const credential = register({ tamper: { signature: (sig) => sig.map((b, i) => (i === 10 ? b ^ 0x01 : b)) } });
    await expectRefused(verify(credential), 'ATTESTATION_INVALID', /^packed attestation: /);
  });

  it('ATTESTATION_INVALID: clientDataJSON changed after the authenticator signed it', async () => {
    const credential = register();
    const clientData = JSON.parse(Buffer.from(credential.response.clientDataJSON, 'base64url').toString());
    credential.response.clientDataJSON = b64url(new TextEncoder().encode(JSON.stringify({ ...clientData, crossOrigin: false, extra: 1 })));
    await expectRefused(verify(credential), 'ATTESTATION_INVALID', /^packed attestation: /);
  });

  it('ATTESTATION_INVALID: a "none" statement that is not empty', async () => {
    const credential = register({ fmt: 'none', tamper: { attestationObject: (m) => void m.set('attStmt', new Map<CborValue, CborValue>([['alg', -7]])) } });
    await expectRefused(verify(credential), 'ATTESTATION_INVALID', /^none attestation: /);
  });

  it('ATTESTATION_INVALID: a packed statement naming another algorithm than the key', async () => {
    const credential = register({ tamper: { attestationObject: (m) => void (m.get('attStmt') as Map<CborValue, CborValue>).set('alg', -257) } });
    await expectRefused(verify(credential), 'ATTESTATION_INVALID', /self-attestation alg is not the credential key's algorithm/);
  });
});

describe('the order of checks decides which reason a response with several faults gets', () => {
  it('malformed before the ceremony', async () => {
    const credential = register({ challenge: 'other', tamper: { authData: (a) => Uint8Array.from([...a, 0]) } });
    await expectRefused(verify(credential), 'CREDENTIAL_MALFORMED');
  });

  it('WebAuthn §7.1 order: ceremony, challenge, origin, RP ID, presence, algorithm, format', async () => {
    const es512 = createSoftAuthenticator({ alg: -36 });
    // Every fault at once; repaired one by one, front to back, each time the next reason shows.
    const options: Partial<MakeRegistrationOptions> = {
      clientDataType: 'webauthn.get',
      challenge: 'other',
      origin: 'https://evil.test',
      rpIdForHash: 'evil.test',
      flags: { up: false },
      tamper: { attestationObject: (m) => void m.set('fmt', 'x-unknown') },
    };
    const steps: Array<[RegistrationFailureReason, () => void]> = [
      ['WRONG_CEREMONY', () => delete options.clientDataType],
      ['CHALLENGE_MISMATCH', () => delete options.challenge],
      ['ORIGIN_NOT_ALLOWED', () => delete options.origin],
      ['RP_ID_MISMATCH', () => delete options.rpIdForHash],
      ['USER_NOT_PRESENT', () => delete options.flags],
    ];
    for (const [reason, repair] of steps) {
      await expectRefused(verify(register(options, es512)), reason);
      repair();
    }
    await expectRefused(verify(register(options, es512)), 'ALGORITHM_NOT_ALLOWED');
    await expectRefused(verify(register(options, es512), { supportedAlgorithmIDs: [-36] }), 'ATTESTATION_FORMAT_UNSUPPORTED');
  });
});

describe('results', () => {
  it('every reason in the list is one a test above produces', () => {
    // Guard against a reason being added without a check and a test.
    expect(REGISTRATION_FAILURE_REASONS).toEqual([
      'CREDENTIAL_MALFORMED',
      'WRONG_CEREMONY',
      'CHALLENGE_MISMATCH',
      'ORIGIN_NOT_ALLOWED',
      'RP_ID_MISMATCH',
      'USER_NOT_PRESENT',
      'USER_NOT_VERIFIED',
      'ALGORITHM_NOT_ALLOWED',
      'ATTESTATION_INVALID',
      'ATTESTATION_FORMAT_UNSUPPORTED',
    ]);
  });

  it('CBOR from the test encoder is what a real authenticator sends (sanity of the fixture)', () => {
    expect(Buffer.from(encodeCbor(new Map<CborValue, CborValue>([[1, 2], [3, -7], [-1, 1]]))).toString('hex')).toBe('a3010203262001');
  });
});
