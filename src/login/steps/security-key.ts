// One of the user's keys as the second factor: the WebAuthn authentication
// ceremony (generateAuthenticationOptions here, @simplewebauthn/browser's
// startAuthentication in the page's script) with allowCredentials = the keys
// the login can use, userVerification "discouraged". A lost key: a recovery
// code instead (the page's link, recovery-code.ts).
import { generateAuthenticationOptions } from '@simplewebauthn/server';
import { ceremonyBody } from '../pages/key.js';
import { keyStepScript } from '../pages/key-script.js';
import { t } from '../pages/layout.js';
import { totpChoice } from '../pages/totp.js';
import { keysForLogin } from '../relying-parties.js';
import type { StateOf } from '../state.js';
import { challengeOf, refused, takeAnswer } from './key-ceremony.js';
import { decideSecondFactor, loginIds } from './second-factor.js';
import type { Step } from './step.js';

export const securityKey: Step<StateOf<'securityKey'>, 'key' | 'use-recovery' | 'use-totp'> = {
  actions: ['key', 'use-recovery', 'use-totp'],
  async render(ctx, state, problem) {
    const decided = await decideSecondFactor(ctx.issuer, ctx.ports, state.userId);
    if (decided.secondFactor !== 'key') return { outcome: { kind: 'secondFactorDecided', secondFactor: decided.secondFactor } };
    // 'key' was decided just now: some of the keys work here.
    const usable = keysForLogin(decided.keys, loginIds(ctx.issuer, ctx.ports))!;
    const options = await generateAuthenticationOptions({
      rpID: usable.rpId,
      allowCredentials: usable.keys.map((k) => ({ id: k.credentialId, transports: [...k.transports] })),
      userVerification: 'discouraged',
      timeout: ctx.ports.webauthn().timeoutMs,
    });
    // Another request moved this login on meanwhile: the login's page as it is now.
    if (!(await ctx.apply({ kind: 'challengeIssued', challenge: challengeOf(ctx, String(options.challenge)) }, { ifStill: true }))) return { again: true };
    const body = ceremonyBody(ctx.lang, ctx.interaction.uid, ctx.hidden, 'authenticate', state.loginName, options, problem) + ((await ctx.ports.hasTotp(state.userId)) ? totpChoice(ctx.lang, ctx.interaction.uid, ctx.hidden) : '');
    return { page: { title: t(ctx.lang, 'keyTitle'), body, script: keyStepScript().path } };
  },
  async submit(ctx, state, action) {
    if (action === 'use-recovery') return { outcome: { kind: 'recoveryRequested' } };
    if (action === 'use-totp') return { outcome: { kind: 'totpRequested' } };
    const read = await takeAnswer(ctx, state);
    if ('refusal' in read) return refused(ctx, read.refusal);
    const used = await ctx.ports.useKey({ userId: state.userId, clientId: ctx.interaction.clientId, response: read.answer, expectedChallenge: read.taken.value });
    if (!used.ok) return refused(ctx, used.reason);
    ctx.secondFactor('security_key', 'succeeded');
    return { outcome: { kind: 'keyAccepted' } };
  },
};
