// A new password after a right one that must be changed: the user's own
// SetPassword; its refusal (the password rules) in the page's language.
import { changeForm } from '../pages/forms.js';
import { escapeHtml, t } from '../pages/layout.js';
import type { StateOf } from '../state.js';
import { decideSecondFactor } from './second-factor.js';
import type { Step } from './step.js';

export const changePassword: Step<StateOf<'changePassword'>, 'change'> = {
  actions: ['change'],
  async render(ctx, state, problem) {
    return { page: { title: t(ctx.lang, 'changePassword'), body: changeForm(ctx.lang, ctx.interaction.uid, ctx.hidden, state.loginName, problem?.text) } };
  },
  async submit(ctx, state) {
    const chosen = ctx.field('new_password');
    if (chosen !== ctx.field('confirm_password')) return { outcome: { kind: 'refused' }, problem: { text: t(ctx.lang, 'passwordsDiffer') } };
    const changed = await ctx.ports.changePassword(state.userId, chosen, ctx.lang);
    if (!changed.ok) return { outcome: { kind: 'refused' }, problem: { text: escapeHtml(changed.problem) } };
    const { secondFactor } = await decideSecondFactor(ctx.issuer, ctx.ports, state.userId);
    return { outcome: { kind: 'passwordChanged', secondFactor, at: ctx.now() } };
  },
};
