// A recovery code in place of a lost key. A right code finishes the login as a
// second factor with amr ['pwd', 'mfa'] — no 'hwk', since no key was used. A
// wrong, spent or malformed code gets its reason in words on the same form
// (RECOVERY_CODE_* in the catalogue); wrong codes spend guessing budgets as
// passwords do (the recovery-code check command). Works without JavaScript.
import { renderMessage } from '../../domain/errors/reasons.js';
import { escapeHtml, t } from '../pages/layout.js';
import { MAX_CODE, recoveryBody } from '../pages/recovery.js';
import type { StateOf } from '../state.js';
import type { Step } from './step.js';

export const recoveryCode: Step<StateOf<'recoveryCode'>, 'recovery' | 'use-key'> = {
  actions: ['recovery', 'use-key'],
  async render(ctx, state, problem) {
    return { page: { title: t(ctx.lang, 'recoveryTitle'), body: recoveryBody(ctx.lang, ctx.interaction.uid, ctx.hidden, state.loginName, problem) } };
  },
  async submit(ctx, state, action) {
    if (action === 'use-key') return { outcome: { kind: 'keyRequested' } };
    const raw = ctx.body.code;
    const typed = typeof raw === 'string' ? raw.slice(0, MAX_CODE + 1) : '';
    const verdict = await ctx.ports.useRecoveryCode(state.userId, typed, ctx.guessClient(state.userId), ctx.interaction.clientId);
    if (!verdict.ok) {
      ctx.secondFactor('recovery_code', verdict.reason === 'RECOVERY_CODE_SLOW_DOWN' ? 'throttled' : 'failed');
      const text = escapeHtml(renderMessage(verdict.reason, ctx.lang, { seconds: String(verdict.retryAfterSeconds ?? '') }));
      return { outcome: { kind: 'refused' }, problem: { text, reason: verdict.reason } };
    }
    ctx.secondFactor('recovery_code', 'succeeded');
    return { outcome: { kind: 'codeAccepted' } };
  },
};
