// Which keys a login can use (src/login/relying-parties.ts): decided from the
// issuer's host and the configured relying parties, never from a request.
import { describe, expect, it } from 'vitest';
import { keysForLogin, loginRpIds, relyingPartyWarnings, whereKeysWork } from '../../src/login/relying-parties.js';

describe('relying parties of the login', () => {
  const parties = { rpIds: ['example.com', 'login.example.com', 'other.org'], origins: ['https://login.example.com', 'https://app.other.org'] };
  const key = (rpId: string, credentialId = rpId) => ({ credentialId, transports: [], rpId });

  it("the issuer's host decides, never a request: the configured RP ids it is or is under, when its origin is configured", () => {
    expect(loginRpIds('https://login.example.com', parties)).toEqual(['example.com', 'login.example.com']);
    expect(loginRpIds('https://evil-example.com', { ...parties, origins: [...parties.origins, 'https://evil-example.com'] })).toEqual([]);
    // The page's answers would not verify: its origin is no configured origin.
    expect(loginRpIds('https://sso.example.com', parties)).toEqual([]);
    expect(loginRpIds('http://localhost:8080', { rpIds: ['localhost'], origins: ['http://localhost:8080'] })).toEqual(['localhost']);
  });

  it('the ceremony takes the keys of one usable RP id; keys elsewhere are named with their origins, or as no longer configured', () => {
    const ids = loginRpIds('https://login.example.com', parties);
    expect(keysForLogin([key('other.org'), key('login.example.com', 'a'), key('login.example.com', 'b')], ids)).toEqual({ rpId: 'login.example.com', keys: [key('login.example.com', 'a'), key('login.example.com', 'b')] });
    expect(keysForLogin([key('other.org')], ids)).toBeUndefined();
    expect(whereKeysWork([key('other.org'), key('gone.example'), key('other.org', 'x')], parties)).toEqual([
      { rpId: 'gone.example', origins: [] },
      { rpId: 'other.org', origins: ['https://app.other.org'] },
    ]);
  });

  it('start-up warnings: a login that cannot use keys, and keys under RP ids no longer configured (counts only)', () => {
    expect(relyingPartyWarnings('https://login.example.com', parties, [{ rpId: 'example.com', keys: 3 }])).toEqual([]);
    const warned = relyingPartyWarnings('https://sso.example.com', parties, [{ rpId: 'gone.example', keys: 2 }, { rpId: 'other.org', keys: 1 }]);
    expect(warned.map((w) => w.fields)).toEqual([{ issuer: 'https://sso.example.com', rpIds: parties.rpIds, origins: parties.origins }, { rpId: 'gone.example', keys: 2 }]);
  });
});
