// After asking for a reset link: one page for every name, known or not.
import { resetSentBody } from '../pages/forms.js';
import { t } from '../pages/layout.js';
import type { StateOf } from '../state.js';
import type { Step } from './step.js';

export const resetSent: Step<StateOf<'resetSent'>> = {
  actions: [],
  async render(ctx) {
    return { page: { title: t(ctx.lang, 'forgotTitle'), body: resetSentBody(ctx.lang, ctx.interaction.uid, ctx.hidden) } };
  },
  async submit() {
    return { outcome: { kind: 'refused' } };
  },
};
