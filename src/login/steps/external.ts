// The sign-in went to another identity provider ("Continue with …"): its
// callback (routes.ts, GET /ui/login/<uid>/idp) finishes it. The login's page
// meanwhile (the person came back without finishing there) says so and offers
// to start over, which spends what the callback had to match.
import { actionOf } from '../pages/forms.js';
import { escapeHtml, t } from '../pages/layout.js';
import type { StateOf } from '../state.js';
import type { Step } from './step.js';

export const external: Step<StateOf<'external'>> = {
  actions: [],
  async render(ctx, state) {
    const name = (await ctx.ports.offeredProviders(await ctx.ports.orgOfSignIn(ctx.interaction))).find((p) => p.idpId === state.idpId)?.name ?? '';
    const body = `<h1>${t(ctx.lang, 'externalTitle')}</h1><p>${t(ctx.lang, 'externalPending', { name })}</p><form method="post" action="${actionOf(ctx.interaction.uid, 'restart')}">${ctx.hidden}<button type="submit">${t(ctx.lang, 'startOver')}</button></form>`;
    return { page: { title: t(ctx.lang, 'externalTitle'), body } };
  },
  async submit() {
    return { outcome: { kind: 'refused' } };
  },
};

/** The "Continue with …" buttons of the login's first page: one form per provider the app's org offers, each with the form token. */
export function providerButtons(lang: Parameters<typeof t>[0], uid: string, hidden: string, providers: readonly { idpId: string; name: string }[]): string {
  return providers
    .map((p) => `<form method="post" action="${actionOf(uid, 'idp')}">${hidden}<input type="hidden" name="idp" value="${escapeHtml(p.idpId)}"><button type="submit" class="secondary">${t(lang, 'continueWith', { name: p.name })}</button></form>`)
    .join('');
}
