// loginRpIdsOf is the one RP-id rule of the login: the security-key step's
// loginRpIds (src/login/relying-parties.ts) and the passkey login answer alike.
import { describe, expect, it } from 'vitest';
import { loginRpIdsOf } from '../../../src/domain/webauthn/relying-party.js';
import { buildDiscoverableRequestOptions, passkeyLoginOptions } from '../../../src/domain/webauthn/request-options.js';
import { loginRpIds } from '../../../src/login/relying-parties.js';

const CASES: Array<{ issuer: string; rpIds: string[]; origins: string[] }> = [
  { issuer: 'https://login.example', rpIds: ['login.example'], origins: ['https://login.example'] },
  { issuer: 'https://id.shop.example', rpIds: ['other.example', 'shop.example', 'id.shop.example'], origins: ['https://id.shop.example/'] },
  { issuer: 'https://login.example', rpIds: ['login.example'], origins: ['https://elsewhere.example'] },
  { issuer: 'http://localhost:8080', rpIds: ['localhost'], origins: ['http://localhost:8080'] },
  { issuer: 'https://evil-login.example', rpIds: ['login.example'], origins: ['https://evil-login.example'] },
];

describe('the passkey login’s RP ids and options', () => {
  it('loginRpIdsOf answers as the security-key step’s loginRpIds', () => {
    for (const c of CASES) expect(loginRpIdsOf(c.issuer, c.rpIds, c.origins), c.issuer).toEqual(loginRpIds(c.issuer, { rpIds: c.rpIds, origins: c.origins }));
  });

  it('discoverable options: no allowCredentials, UV required, the first usable RP id', () => {
    const challenge = new Uint8Array(32).fill(7);
    expect(buildDiscoverableRequestOptions({ rpId: 'login.example', challenge, timeoutMs: 60_000 })).toEqual({
      challenge: Buffer.from(challenge).toString('base64url'),
      rpId: 'login.example',
      timeout: 60_000,
      allowCredentials: [],
      userVerification: 'required',
    });
    const made = passkeyLoginOptions({ issuer: 'https://id.shop.example', rpIds: ['other.example', 'shop.example'], origins: ['https://id.shop.example'], challenge, timeoutMs: 1000 });
    expect(made?.options.rpId).toBe('shop.example');
    expect(made?.rpIds).toEqual(['shop.example']);
    expect(() => buildDiscoverableRequestOptions({ rpId: 'x', challenge: new Uint8Array(16), timeoutMs: 1 })).toThrow(RangeError);
  });
});
