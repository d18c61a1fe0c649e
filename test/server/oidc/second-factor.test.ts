// The "password done, second factor pending" state (second-factor.ts) on a
// stand-in interaction, and which keys a login can use (relying-parties.ts).
import { describe, expect, it } from 'vitest';
import { keysForLogin, loginRpIds, relyingPartyWarnings, whereKeysWork } from '../../../src/server/oidc/relying-parties.js';
import { amrWith, beginSecondFactor, issueChallenge, saveSecondFactor, secondFactorOf, SPENT_KEPT, takeChallenge } from '../../../src/server/oidc/second-factor.js';

function interaction() {
  const saved: unknown[] = [];
  return {
    result: { keyhold: { loginName: 'ada', userId: 'u1' } } as any,
    saved,
    async persist() {
      saved.push(structuredClone(this.result));
    },
  };
}

describe('second factor state', () => {
  it('begins after the password, keeping the rest of the login’s progress', async () => {
    const i = interaction();
    expect(secondFactorOf(i)).toBeUndefined();
    await beginSecondFactor(i, 'u1', 'key', 1000);
    expect(secondFactorOf(i)).toEqual({ userId: 'u1', step: 'key', passwordAt: 1000, spent: [] });
    expect(i.result.keyhold.loginName).toBe('ada');
    await saveSecondFactor(i, undefined);
    expect(secondFactorOf(i)).toBeUndefined();
    expect(i.result.keyhold.loginName).toBe('ada');
  });

  it('a challenge is taken once; a new one spends the one before; the newest few are remembered', async () => {
    const i = interaction();
    await beginSecondFactor(i, 'u1', 'key');
    let state = (await issueChallenge(i, secondFactorOf(i)!, { value: 'c1', expiresAt: 5 }))!;
    state = (await issueChallenge(i, state, { value: 'c2', expiresAt: 6 }))!;
    expect(state.spent).toEqual(['c1']);
    const taken = await takeChallenge(i, state);
    expect(taken.taken).toEqual({ value: 'c2', expiresAt: 6 });
    expect(secondFactorOf(i)!.challenge).toBeUndefined();
    expect(secondFactorOf(i)!.spent).toEqual(['c1', 'c2']);
    const again = await takeChallenge(i, secondFactorOf(i)!);
    expect(again.taken).toBeUndefined();
    let s = secondFactorOf(i)!;
    for (let n = 0; n < SPENT_KEPT + 5; n++) s = (await issueChallenge(i, s, { value: `x${n}`, expiresAt: 0 }))!;
    expect(s.spent.length).toBe(SPENT_KEPT);
  });

  it('amr per RFC 8176', () => {
    expect(amrWith('hwk')).toEqual(['pwd', 'hwk', 'mfa']);
    // A recovery code in place of a lost key: RFC 8176 has no value for it, and it is no key.
    expect(amrWith('recovery')).toEqual(['pwd', 'mfa']);
  });
});

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
