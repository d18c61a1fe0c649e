// forceMfa and no key yet: the user registers one first (RegisterU2F /
// VerifyU2FRegistration as the user itself), which then is the second factor
// — only while the user has no ready key at all, checked again before the
// registration is accepted. A first key brings recovery codes: shown once, in
// the answer to the registration (codes-shown.ts).
import { ceremonyBody, codesBody } from '../pages/key.js';
import { keyStepScript } from '../pages/key-script.js';
import { t } from '../pages/layout.js';
import { enrolmentChoice } from '../pages/passkey.js';
import { isEnrolmentMethod } from './enrolment-methods.js';
import type { StateOf } from '../state.js';
import { challengeOf, refused, takeAnswer } from './key-ceremony.js';
import { decideSecondFactor, hasSecondFactor, loginIds } from './second-factor.js';
import type { Step } from './step.js';

export const enrolKey: Step<StateOf<'enrolKey'>, 'key' | 'enrol-method'> = {
  actions: ['key', 'enrol-method'],
  async render(ctx, state, problem) {
    const decided = await decideSecondFactor(ctx.issuer, ctx.ports, state.userId);
    if (decided.secondFactor !== 'enrol') return { outcome: { kind: 'secondFactorDecided', secondFactor: decided.secondFactor } };
    const started = await ctx.ports.startEnrollment(state.userId, loginIds(ctx.issuer, ctx.ports)[0]!);
    const challenge = challengeOf(ctx, String((started.options as { challenge?: unknown }).challenge));
    if (!(await ctx.apply({ kind: 'challengeIssued', challenge, enrolmentId: started.u2fId }, { ifStill: true }))) return { again: true };
    const body = ceremonyBody(ctx.lang, ctx.interaction.uid, ctx.hidden, 'register', state.loginName, started.options, problem) + enrolmentChoice(ctx.lang, ctx.interaction.uid, ctx.hidden, 'key');
    return { page: { title: t(ctx.lang, 'enrollTitle'), body, script: keyStepScript().path } };
  },
  async submit(ctx, state, action) {
    if (action === 'enrol-method') {
      const method = ctx.field('method');
      return { outcome: isEnrolmentMethod(method) ? { kind: 'enrolmentChosen', method } : { kind: 'refused' } };
    }
    const read = await takeAnswer(ctx, state);
    if ('refusal' in read) return refused(ctx, read.refusal);
    if (!state.enrolmentId) return refused(ctx, 'U2F_LOGIN_INVALID');
    // A key became ready since the page was shown: no further key is added by whoever holds the password.
    if (hasSecondFactor(await ctx.ports.secondFactorsOf(state.userId))) return { outcome: { kind: 'refused' } };
    const done = await ctx.ports.finishEnrollment(state.userId, state.enrolmentId, read.answer, t(ctx.lang, 'enrollKeyName'), ctx.lang);
    if (!done.ok) return refused(ctx, { problem: done.problem });
    if (!done.recoveryCodes.length) {
      ctx.secondFactor('security_key', 'succeeded');
      return { outcome: { kind: 'keyEnrolled', codesShown: false } };
    }
    // Never kept by a cache or shown again from history (the login's pages are no-store).
    const page = { title: t(ctx.lang, 'codesTitle'), body: codesBody(ctx.lang, ctx.interaction.uid, ctx.hidden, done.recoveryCodes) };
    return { outcome: { kind: 'keyEnrolled', codesShown: true }, page };
  },
};
