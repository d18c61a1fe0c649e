// The key registered at this login was the user's first: its recovery codes
// were shown once; this page says so, and going on finishes the login with
// that key.
import { codesBody } from '../pages/key.js';
import { t } from '../pages/layout.js';
import type { StateOf } from '../state.js';
import type { Step } from './step.js';

export const codesShown: Step<StateOf<'codesShown'>, 'key'> = {
  actions: ['key'],
  async render(ctx) {
    return { page: { title: t(ctx.lang, 'codesTitle'), body: codesBody(ctx.lang, ctx.interaction.uid, ctx.hidden, []) } };
  },
  async submit(ctx, state) {
    ctx.secondFactor(state.amr?.includes('otp') ? 'one_time_code' : 'security_key', 'succeeded');
    return { outcome: { kind: 'codesAcknowledged' } };
  },
};
