// forceMfa and no second factor yet, a passkey chosen (ENROLMENT_METHODS): the
// user registers a passkey (RegisterPasskey / VerifyPasskeyRegistration as the
// user itself; resident key and user verification required), which then is
// the login's factor — only while the user has no ready key at all, checked
// again before the registration is accepted. A first strong factor brings
// recovery codes, shown once in the answer (codes-shown.ts).
import { codesBody } from '../pages/key.js';
import { keyStepScript } from '../pages/key-script.js';
import { t } from '../pages/layout.js';
import { enrolPasskeyBody } from '../pages/passkey.js';
import type { StateOf } from '../state.js';
import { isEnrolmentMethod } from './enrolment-methods.js';
import { challengeOf, refused, takeAnswer } from './key-ceremony.js';
import { decideSecondFactor, hasSecondFactor, loginIds } from './second-factor.js';
import type { Step } from './step.js';

export const enrolPasskey: Step<StateOf<'enrolPasskey'>, 'key' | 'enrol-method'> = {
  actions: ['key', 'enrol-method'],
  async render(ctx, state, problem) {
    const decided = await decideSecondFactor(ctx.issuer, ctx.ports, state.userId);
    if (decided.secondFactor !== 'enrol') return { outcome: { kind: 'secondFactorDecided', secondFactor: decided.secondFactor } };
    const started = await ctx.ports.startPasskeyEnrollment(state.userId, loginIds(ctx.issuer, ctx.ports)[0]!);
    const challenge = challengeOf(ctx, String((started.options as { challenge?: unknown }).challenge));
    if (!(await ctx.apply({ kind: 'challengeIssued', challenge, enrolmentId: started.passkeyId }, { ifStill: true }))) return { again: true };
    const body = enrolPasskeyBody(ctx.lang, ctx.interaction.uid, ctx.hidden, state.loginName, started.options, problem);
    return { page: { title: t(ctx.lang, 'enrollPasskeyTitle'), body, script: keyStepScript().path } };
  },
  async submit(ctx, state, action) {
    if (action === 'enrol-method') {
      const method = ctx.field('method');
      return { outcome: isEnrolmentMethod(method) ? { kind: 'enrolmentChosen', method } : { kind: 'refused' } };
    }
    const read = await takeAnswer(ctx, state);
    if ('refusal' in read) return refused(ctx, read.refusal);
    if (!state.enrolmentId) return refused(ctx, 'U2F_LOGIN_INVALID');
    // A key became ready since the page was shown: no further factor is added by whoever holds the password.
    if (hasSecondFactor(await ctx.ports.secondFactorsOf(state.userId))) return { outcome: { kind: 'refused' } };
    const done = await ctx.ports.finishPasskeyEnrollment(state.userId, state.enrolmentId, read.answer, t(ctx.lang, 'enrollPasskeyName'), ctx.lang);
    if (!done.ok) return refused(ctx, { problem: done.problem });
    if (!done.recoveryCodes.length) return { outcome: { kind: 'passkeyEnrolled', codesShown: false } };
    // Never kept by a cache or shown again from history (the login's pages are no-store).
    const page = { title: t(ctx.lang, 'codesTitle'), body: codesBody(ctx.lang, ctx.interaction.uid, ctx.hidden, done.recoveryCodes) };
    return { outcome: { kind: 'passkeyEnrolled', codesShown: true }, page };
  },
};
