// "Never throws for client-supplied input": whatever arrives as the credential,
// verifyRegistration resolves, to a credential or to one of its reasons.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REGISTRATION_FAILURE_REASONS, verifyRegistration } from '../../../src/domain/webauthn/index.js';
import { createSoftAuthenticator } from '../../support/soft-authenticator.js';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';

const RP_ID = 'login.example.com';
const ORIGIN = 'https://login.example.com';
const CHALLENGE = randomBytes(32).toString('base64url');
const key = createSoftAuthenticator();

const verify = (credential: unknown) =>
  verifyRegistration({ credential, expectedChallenge: CHALLENGE, expectedOrigins: [ORIGIN], expectedRpId: RP_ID });

const valid = (fmt: 'none' | 'packed' = 'none') =>
  key.makeRegistration({ challenge: CHALLENGE, origin: ORIGIN, rpId: RP_ID, fmt });

function expectSettled(result: Awaited<ReturnType<typeof verify>>): void {
  if (!result.ok) {
    expect(REGISTRATION_FAILURE_REASONS).toContain(result.reason);
    expect(typeof result.detail).toBe('string');
    expect(result.detail.length).toBeGreaterThan(0);
    expect(result.detail.length).toBeLessThanOrEqual(300);
  }
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

describe('verifyRegistration never throws on client input', () => {
  it('arbitrary JSON values are refused as malformed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const result = await verify(value);
        expect(result).toMatchObject({ ok: false, reason: 'CREDENTIAL_MALFORMED' });
      }),
      { numRuns: 300 },
    );
  });

  it('a valid credential with one member replaced by anything', async () => {
    const paths = ['id', 'rawId', 'type', 'response', 'response.clientDataJSON', 'response.attestationObject', 'response.transports'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.anything(), async (path, value) => {
        const credential = valid() as unknown as Record<string, Record<string, unknown>>;
        const [head, tail] = path.split('.');
        if (tail) credential[head][tail] = value;
        else (credential as Record<string, unknown>)[head] = value;
        expectSettled(await verify(credential));
      }),
      { numRuns: 300 },
    );
  });

  it('attestationObject bytes flipped, cut or extended', async () => {
    const base = valid('packed');
    const bytes = Buffer.from(base.response.attestationObject, 'base64url');
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat({ max: bytes.length - 1 }), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
        fc.nat({ max: bytes.length + 8 }),
        async (flips, length) => {
          const mutated = Uint8Array.from(bytes);
          for (const [at, xor] of flips) mutated[at] ^= xor;
          const sized = length <= mutated.length ? mutated.slice(0, length) : Uint8Array.from([...mutated, ...randomBytes(length - mutated.length)]);
          const credential: RegistrationResponseJSON = { ...base, response: { ...base.response, attestationObject: b64url(sized) } };
          expectSettled(await verify(credential));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('clientDataJSON with arbitrary members', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom('type', 'challenge', 'origin', 'crossOrigin', 'topOrigin', 'tokenBinding', 'x'), fc.jsonValue()), async (members) => {
        const credential = key.makeRegistration({
          challenge: CHALLENGE,
          origin: ORIGIN,
          rpId: RP_ID,
          tamper: { clientDataJSON: (json) => JSON.stringify({ ...JSON.parse(json), ...members }) },
        });
        expectSettled(await verify(credential));
      }),
      { numRuns: 300 },
    );
  });
});
