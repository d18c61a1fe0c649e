// The login's recovery-code step (a lost key): on the security-key
// page, "Use a recovery code" (a plain link, GET ?recovery=1) leads to a form
// for one of the user's one-time codes. A right code finishes the login as a
// second factor with amr ['pwd', 'mfa'] — no 'hwk', since no key was used. A
// wrong, spent or malformed code gets its reason in words on the same form
// (RECOVERY_CODE_* in the catalogue); wrong codes spend guessing budgets as
// passwords do (login-ports.ts, guess-buckets.ts). Works without JavaScript; CSRF as every
// login form (the interaction cookie and the form token, login.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { renderMessage } from '../../domain/errors/reasons.js';
import type { Language } from '../../domain/i18n/language.js';
import type { GuessClient } from '../../domain/identity/guess-buckets.js';
import { escapeHtml, LOGIN_HEADERS, page, t } from './pages.js';
import { completeSecondFactor, secondFactorOf, type LoginFlow } from './second-factor.js';
import { loginUrl } from './login-url.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

export type RecoveryRefusal = 'RECOVERY_CODE_WRONG' | 'RECOVERY_CODE_MALFORMED' | 'RECOVERY_CODE_SLOW_DOWN';
export type RecoveryVerdict = { ok: true } | { ok: false; reason: RecoveryRefusal; retryAfterSeconds?: number };

/** What the step needs from the rest of Keyhold (login-ports.ts). */
export interface RecoveryStepPorts {
  /** THE check of a typed code (the use-recovery-code command), within the guessing budgets; spends the code when right. */
  useRecoveryCode(userId: string, typed: string, client: GuessClient, clientId: string): Promise<RecoveryVerdict>;
}

const BASE = '/ui/login';
/** The longest input read (a code is 13 characters as shown; spaces may be added). */
const MAX_CODE = 64;

/** Whether this GET asks for the recovery form (the key page's link). */
export const wantsRecovery = (req: FastifyRequest): boolean => (req.query as Record<string, unknown> | undefined)?.recovery === '1';

/** The link the key page shows (key-step.ts). */
export function recoveryLink(lang: Language, uid: string): string {
  return `<p><a id="use-recovery" href="${BASE}/${escapeHtml(encodeURIComponent(uid))}?recovery=1">${t(lang, 'recoveryLink')}</a></p>`;
}

export interface RecoveryStep {
  show(req: FastifyRequest, reply: FastifyReply, interaction: Any, lang: Language, loginName: string, error?: { reason: RecoveryRefusal; seconds?: number }): Promise<void>;
  post(req: FastifyRequest, reply: FastifyReply, interaction: Any, lang: Language, loginName: string): Promise<void>;
}

export function recoveryStep(deps: {
  ports: RecoveryStepPorts;
  flow: LoginFlow;
  hiddenToken: (uid: string) => string;
  issuer: () => string;
  /** Who types the code (its address, its known-browser id for the user: login.ts). */
  guessClient: (req: FastifyRequest, userId: string) => GuessClient;
}): RecoveryStep {
  const { ports, flow } = deps;

  async function show(req: FastifyRequest, reply: FastifyReply, interaction: Any, lang: Language, loginName: string, error?: { reason: RecoveryRefusal; seconds?: number }): Promise<void> {
    const uid = escapeHtml(interaction.uid);
    const text = error ? escapeHtml(renderMessage(error.reason, lang, { seconds: String(error.seconds ?? '') })) : '';
    const body =
      `<h1>${t(lang, 'recoveryTitle')}</h1>` +
      `<p>${t(lang, 'recoveryPrompt', { username: loginName })}</p>` +
      (text ? `<p class="error" role="alert" data-reason="${error!.reason}">${text}</p>` : '') +
      `<form id="recovery-form" method="post" action="${BASE}/${uid}/recovery">${deps.hiddenToken(interaction.uid)}` +
      `<label for="code">${t(lang, 'recoveryCode')}</label>` +
      `<input id="code" name="code" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" maxlength="${MAX_CODE}" required autofocus>` +
      `<button type="submit">${t(lang, 'recoveryUse')}</button></form>` +
      `<p><a href="${BASE}/${uid}">${t(lang, 'recoveryBack')}</a></p>` +
      `<form method="post" action="${BASE}/${uid}/restart">${deps.hiddenToken(interaction.uid)}<button type="submit" class="secondary">${t(lang, 'notYou', { username: loginName })}</button></form>`;
    await reply.code(200).headers(LOGIN_HEADERS).type('text/html; charset=utf-8').send(page(lang, t(lang, 'recoveryTitle'), body));
  }

  async function post(req: FastifyRequest, reply: FastifyReply, interaction: Any, lang: Language, loginName: string): Promise<void> {
    const state = secondFactorOf(interaction);
    // Only in place of a key the user has (not while registering a first one).
    if (!state || state.step !== 'key') return void (await reply.code(303).header('location', loginUrl(deps.issuer(), interaction.uid)).send());
    const raw = (req.body as Record<string, unknown> | undefined)?.code;
    const typed = typeof raw === 'string' ? raw.slice(0, MAX_CODE + 1) : '';
    const verdict = await ports.useRecoveryCode(state.userId, typed, deps.guessClient(req, state.userId), interaction.params.client_id);
    if (!verdict.ok) {
      flow.secondFactor('recovery_code', verdict.reason === 'RECOVERY_CODE_SLOW_DOWN' ? 'throttled' : 'failed');
      return show(req, reply, interaction, lang, loginName, { reason: verdict.reason, seconds: verdict.retryAfterSeconds });
    }
    return completeSecondFactor(flow, req, reply, interaction, 'recovery');
  }

  return { show, post };
}
