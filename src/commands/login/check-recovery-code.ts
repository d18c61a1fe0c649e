// A recovery code typed at the login in place of a lost key: reserved in its
// guessing budgets (domain/identity/guess-buckets.ts recoveryBuckets) before
// the use-recovery-code command checks (and, when right, spends) it.
import type { Commands } from '../index.js';
import { recoveryBuckets, type GuessClient } from '../../domain/identity/guess-buckets.js';
import type { GuessBudgets } from '../ports.js';
import { spend } from './guesses.js';

export type RecoveryRefusal = 'RECOVERY_CODE_WRONG' | 'RECOVERY_CODE_MALFORMED' | 'RECOVERY_CODE_SLOW_DOWN';
export type RecoveryVerdict = { ok: true } | { ok: false; reason: RecoveryRefusal; retryAfterSeconds?: number };

export interface RecoveryCheckDeps {
  commands: Pick<Commands, 'useRecoveryCode'>;
  budgets: GuessBudgets;
}

export async function checkRecoveryCode(deps: RecoveryCheckDeps, userId: string, typed: string, client: GuessClient, clientId: string): Promise<RecoveryVerdict> {
  // Reserved before any check: a guess beyond the budget is not even tried (nor recorded).
  const held = await deps.budgets.reserve(recoveryBuckets(userId, client));
  if (!held.ok) return { ok: false, reason: 'RECOVERY_CODE_SLOW_DOWN', retryAfterSeconds: held.waitSeconds };
  const { result } = await spend(held, async (counts) => {
    const used = await deps.commands.useRecoveryCode({ userId, clientId, typed });
    // Input that is no code at all tried nothing: it gives its place back uncounted.
    counts(used.ok ? 'success' : used.reason === 'RECOVERY_CODE_WRONG' ? 'failure' : 'none');
    return used;
  });
  return result;
}
