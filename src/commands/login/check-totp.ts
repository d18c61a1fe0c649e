// A code from the user's authenticator app typed at the login: reserved in its
// guessing budgets (../totp/totp.ts totpBuckets) before the use-totp command
// checks it and, when right, spends its time step — as a password and a
// recovery code are (./check-password.ts, ./check-recovery-code.ts).
import type { Commands } from '../index.js';
import { normalizeTotpCode } from '../../domain/totp/totp.js';
import { totpBuckets, type UseTotpInput, type UseTotpResult } from '../totp/totp.js';
import type { GuessBudgets } from '../ports.js';
import { spend } from './guesses.js';

export interface TotpCheckDeps {
  commands: Pick<Commands, 'useTotp'>;
  budgets: GuessBudgets;
}

export async function checkTotp(deps: TotpCheckDeps, input: UseTotpInput): Promise<UseTotpResult> {
  // Input that is no code at all tries nothing: refused before it takes a place.
  if (!normalizeTotpCode(input.code ?? '').ok) return { ok: false, reason: 'TOTP_CODE_MALFORMED' };
  // Reserved before any check: a guess beyond the budget is not even tried (nor recorded).
  const held = await deps.budgets.reserve(totpBuckets(input.userId, input.client));
  if (!held.ok) return { ok: false, reason: 'TOTP_SLOW_DOWN', retryAfterSeconds: held.waitSeconds };
  const { result } = await spend(held, (counts) => deps.commands.useTotp(input, counts));
  return result;
}
