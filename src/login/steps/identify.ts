// The username page. An unknown name is not revealed: the password step
// follows anyway and fails as a wrong password would.
import { usernameForm } from '../pages/forms.js';
import { t } from '../pages/layout.js';
import type { StateOf } from '../state.js';
import type { Step } from './step.js';

export const identify: Step<StateOf<'identify'>> = {
  actions: ['username'],
  async render(ctx, _state, problem) {
    const { lang, interaction } = ctx;
    return { page: { title: t(lang, 'title'), body: usernameForm(lang, interaction.uid, ctx.hidden, interaction.app.name, interaction.loginHint, problem?.text) } };
  },
  async submit(ctx) {
    const loginName = ctx.field('username').trim();
    if (!loginName) return { outcome: { kind: 'refused' }, problem: { text: t(ctx.lang, 'unknownOrWrong') } };
    const user = await ctx.ports.findLoginUser(loginName, ctx.interaction.orgId);
    return { outcome: { kind: 'nameFound', loginName, userId: user?.id } };
  },
};
