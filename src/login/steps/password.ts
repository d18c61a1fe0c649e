// The password page. The check is the password-check command (throttle →
// verify → record → lockout); an unknown name is checked too (against a dummy
// hash, in budgets of the typed name): same time, same answer.
import type { PasswordVerdict } from '../../commands/login/check-password.js';
import { passwordForm } from '../pages/forms.js';
import { t } from '../pages/layout.js';
import type { StateOf } from '../state.js';
import { identify } from './identify.js';
import { decideSecondFactor } from './second-factor.js';
import type { StepContext, Step } from './step.js';

/**
 * What a refused password is told. A locked or deactivated account, and the
 * wrong password that locked it: the state only to a browser that signed in
 * to it before, to anyone else the answer of a wrong password (else the lock
 * tells a stranger that the name exists).
 */
function refusal(ctx: StepContext, userId: string | undefined, verdict: Extract<PasswordVerdict, { ok: false }>): string {
  if (verdict.retryAfterSeconds !== undefined) return t(ctx.lang, 'slowDown', { seconds: verdict.retryAfterSeconds });
  if (verdict.reason === 'locked' || verdict.reason === 'lockedOut') return t(ctx.lang, ctx.knownTo(userId) ? verdict.reason : 'unknownOrWrong');
  return t(ctx.lang, 'unknownOrWrong');
}

export const password: Step<StateOf<'password'>, 'password' | 'username' | 'forgot'> = {
  // A name typed again (the username page in another tab, or after going back) starts from it.
  actions: ['password', 'username', 'forgot'],
  async render(ctx, state, problem) {
    const { lang, interaction } = ctx;
    return { page: { title: t(lang, 'title'), body: passwordForm(lang, interaction.uid, ctx.hidden, interaction.app.name, state.loginName, problem?.text) } };
  },
  async submit(ctx, state, action) {
    if (action === 'username') return identify.submit(ctx, { step: 'identify' }, action);
    if (action === 'forgot') return { outcome: { kind: 'forgotRequested' } };
    const verdict = await ctx.ports.verifyPassword({
      userId: state.userId,
      loginName: state.loginName,
      password: ctx.field('password'),
      client: ctx.guessClient(state.userId),
      clientId: ctx.interaction.clientId,
    });
    if (!verdict.ok) return { outcome: { kind: 'passwordWrong' }, problem: { text: refusal(ctx, state.userId, verdict) } };
    if (verdict.changeRequired) return { outcome: { kind: 'passwordRight', changeRequired: true } };
    const { secondFactor } = await decideSecondFactor(ctx.issuer, ctx.ports, state.userId!, verdict.secondFactorReady);
    return { outcome: { kind: 'passwordRight', changeRequired: false, secondFactor, at: ctx.now() } };
  },
};
