// Self-registration, a step of the login: from the username page's "Register"
// (shown only where the app's org allows it; the step itself refuses
// otherwise), the form asks name, address and password; the
// register-human-user command creates the user in that org. Then the login
// goes on as after a right password (the second factor decided), or — where
// the org requires it — the address is verified first: a link is mailed, and
// the login refuses the user until it is used (mailing a new one each time, up
// to the per-user mail limit).
import { registerButton, registerForm, registeredBody } from '../pages/register.js';
import { t } from '../pages/layout.js';
import type { StateOf } from '../state.js';
import { decideSecondFactor } from './second-factor.js';
import type { Step, StepContext } from './step.js';

const FIELDS = ['given_name', 'family_name', 'email'] as const;

export const register: Step<StateOf<'register'>> = {
  actions: ['register'],
  async render(ctx, _state, problem) {
    const rules = await ctx.ports.registration(ctx.interaction);
    // Not (or no longer) allowed for this app's org: the username page.
    if (!rules) return { outcome: { kind: 'restart' } };
    const values = Object.fromEntries(FIELDS.map((f) => [f, ctx.field(f)]));
    const { lang, interaction } = ctx;
    return { page: { title: t(lang, 'registerSubmit'), body: registerForm(lang, interaction.uid, ctx.hidden, interaction.app.name, rules.domains, values, problem?.text) } };
  },
  async submit(ctx) {
    const rules = await ctx.ports.registration(ctx.interaction);
    if (!rules) return { outcome: { kind: 'restart' } };
    const chosen = ctx.field('new_password');
    if (chosen !== ctx.field('confirm_password')) return { outcome: { kind: 'refused' }, problem: { text: t(ctx.lang, 'passwordsDiffer') } };
    const input = { orgId: rules.orgId, givenName: ctx.field('given_name'), familyName: ctx.field('family_name'), email: ctx.field('email'), password: chosen, rules };
    const done = await ctx.ports.register(input, { address: ctx.guessClient(undefined).address }, ctx.lang);
    if (!done.ok) return { outcome: { kind: 'refused' }, problem: { text: done.problem } };
    if (rules.verification) {
      // The link to verify the address, mailed now (address-code.ts); signing in before using it mails another.
      await ctx.ports.mailAddressCode(done.userId, ctx.lang);
      return { outcome: { kind: 'registered', loginName: done.username, userId: done.userId, verificationRequired: true } };
    }
    const { secondFactor } = await decideSecondFactor(ctx.issuer, ctx.ports, done.userId);
    return { outcome: { kind: 'registered', loginName: done.username, userId: done.userId, verificationRequired: false, secondFactor, at: ctx.now() } };
  },
};

export const registered: Step<StateOf<'registered'>> = {
  actions: [],
  async render(ctx, state) {
    return { page: { title: t(ctx.lang, 'registeredTitle'), body: registeredBody(ctx.lang, ctx.interaction.uid, ctx.hidden, state.loginName, ctx.ports.mailConfigured()) } };
  },
  async submit() {
    return { outcome: { kind: 'refused' } };
  },
};

/** The username page's body, with "Register" under it where the app's org allows registration. */
export async function withRegisterButton(ctx: StepContext, body: string): Promise<string> {
  return (await ctx.ports.registration(ctx.interaction)) ? body + registerButton(ctx.lang, ctx.interaction.uid, ctx.hidden) : body;
}
