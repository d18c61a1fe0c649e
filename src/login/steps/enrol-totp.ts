// forceMfa and no second factor yet: the user registers an authenticator app
// (RegisterTOTP / VerifyTOTPRegistration as the user itself), which then is
// the second factor — only while the user has no ready key and no ready app,
// checked again before the code is accepted. Each time the page is shown a
// new registration is drawn (the one before, and its sealed secret, go): the
// secret is in this answer only, never in a URL, the stored state or a log,
// so a reload shows a fresh secret rather than one kept anywhere. After a
// refused code the pending one is shown again (read back from the sealed
// table), so the app just set up still matches. A first
// second factor brings recovery codes, shown once (codes-shown.ts).
import { codesBody } from '../pages/key.js';
import { escapeHtml, t } from '../pages/layout.js';
import { enrolmentChoice } from '../pages/passkey.js';
import { enrolTotpBody, MAX_TOTP_CODE } from '../pages/totp.js';
import { isEnrolmentMethod } from './enrolment-methods.js';
import { totpQrSvg } from '../pages/totp-qr.js';
import type { StateOf } from '../state.js';
import { decideSecondFactor, hasSecondFactor, loginIds } from './second-factor.js';
import type { Step } from './step.js';

export const enrolTotp: Step<StateOf<'enrolTotp'>, 'totp' | 'enrol-method'> = {
  actions: ['totp', 'enrol-method'],
  async render(ctx, state, problem) {
    const decided = await decideSecondFactor(ctx.issuer, ctx.ports, state.userId);
    if (decided.secondFactor !== 'enrol') return { outcome: { kind: 'secondFactorDecided', secondFactor: decided.secondFactor } };
    const { uri, secret } = await ctx.ports.startTotpEnrolment(state.userId, problem !== undefined);
    // A key or a passkey only where the login can run a WebAuthn ceremony.
    const links = enrolmentChoice(ctx.lang, ctx.interaction.uid, ctx.hidden, 'totp', (m) => m === 'totp' || loginIds(ctx.issuer, ctx.ports).length > 0);
    const body = enrolTotpBody(ctx.lang, ctx.interaction.uid, ctx.hidden, state.loginName, await totpQrSvg(uri), secret, links, problem);
    return { page: { title: t(ctx.lang, 'enrolTotpTitle'), body } };
  },
  async submit(ctx, state, action) {
    if (action === 'enrol-method') {
      const method = ctx.field('method');
      return { outcome: isEnrolmentMethod(method) ? { kind: 'enrolmentChosen', method } : { kind: 'refused' } };
    }
    // A second factor became ready since the page was shown: no further one is added by whoever holds the password.
    if (hasSecondFactor(await ctx.ports.secondFactorsOf(state.userId))) return { outcome: { kind: 'refused' } };
    const done = await ctx.ports.finishTotpEnrolment(state.userId, ctx.field('code').slice(0, MAX_TOTP_CODE), ctx.lang);
    if (!done.ok) {
      ctx.secondFactor('one_time_code', 'failed');
      return { outcome: { kind: 'refused' }, problem: { text: escapeHtml(done.problem), reason: done.reason } };
    }
    if (!done.recoveryCodes.length) {
      ctx.secondFactor('one_time_code', 'succeeded');
      return { outcome: { kind: 'totpEnrolled', codesShown: false } };
    }
    const page = { title: t(ctx.lang, 'codesTitle'), body: codesBody(ctx.lang, ctx.interaction.uid, ctx.hidden, done.recoveryCodes) };
    return { outcome: { kind: 'totpEnrolled', codesShown: true }, page };
  },
};
