// The login's security-key step, after the password. What the user
// must pass is decided from ALL of the user's ready keys, wherever they work
// (relying-parties.ts), never from the request's Host:
// - a user with keys the login can use (their RP id is one the issuer's host
//   belongs to) is asked for one: the page runs the WebAuthn authentication
//   ceremony (generateAuthenticationOptions here, @simplewebauthn/browser's
//   startAuthentication in key-step-script.ts) with allowCredentials = those
//   keys, userVerification "discouraged";
// - a user whose keys work only elsewhere is refused, told where they work;
// - a user without any key, in an org whose login policy has forceMfa,
//   registers one first (RegisterU2F / VerifyU2FRegistration as the user
//   itself), which then is the second factor — only while the user has no
//   ready key at all, checked again before the registration is accepted.
// Each page shows a fresh challenge, bound to this login (the interaction,
// second-factor.ts), expiring after the WebAuthn timeout and never after the
// login itself, taken by the first answer (single use). Every refusal is a
// U2F_LOGIN_* reason shown in words on the same page, which offers the key
// again: the login stays resumable, never a 500.
import { generateAuthenticationOptions } from '@simplewebauthn/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UseU2fInput, UseU2fResult, U2fLoginReason } from '../../commands/u2f/use-u2f.js';
import { renderMessage } from '../../domain/errors/reasons.js';
import type { Language } from '../../domain/i18n/language.js';
import { assertionClientData } from '../../domain/webauthn/verify-authentication.js';
import { keyStepScript } from './key-step-script.js';
import { recoveryLink } from './recovery-step.js';
import { loginUrl } from './login-url.js';
import { keysForLogin, loginRpIds, whereKeysWork, type ReadyKey, type RelyingParties } from './relying-parties.js';
import { escapeHtml, LOGIN_HEADERS, page, SCRIPT_CSP, t } from './pages.js';
import {
  beginSecondFactor,
  completeSecondFactor,
  issueChallenge,
  saveSecondFactor,
  secondFactorOf,
  takeChallenge,
  type LoginFlow,
  type SecondFactorState,
} from './second-factor.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** What the key step needs from the rest of Keyhold (login-ports.ts). */
export interface KeyStepPorts {
  /** Every ready key of the user, under whichever RP id it was registered. */
  keysOf(userId: string): Promise<ReadyKey[]>;
  /** THE check of an answer (the use-u2f command). */
  useKey(input: UseU2fInput): Promise<UseU2fResult>;
  /** Whether the user's org requires a second factor (login policy forceMfa). */
  mfaRequired(userId: string): Promise<boolean>;
  /** RegisterU2F as the user: a registration and its creation options. */
  startEnrollment(userId: string, rpId: string): Promise<{ u2fId: string; options: unknown }>;
  /** VerifyU2FRegistration as the user (with the recovery codes a first key brings); a refusal's text in `lang`. */
  finishEnrollment(
    userId: string,
    u2fId: string,
    credential: unknown,
    tokenName: string,
    lang: Language,
  ): Promise<{ ok: true; recoveryCodes: string[] } | { ok: false; problem: string }>;
  /** The relying party ids, the origins and the ceremony timeout (ms). */
  webauthn(): RelyingParties & { timeoutMs: number };
}

const BASE = '/ui/login';
/** The longest answer read from the form (a registration with its attestation certificate included). */
export const MAX_ANSWER = 16 * 1024;

/** The browser's refusal (a DOMException name) in the login's words. */
const BROWSER_FAILURES: Readonly<Record<string, U2fLoginReason>> = {
  NotAllowedError: 'U2F_LOGIN_CANCELLED',
  AbortError: 'U2F_LOGIN_CANCELLED',
  SecurityError: 'U2F_LOGIN_WRONG_ORIGIN',
};

export interface KeyStep {
  /** The password was right: ask for a key, have one registered (forceMfa), or finish with ['pwd']. */
  afterPassword(req: FastifyRequest, reply: FastifyReply, interaction: Any, userId: string): Promise<void>;
  /** The step's page (a fresh challenge each time), with `error` when the last answer was refused. */
  show(req: FastifyRequest, reply: FastifyReply, interaction: Any, lang: Language, loginName: string, error?: U2fLoginReason | { problem: string }): Promise<void>;
  /** The page's form: the browser's answer, or its refusal. */
  post(req: FastifyRequest, reply: FastifyReply, interaction: Any, lang: Language, loginName: string): Promise<void>;
  /** The script route's handler. */
  script(reply: FastifyReply): Promise<void>;
}

export function keyStep(deps: { ports: KeyStepPorts; flow: LoginFlow; hiddenToken: (uid: string) => string; issuer: () => string; now?: () => number }): KeyStep {
  const { ports, flow } = deps;
  const now = deps.now ?? Date.now;
  const script = keyStepScript();
  /** The RP ids whose keys this login (served at the issuer) can use. */
  const loginIds = () => loginRpIds(deps.issuer(), ports.webauthn());
  /** What the user must pass to finish here; undefined: nothing beyond the password. */
  async function decide(userId: string): Promise<{ step: 'key' | 'enroll' | 'refused'; keys: ReadyKey[] } | undefined> {
    const keys = await ports.keysOf(userId);
    if (keys.length > 0) return { step: keysForLogin(keys, loginIds()) ? 'key' : 'refused', keys };
    if (!(await ports.mfaRequired(userId))) return undefined;
    return { step: loginIds().length > 0 ? 'enroll' : 'refused', keys };
  }
  /** Until the WebAuthn timeout, never after the login (the interaction) itself. */
  const expiryOf = (interaction: Any) => Math.min(now() + ports.webauthn().timeoutMs, typeof interaction.exp === 'number' ? interaction.exp * 1000 : Infinity);

  const send = (reply: FastifyReply, body: string) =>
    reply.code(200).headers(LOGIN_HEADERS).header('content-security-policy', SCRIPT_CSP).type('text/html; charset=utf-8').send(body);

  function body(lang: Language, uid: string, state: SecondFactorState, loginName: string, options: unknown, error?: U2fLoginReason | { problem: string }): string {
    const enroll = state.step === 'enroll';
    const text = error === undefined ? '' : typeof error === 'string' ? escapeHtml(renderMessage(error, lang, {})) : escapeHtml(error.problem);
    const reason = typeof error === 'string' ? ` data-reason="${error}"` : '';
    return (
      `<h1>${t(lang, enroll ? 'enrollTitle' : 'keyTitle')}</h1>` +
      `<p>${t(lang, enroll ? 'enrollPrompt' : 'keyPrompt', { username: loginName })}</p>` +
      (text ? `<p class="error" role="alert"${reason}>${text}</p>` : '') +
      `<div id="key-step" data-mode="${enroll ? 'register' : 'authenticate'}" data-options="${escapeHtml(JSON.stringify(options))}" hidden></div>` +
      `<form id="key-form" method="post" action="${BASE}/${escapeHtml(uid)}/key">${deps.hiddenToken(uid)}` +
      `<input type="hidden" id="key-response" name="response"><input type="hidden" id="key-failure" name="failure">` +
      `<button type="button" id="key-start" disabled>${t(lang, enroll ? 'enrollUse' : 'keyUse')}</button></form>` +
      `<noscript><p class="error">${t(lang, 'keyNoScript')}</p></noscript>` +
      // A user who lost the key: one of the recovery codes instead (recovery-step.ts).
      (enroll ? '' : recoveryLink(lang, uid)) +
      `<form method="post" action="${BASE}/${escapeHtml(uid)}/restart">${deps.hiddenToken(uid)}<button type="submit" class="secondary">${t(lang, 'notYou', { username: loginName })}</button></form>`
    );
  }

  /**
   * After a first key registered at the login: its recovery codes, shown this
   * once (only in the answer to the registration; the page shown again says
   * they were shown), and the form that finishes the login.
   */
  async function showCodes(reply: FastifyReply, lang: Language, uid: string, codes: readonly string[]): Promise<void> {
    const list = codes.length
      ? `<p>${t(lang, 'codesPrompt')}</p><ol id="recovery-codes">${codes.map((c) => `<li><code>${escapeHtml(c)}</code></li>`).join('')}</ol>`
      : `<p>${t(lang, 'codesShownOnce')}</p>`;
    const body =
      `<h1>${t(lang, 'codesTitle')}</h1>${list}` +
      `<form method="post" action="${BASE}/${escapeHtml(uid)}/key">${deps.hiddenToken(uid)}<button type="submit">${t(lang, 'codesContinue')}</button></form>`;
    // Never kept by a cache or shown again from history (LOGIN_HEADERS: no-store).
    await reply.code(200).headers(LOGIN_HEADERS).type('text/html; charset=utf-8').send(page(lang, t(lang, 'codesTitle'), body));
  }

  /** The login ends here: where the user's keys work, or that no key can be registered at this address. */
  async function showRefusal(reply: FastifyReply, lang: Language, uid: string, loginName: string, keys: readonly ReadyKey[]): Promise<void> {
    const where = whereKeysWork(keys, ports.webauthn());
    const items = where.map(({ rpId, origins }) => `<li>${origins.length ? origins.map((o) => `<code>${escapeHtml(o)}</code>`).join(', ') : t(lang, 'keyRetired', { rpId })}</li>`);
    const text = where.length
      ? `<p class="error" role="alert" data-refusal="key-elsewhere">${t(lang, 'keyElsewhere', { username: loginName })}</p><ul id="key-elsewhere">${items.join('')}</ul>`
      : `<p class="error" role="alert" data-refusal="no-enrollment-here">${t(lang, 'enrollUnavailable')}</p>`;
    const body =
      `<h1>${t(lang, 'keyElsewhereTitle')}</h1>${text}` +
      `<form method="post" action="${BASE}/${escapeHtml(uid)}/restart">${deps.hiddenToken(uid)}<button type="submit" class="secondary">${t(lang, 'notYou', { username: loginName })}</button></form>`;
    await reply.code(403).headers(LOGIN_HEADERS).type('text/html; charset=utf-8').send(page(lang, t(lang, 'keyElsewhereTitle'), body));
  }

  async function show(req: FastifyRequest, reply: FastifyReply, interaction: Any, lang: Language, loginName: string, error?: U2fLoginReason | { problem: string }): Promise<void> {
    let state = secondFactorOf(interaction)!;
    if (state.step === 'codes') return showCodes(reply, lang, interaction.uid, []);
    // Decided again on every page: a key registered or removed meanwhile changes what this login may ask.
    const decided = await decide(state.userId);
    if (!decided) {
      // Nothing beyond the password any more (the keys were removed, forceMfa turned off): the password again.
      await saveSecondFactor(interaction, undefined);
      return void (await reply.code(303).header('location', loginUrl(deps.issuer(), interaction.uid)).headers(LOGIN_HEADERS).send());
    }
    if (decided.step !== state.step) {
      state = { ...state, step: decided.step, enrollU2fId: undefined };
      await saveSecondFactor(interaction, state);
    }
    if (state.step === 'refused') return showRefusal(reply, lang, interaction.uid, loginName, decided.keys);
    let options: Any;
    if (state.step === 'enroll') {
      const started = await ports.startEnrollment(state.userId, loginIds()[0]!);
      options = started.options;
      state = { ...state, enrollU2fId: started.u2fId };
    } else {
      // 'key' was decided just now: some of the keys work here.
      const usable = keysForLogin(decided.keys, loginIds())!;
      options = await generateAuthenticationOptions({
        rpID: usable.rpId,
        allowCredentials: usable.keys.map((k) => ({ id: k.credentialId, transports: k.transports as Any })),
        userVerification: 'discouraged',
        timeout: ports.webauthn().timeoutMs,
      });
    }
    const issued = await issueChallenge(interaction, state, { value: String(options.challenge), expiresAt: expiryOf(interaction) });
    // Another request moved this login on meanwhile (second-factor.ts): the login's page as it is now.
    if (!issued) return void (await reply.code(303).header('location', `${BASE}/${encodeURIComponent(interaction.uid)}`).headers(LOGIN_HEADERS).send());
    await send(reply, page(lang, t(lang, state.step === 'enroll' ? 'enrollTitle' : 'keyTitle'), body(lang, interaction.uid, state, loginName, options, error), script.path));
  }

  function answerOf(req: FastifyRequest): unknown {
    const raw = (req.body as Record<string, unknown> | undefined)?.response;
    if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_ANSWER) return undefined;
    try {
      return JSON.parse(raw);
    } catch {
      return undefined;
    }
  }

  async function post(req: FastifyRequest, reply: FastifyReply, interaction: Any, lang: Language, loginName: string): Promise<void> {
    const current = secondFactorOf(interaction);
    if (!current) return void (await reply.code(303).header('location', loginUrl(deps.issuer(), interaction.uid)).send());
    // The key was registered and its codes shown: going on finishes the login with that key.
    if (current.step === 'codes') return completeSecondFactor(flow, req, reply, interaction, 'hwk');
    if (current.step === 'refused') return show(req, reply, interaction, lang, loginName);
    const { state, taken } = await takeChallenge(interaction, current);
    // Every refusal of an answer (the browser's own, a cancel included) is a failed second factor.
    const again = (error: U2fLoginReason | { problem: string }) => {
      flow.secondFactor('security_key', 'failed');
      return show(req, reply, interaction, lang, loginName, error);
    };
    const failure = (req.body as Record<string, unknown> | undefined)?.failure;
    if (typeof failure === 'string' && failure) return again(BROWSER_FAILURES[failure.slice(0, 64)] ?? 'U2F_LOGIN_INVALID');
    const answer = answerOf(req);
    const clientData = assertionClientData(answer);
    if (!clientData) return again('U2F_LOGIN_INVALID');
    // An answer to a challenge of this login that was already taken (or replaced): a replay.
    if (!taken || clientData.challenge !== taken.value) return again('U2F_LOGIN_REPLAYED');
    if (now() > taken.expiresAt) return again('U2F_LOGIN_EXPIRED');
    if (state.step === 'enroll') {
      if (!state.enrollU2fId) return again('U2F_LOGIN_INVALID');
      // A key became ready since the page was shown: no further key is added by whoever holds the password.
      if ((await ports.keysOf(state.userId)).length > 0) return show(req, reply, interaction, lang, loginName);
      const done = await ports.finishEnrollment(state.userId, state.enrollU2fId, answer, t(lang, 'enrollKeyName'), lang);
      if (!done.ok) return again({ problem: done.problem });
      if (done.recoveryCodes.length) {
        await saveSecondFactor(interaction, { ...state, step: 'codes', challenge: undefined });
        return showCodes(reply, lang, interaction.uid, done.recoveryCodes);
      }
      return completeSecondFactor(flow, req, reply, interaction, 'hwk');
    }
    const used = await ports.useKey({ userId: state.userId, clientId: interaction.params.client_id, response: answer, expectedChallenge: taken.value });
    if (!used.ok) return again(used.reason);
    return completeSecondFactor(flow, req, reply, interaction, 'hwk');
  }

  async function afterPassword(req: FastifyRequest, reply: FastifyReply, interaction: Any, userId: string): Promise<void> {
    const decided = await decide(userId);
    if (!decided) {
      await saveSecondFactor(interaction, undefined);
      return flow.finishLogin(req, reply, interaction, userId, ['pwd']);
    }
    await beginSecondFactor(interaction, userId, decided.step, now());
    await reply.code(303).header('location', loginUrl(deps.issuer(), interaction.uid)).headers(LOGIN_HEADERS).send();
  }

  return {
    afterPassword,
    show,
    post,
    async script(reply) {
      await reply
        .code(200)
        .header('content-type', 'text/javascript; charset=utf-8')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .send(script.body);
    },
  };
}
