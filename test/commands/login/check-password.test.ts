// The login's password-check command (src/commands/login/check-password.ts)
// over stand-in ports: the order throttle → verify → record → lockout, and the
// facts read again under a lockout policy once the place is held.
import { describe, expect, it } from 'vitest';
import { checkLoginPassword, type PasswordCheckDeps } from '../../../src/commands/login/check-password.js';
import type { AttemptOutcome } from '../../../src/domain/identity/attempt-budget.js';
import { hashPassword } from '../../../src/domain/identity/passwords.js';
import type { PasswordFacts } from '../../../src/queries/read-model.js';

const RIGHT = 'the right passphrase 17';
const hash = hashPassword(RIGHT);

async function world(opts: { maxAttempts?: number; throttled?: boolean; lockedByRecord?: boolean; facts?: Partial<PasswordFacts> } = {}) {
  const calls: string[] = [];
  let facts: PasswordFacts = { userId: 'u1', orgId: 'o1', kind: 'human', passwordHash: await hash, changeRequired: false, state: 'active', ...opts.facts };
  const deps: PasswordCheckDeps = {
    read: {
      passwordOf: async () => {
        calls.push('read');
        return facts;
      },
      maxPasswordAttemptsOf: async () => opts.maxAttempts ?? 0,
    },
    budgets: {
      reserve: async (buckets) => {
        calls.push(`reserve ${buckets.map((b) => b.kind).join(',')}`);
        if (opts.throttled) return { ok: false, waitSeconds: 7 };
        return {
          ok: true,
          finish: async (outcome: AttemptOutcome) => {
            calls.push(`finish ${outcome}`);
            return [];
          },
        };
      },
    },
    commands: {
      recordLogin: async (input) => {
        calls.push(`record ${input.outcome}`);
        if (opts.lockedByRecord) facts = { ...facts, state: 'locked' };
        return { locked: Boolean(opts.lockedByRecord) };
      },
      recordOidc: async () => {
        calls.push('recordOidc');
        return undefined as never;
      },
      recordAnonymousThrottle: async () => {
        calls.push('recordAnonymousThrottle');
        return undefined as never;
      },
    },
    observer: { loginFailed: (f) => calls.push(`failed ${f}`), loginThrottled: () => calls.push('throttled') },
  };
  const attempt = (password: string, named = true) =>
    checkLoginPassword(deps, { userId: named ? 'u1' : undefined, loginName: 'ada', password, client: { address: '192.0.2.1' }, clientId: 'app' });
  return { calls, attempt };
}

describe('the password-check command', () => {
  it('a right password: reserved, verified, its place given back as a success; nothing recorded', async () => {
    const { calls, attempt } = await world();
    expect(await attempt(RIGHT)).toEqual({ ok: true, changeRequired: false });
    expect(calls).toEqual(['read', 'reserve password.account.client,password.account,password.address', 'finish success']);
  });

  it('a wrong password is recorded before its place is given back', async () => {
    const { calls, attempt } = await world();
    expect(await attempt('wrong')).toEqual({ ok: false, reason: 'wrong' });
    expect(calls).toEqual(['read', 'reserve password.account.client,password.account,password.address', 'record wrongPassword', 'finish failure', 'failed wrong_password']);
  });

  it('beyond the budget: not even tried, nothing recorded', async () => {
    const { calls, attempt } = await world({ throttled: true });
    expect(await attempt(RIGHT)).toEqual({ ok: false, reason: 'wrong', retryAfterSeconds: 7 });
    expect(calls).toEqual(['read', 'reserve password.account.client,password.account,password.address', 'throttled']);
  });

  it('under a lockout policy: the lockout bucket too, and the facts read again once the place is held', async () => {
    const { calls, attempt } = await world({ maxAttempts: 3 });
    expect(await attempt('wrong')).toEqual({ ok: false, reason: 'wrong' });
    expect(calls).toEqual(['read', 'reserve password.account.client,password.account,password.address,lockout', 'read', 'record wrongPassword', 'finish failure', 'failed wrong_password']);
  });

  it('the failure that reaches the policy says so (lockedOut)', async () => {
    const { attempt } = await world({ maxAttempts: 1, lockedByRecord: true });
    expect(await attempt('wrong')).toEqual({ ok: false, reason: 'lockedOut' });
    // Then the account is locked: even the right password compares nothing.
    expect(await attempt(RIGHT)).toEqual({ ok: false, reason: 'locked' });
  });

  it('a name nobody holds: checked all the same, nothing recorded for anyone', async () => {
    const { calls, attempt } = await world();
    expect(await attempt(RIGHT, false)).toEqual({ ok: false, reason: 'wrong' });
    expect(calls).toEqual(['reserve password.account.client,password.account,password.address', 'finish failure', 'failed unknown_user']);
  });
});
