// A code from the user's authenticator app as the second factor. The check is
// the use-totp command (budgets reserved first, now ±1 step, the matched step
// claimed once, the event); this step only calls it and renders the answer.
// A right code finishes with amr ['pwd', 'otp', 'mfa']. A lost phone: a
// recovery code (the page's link); a user with a key too: the key instead.
import { renderMessage } from '../../domain/errors/reasons.js';
import { escapeHtml, t } from '../pages/layout.js';
import { MAX_TOTP_CODE, totpBody } from '../pages/totp.js';
import type { StateOf } from '../state.js';
import { decideSecondFactor } from './second-factor.js';
import type { Step } from './step.js';

export const totp: Step<StateOf<'totp'>, 'totp' | 'use-key'> = {
  actions: ['totp', 'use-key'],
  async render(ctx, state, problem) {
    // The app removed meanwhile: what the user has now decides.
    const factors = await ctx.ports.secondFactorsOf(state.userId);
    if (!factors.hasTotp) {
      const decided = await decideSecondFactor(ctx.issuer, ctx.ports, state.userId);
      return { outcome: { kind: 'secondFactorDecided', secondFactor: decided.secondFactor } };
    }
    const hasKey = factors.keys.length > 0;
    return { page: { title: t(ctx.lang, 'totpTitle'), body: totpBody(ctx.lang, ctx.interaction.uid, ctx.hidden, state.loginName, hasKey, problem) } };
  },
  async submit(ctx, state, action) {
    if (action === 'use-key') return { outcome: { kind: 'keyRequested' } };
    const client = ctx.guessClient(state.userId);
    const used = await ctx.ports.useTotp({ userId: state.userId, clientId: ctx.interaction.clientId, code: ctx.field('code').slice(0, MAX_TOTP_CODE), client });
    if (!used.ok) {
      ctx.secondFactor('one_time_code', used.reason === 'TOTP_SLOW_DOWN' ? 'throttled' : 'failed');
      const seconds = used.reason === 'TOTP_SLOW_DOWN' ? String(used.retryAfterSeconds) : '';
      const text = escapeHtml(renderMessage(used.reason, ctx.lang, { seconds, userId: state.userId }));
      return { outcome: { kind: 'refused' }, problem: { text, reason: used.reason } };
    }
    ctx.secondFactor('one_time_code', 'succeeded');
    return { outcome: { kind: 'totpAccepted' } };
  },
};
