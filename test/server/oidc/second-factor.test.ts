// The "password done, second factor pending" state (second-factor.ts) on a
// stand-in interaction, and the key step's RP ID choice (key-step.ts rpIdFor).
import { describe, expect, it } from 'vitest';
import { rpIdFor } from '../../../src/server/oidc/key-step.js';
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
    // A recovery code in place of a key (issue 18 "Lost key"): RFC 8176 has no value for it, and it is no key.
    expect(amrWith('recovery')).toEqual(['pwd', 'mfa']);
  });
});

describe('rpIdFor', () => {
  it('the configured RP ID the host is, or is under; the first one otherwise', () => {
    expect(rpIdFor('localhost:8080', ['localhost'])).toBe('localhost');
    expect(rpIdFor('login.example.com', ['other.org', 'example.com'])).toBe('example.com');
    expect(rpIdFor('evil-example.com', ['other.org', 'example.com'])).toBe('other.org');
    expect(rpIdFor('[::1]:8080', ['localhost', '::1'])).toBe('::1');
  });
});
