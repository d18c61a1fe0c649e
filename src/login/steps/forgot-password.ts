// "Forgot password?": the name to send a link for. Sending answers the same
// page at once whatever the name (the lookup and the mail happen after the
// answer: password-reset.ts), so the page tells nobody whether it has an
// account. Without mail configured the page says to ask an administrator.
import { forgotForm } from '../pages/forms.js';
import { t } from '../pages/layout.js';
import type { StateOf } from '../state.js';
import type { Step } from './step.js';

export const forgotPassword: Step<StateOf<'forgotPassword'>> = {
  actions: ['send'],
  async render(ctx, state) {
    return { page: { title: t(ctx.lang, 'forgotTitle'), body: forgotForm(ctx.lang, ctx.interaction.uid, ctx.hidden, state.loginName, ctx.ports.mailConfigured()) } };
  },
  async submit(ctx) {
    const loginName = ctx.field('username').trim();
    if (!ctx.ports.mailConfigured()) return { outcome: { kind: 'refused' } };
    if (!loginName) return { outcome: { kind: 'refused' } };
    ctx.ports.requestPasswordReset(loginName, ctx.interaction.orgId, ctx.lang);
    return { outcome: { kind: 'resetRequested' } };
  },
};
