// The app's consent: asked only where OIDC requires it (prompt=consent) or the
// app asks for Keyhold's own API (server/oidc/api-audience.ts); otherwise what
// was asked is granted without a page. A user who may not use the app's
// project is told so here (403).
import { consentForm, errorBody } from '../pages/forms.js';
import { t } from '../pages/layout.js';
import type { StateOf } from '../state.js';
import type { Step } from './step.js';

export const consent: Step<StateOf<'consent'>, 'consent'> = {
  actions: ['consent'],
  async render(ctx) {
    const { lang, interaction } = ctx;
    const { projectId } = interaction.app;
    if (projectId && interaction.sessionAccountId && !(await ctx.ports.mayLogIn(interaction.sessionAccountId, projectId))) {
      return { page: { title: t(lang, 'errorTitle'), body: errorBody(lang, t(lang, 'notAllowed')), status: 403 } };
    }
    if (!interaction.consentAsked && !interaction.apiConsentNeeded) return { outcome: { kind: 'consentDecided', allowed: true } };
    return { page: { title: t(lang, 'consentTitle', { app: interaction.app.name }), body: consentForm(lang, interaction.uid, ctx.hidden, interaction.app.name, interaction.scope) } };
  },
  async submit(ctx) {
    return { outcome: { kind: 'consentDecided', allowed: ctx.field('decision') === 'allow' } };
  },
};
