// The username page offering a passkey, and the passkey prompt of a name whose
// org signs in without passwords: WebAuthn's discoverable ceremony
// (passkeyLoginOptions: no allowCredentials, user verification required), run
// by the page's button or the browser's autofill (conditional mediation) on
// one challenge handed out with the page and taken by the first answer, as
// the key step's (key-ceremony.ts). The passkey names its user; the check is
// the use-passkey command, then the user's org must allow passkeys.
//
// A stranger is told no more than a wrong password tells: every refusal of the
// command but a cloned authenticator (which needs a valid signature) is shown
// as one reason, PASSKEY_LOGIN_REFUSED (docs/security.md).
import { randomBytes } from 'node:crypto';
import type { PasskeyLoginReason } from '../../commands/passkeys/use-passkey.js';
import type { U2fLoginReason } from '../../commands/u2f/use-u2f.js';
import { renderMessage } from '../../domain/errors/reasons.js';
import { passkeyLoginOptions } from '../../domain/webauthn/request-options.js';
import { passkeyOnlyBody, usernamePasskeyBody } from '../pages/passkey.js';
import { keyStepScript } from '../pages/key-script.js';
import { escapeHtml, t } from '../pages/layout.js';
import type { StateOf } from '../state.js';
import { identify } from './identify.js';
import { withRegisterButton } from './register.js';
import { challengeOf, takeAnswer } from './key-ceremony.js';
import { loginIds } from './second-factor.js';
import type { Problem, Shown, Step, StepContext, Submitted } from './step.js';

const CHALLENGE_BYTES = 32;

/** The page's own refusals (before the command), in the passkey's words. */
const PAGE_REFUSAL: Readonly<Partial<Record<U2fLoginReason, PasskeyLoginReason>>> = {
  U2F_LOGIN_CANCELLED: 'PASSKEY_LOGIN_CANCELLED',
  U2F_LOGIN_WRONG_ORIGIN: 'PASSKEY_LOGIN_WRONG_ORIGIN',
  U2F_LOGIN_REPLAYED: 'PASSKEY_LOGIN_REPLAYED',
  U2F_LOGIN_EXPIRED: 'PASSKEY_LOGIN_EXPIRED',
};

/** What the command's refusals show: only a cloned authenticator is told as itself. */
/** Told as themselves, both only after a valid signature of a registered passkey (its holder): a cloned authenticator, and the user's org forbidding passkeys. */
const TOLD: readonly PasskeyLoginReason[] = ['PASSKEY_LOGIN_CLONED', 'PASSKEY_LOGIN_NOT_ALLOWED'];
export const shownAs = (reason: PasskeyLoginReason): PasskeyLoginReason => (TOLD.includes(reason) ? reason : 'PASSKEY_LOGIN_REFUSED');

const problemOf = (ctx: StepContext, reason: PasskeyLoginReason): Problem => ({ text: escapeHtml(renderMessage(reason, ctx.lang, {})), reason });

const refused = (ctx: StepContext, reason: PasskeyLoginReason): Submitted => ({ outcome: { kind: 'refused' }, problem: problemOf(ctx, reason) });

/**
 * The page with a passkey, its challenge handed out (the previous one spent);
 * undefined: this login offers none (the org of the org scope, or the default
 * org, does not allow passkeys, or no RP id works at the issuer).
 */
export async function passkeyPage(ctx: StepContext, state: StateOf<'identify' | 'passkey'>, problem?: Problem): Promise<Shown | undefined> {
  if (!(await ctx.ports.loginFactors(ctx.interaction.orgId)).passkeyAllowed) return undefined;
  const w = ctx.ports.webauthn();
  const offered = passkeyLoginOptions({ issuer: ctx.issuer, rpIds: w.rpIds, origins: w.origins, challenge: randomBytes(CHALLENGE_BYTES), timeoutMs: w.timeoutMs });
  if (!offered) return undefined;
  // Another request moved this login on meanwhile: the login's page as it is now.
  if (!(await ctx.apply({ kind: 'challengeIssued', challenge: challengeOf(ctx, offered.options.challenge) }, { ifStill: true }))) return { again: true };
  const { lang, interaction } = ctx;
  const loginName = state.step === 'passkey' ? state.loginName : undefined;
  const body =
    loginName === undefined
      ? await withRegisterButton(ctx, usernamePasskeyBody(lang, interaction.uid, ctx.hidden, interaction.app.name, interaction.loginHint, offered.options, problem))
      : passkeyOnlyBody(lang, interaction.uid, ctx.hidden, interaction.app.name, loginName, offered.options, problem);
  return { page: { title: t(lang, 'title'), body, script: keyStepScript().path } };
}

export const passkey: Step<StateOf<'passkey'>, 'passkey' | 'username' | 'register-start'> = {
  // The username form stays on the page beside the passkey.
  actions: ['passkey', 'username', 'register-start'],
  async render(ctx, state, problem) {
    // No passkey any more (the policy changed): the username page as it is.
    return (await passkeyPage(ctx, state, problem)) ?? { outcome: { kind: 'restart' } };
  },
  async submit(ctx, state, action) {
    if (action === 'username' || action === 'register-start') return identify.submit(ctx, { step: 'identify' }, action);
    const read = await takeAnswer(ctx, state);
    if ('refusal' in read) return refused(ctx, PAGE_REFUSAL[read.refusal] ?? 'PASSKEY_LOGIN_INVALID');
    const used = await ctx.ports.usePasskey({ response: read.answer, expectedChallenge: read.taken.value, clientId: ctx.interaction.clientId, rpIds: loginIds(ctx.issuer, ctx.ports) });
    if (!used.ok) return refused(ctx, shownAs(used.reason));
    // The check refused a passkey of an org forbidding passkeys (recording no use); decided here again for a policy read since.
    const factors = await ctx.ports.userLoginFactors(used.userId);
    // A machine user's credential: refused as any other the check refuses.
    if (!factors) return refused(ctx, 'PASSKEY_LOGIN_REFUSED');
    if (!factors.passkeyAllowed) return refused(ctx, 'PASSKEY_LOGIN_NOT_ALLOWED');
    return { outcome: { kind: 'passkeyAccepted', userId: used.userId, amr: used.amr } };
  },
};
