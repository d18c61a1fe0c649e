// The username page. An unknown name is not revealed: the password step
// follows anyway and fails as a wrong password would. Where passkeys sign in
// (passkey.ts), the page offers one too; a name whose org allows no password
// is asked for its passkey instead (and so is any name in an org scope whose
// org allows none: an unknown name is not told apart there either).
import { usernameForm } from '../pages/forms.js';
import { t } from '../pages/layout.js';
import type { StateOf } from '../state.js';
import { passkeyPage } from './passkey.js';
import { withRegisterButton } from './register.js';
import type { Step } from './step.js';

export const identify: Step<StateOf<'identify'>, 'username' | 'register-start'> = {
  actions: ['username', 'register-start'],
  async render(ctx, state, problem) {
    const withPasskey = await passkeyPage(ctx, state, problem);
    if (withPasskey) return withPasskey;
    const { lang, interaction } = ctx;
    const body = await withRegisterButton(ctx, usernameForm(lang, interaction.uid, ctx.hidden, interaction.app.name, interaction.loginHint, problem?.text));
    return { page: { title: t(lang, 'title'), body } };
  },
  async submit(ctx, _state, action) {
    if (action === 'register-start') return { outcome: { kind: 'registerRequested' } };
    const loginName = ctx.field('username').trim();
    if (!loginName) return { outcome: { kind: 'refused' }, problem: { text: t(ctx.lang, 'unknownOrWrong') } };
    const user = await ctx.ports.findLoginUser(loginName, ctx.interaction.orgId);
    const factors = user ? await ctx.ports.userLoginFactors(user.id) : await ctx.ports.loginFactors(ctx.interaction.orgId);
    if (factors && !factors.passwordAllowed) return { outcome: { kind: 'passkeyRequired', loginName } };
    return { outcome: { kind: 'nameFound', loginName, userId: user?.id } };
  },
};
