// Keyhold's login UI at /ui/login/<interaction uid>: username → password
// (→ new password when changeRequired) → consent only where OIDC requires it
// (prompt=consent) or the app asks for Keyhold's
// own API (api-audience.ts) → back to the app through oidc-provider. Server-rendered (pages.ts), works without JavaScript.
//
// CSRF: every step needs the interaction cookie oidc-provider set (SameSite=Lax,
// so not sent on a cross-site POST; interactionDetails refuses without it) and
// a form token bound to the interaction (HMAC under the cookie key).
// An unknown username is not revealed: the password step follows anyway and
// fails as a wrong password would.
import { isStoreUnavailable, RETRY_AFTER_SECONDS } from './unavailable.js';
import { ORG_SCOPE_PREFIX, orgScopeIn } from './org-scope.js';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { negotiateLanguage, type Language } from '../../domain/i18n/language.js';
import { keyStepScript } from './key-step-script.js';
import { acrOf } from './acr.js';
import { keyStep, type KeyStepPorts } from './key-step.js';
import { recoveryStep, wantsRecovery, type RecoveryStepPorts } from './recovery-step.js';
import { LOGIN_HEADERS, escapeHtml, page, t, unavailablePage } from './pages.js';
import { secondFactorOf, type LoginFlow } from './second-factor.js';
import { loginUrl } from './login-url.js';
import { consentNeededForApi } from './api-audience.js';
import { scopeList } from './scope-words.js';
import type { GuessClient } from '../../domain/identity/guess-buckets.js';
import { knownBrowsers } from './known-browser.js';
import type { IdentityObserver } from '../metrics.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

export type PasswordVerdict =
  | { ok: true; changeRequired: boolean }
  /** `lockedOut`: this wrong password reached the org's lockout policy and locked the account. */
  | { ok: false; reason: 'wrong' | 'locked' | 'lockedOut' | 'no-password'; retryAfterSeconds?: number };

/** One password try at the login. */
export interface PasswordAttempt {
  /** The user the typed name named; undefined: nobody (checked against a dummy hash all the same). */
  userId?: string;
  loginName: string;
  password: string;
  /** Who tries: its address, and its known-browser id for this user when it has one (known-browser.ts). */
  client: GuessClient;
  clientId: string;
}

/** What the login needs from the rest of Keyhold (wired in start.ts). */
export interface LoginPorts extends KeyStepPorts, RecoveryStepPorts {
  /** The user a login name names (the username; `orgId` from the org scope when names collide across orgs). */
  findLoginUser(loginName: string, orgId?: string): Promise<{ id: string; username: string } | undefined>;
  /** THE password check, within the guessing budgets; also records failures. */
  verifyPassword(attempt: PasswordAttempt): Promise<PasswordVerdict>;
  /** Sets a new password after a changeRequired login; a refusal's text in `lang`. */
  changePassword(userId: string, newPassword: string, lang: Language): Promise<{ ok: true } | { ok: false; problem: string }>;
  /** Whether the user may log in to the app's project (projectRoleCheck / hasProjectCheck). */
  mayLogIn(userId: string, projectId: string): Promise<boolean>;
  /** Records a successful login (an event) with how the user authenticated (RFC 8176 amr); false: the user is no longer active, no login. */
  loggedIn(userId: string, clientId: string, clientIp: string, amr: string[]): Promise<boolean>;
}

/** The org scope that picks among users of one name in several orgs (ZITADEL's). */
export { ORG_SCOPE_PREFIX } from './org-scope.js';

interface PendingLogin {
  /** The name typed; the user id when it named one. */
  loginName: string;
  userId?: string;
  /** Set once the password was right and must be changed before going on (the sign-in is then the user's: adapter.ts interactionOwner). */
  mustChange?: boolean;
}

const BASE = '/ui/login';

/** The page's language: the app's `ui_locales` when Keyhold speaks one of them, else Accept-Language. */
function languageOf(req: FastifyRequest, interaction: Any): Language {
  const uiLocales = typeof interaction?.params?.ui_locales === 'string' ? interaction.params.ui_locales : '';
  if (uiLocales) {
    const picked = negotiateLanguage(uiLocales.split(' ').filter(Boolean).join(','));
    if (uiLocales.split(' ').some((l: string) => l.toLowerCase().split('-')[0] === picked)) return picked;
  }
  return negotiateLanguage(req.headers['accept-language']);
}
const MAX_FIELD = 1024;

const keyStepScriptPath = () => keyStepScript().path;

export interface LoginDeps {
  provider: () => Any;
  ports: LoginPorts;
  cookieKey: () => string;
  issuer: () => string;
  /** The app a sign-in is for, onto the request's log line (error-notes.ts). */
  noteClient?: (req: FastifyRequest, clientId: string) => void;
  /** Second factors' outcomes (metrics.ts); the password step's are the ports' to report (login-ports.ts). */
  observer?: Pick<IdentityObserver, 'secondFactor'>;
}

export function registerLogin(fastify: FastifyInstance, deps: LoginDeps): void {
  const { ports } = deps;
  const formToken = (uid: string) => createHmac('sha256', deps.cookieKey()).update(`keyhold login form ${uid}`).digest('base64url');
  const tokenOk = (uid: string, sent: unknown) => {
    if (typeof sent !== 'string') return false;
    const a = Buffer.from(formToken(uid));
    const b = Buffer.from(sent);
    return a.length === b.length && timingSafeEqual(a, b);
  };

  const html = (reply: FastifyReply, body: string, status = 200) => reply.code(status).headers(LOGIN_HEADERS).type('text/html; charset=utf-8').send(body);
  const expired = (reply: FastifyReply, lang: Language) =>
    html(reply, page(lang, t(lang, 'errorTitle'), `<h1>${t(lang, 'errorTitle')}</h1><p class="error">${t(lang, 'formExpired')}</p>`), 400);

  async function details(req: FastifyRequest, reply: FastifyReply, uid: string): Promise<Any | undefined> {
    try {
      const interaction = await deps.provider().interactionDetails(req.raw, reply.raw);
      if (interaction.uid !== uid) return undefined;
      // The library took it from a known client's authorization request.
      const clientId = interaction.params?.client_id;
      if (typeof clientId === 'string') deps.noteClient?.(req, clientId);
      return interaction;
    } catch (err) {
      // A sign-in that could not be read is not an expired one.
      if (isStoreUnavailable(err)) throw err;
      return undefined;
    }
  }

  const hidden = (uid: string) => `<input type="hidden" name="form_token" value="${escapeHtml(formToken(uid))}">`;
  const browsers = knownBrowsers({ cookieKey: deps.cookieKey, secure: () => String(deps.provider()?.issuer ?? '').startsWith('https:') });
  /** Who tries a guess for `userId` (guess-buckets.ts). */
  const guessClient = (req: FastifyRequest, userId: string | undefined): GuessClient => ({ address: clientIp(req), knownBrowser: userId ? browsers.idFor(req, userId) : undefined });
  /**
   * What a locked or deactivated account is told, whatever the password (it is
   * not even compared), and the wrong password that locked it: the state only to
   * a browser that signed in to it before, to anyone else the answer of a wrong
   * password (else the lock tells a stranger that the name exists).
   */
  const inactiveText = (req: FastifyRequest, lang: Language, userId: string | undefined, state: 'locked' | 'lockedOut' = 'locked') =>
    t(lang, userId && browsers.idFor(req, userId) ? state : 'unknownOrWrong');
  /** How a login ends, for every step that ends one (the password, a second factor: second-factor.ts). */
  const flow: LoginFlow = {
    async finishLogin(req, reply, interaction, userId, amr) {
      if (!(await ports.loggedIn(userId, interaction.params.client_id, clientIp(req), amr))) {
        // Locked or deactivated meanwhile: no login; the sign-in starts over.
        await setPending(interaction, undefined);
        return show(req, reply, interaction.uid, interaction, inactiveText(req, languageOf(req, interaction), userId));
      }
      browsers.remember(req, reply, userId);
      const login = { accountId: userId, amr, acr: acrOf(amr), remember: true, ts: Math.floor(Date.now() / 1000) };
      return finish(req, reply, interaction, { login });
    },
    secondFactor: (kind, outcome) => deps.observer?.secondFactor(kind, outcome),
  };
  const keys = keyStep({ ports, flow, hiddenToken: hidden, issuer: deps.issuer });
  const recovery = recoveryStep({ ports, flow, hiddenToken: hidden, issuer: deps.issuer, guessClient });
  const appName = (client: Any) => client?.clientName ?? client?.client_name ?? client?.clientId ?? '';

  function usernameForm(lang: Language, uid: string, app: string, value: string, error?: string): string {
    return (
      `<h1>${t(lang, 'signInTo', { app })}</h1>${error ? `<p class="error" role="alert">${error}</p>` : ''}` +
      `<form method="post" action="${BASE}/${escapeHtml(uid)}/username">${hidden(uid)}` +
      `<label for="username">${t(lang, 'username')}</label>` +
      `<input id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus value="${escapeHtml(value)}">` +
      `<button type="submit">${t(lang, 'next')}</button></form>`
    );
  }

  function passwordForm(lang: Language, uid: string, app: string, loginName: string, error?: string): string {
    return (
      `<h1>${t(lang, 'signInTo', { app })}</h1>${error ? `<p class="error" role="alert">${error}</p>` : ''}` +
      `<form method="post" action="${BASE}/${escapeHtml(uid)}/password">${hidden(uid)}` +
      // The username again, hidden from view, so password managers save the pair.
      `<input type="text" name="username" autocomplete="username" value="${escapeHtml(loginName)}" hidden readonly>` +
      `<p><strong>${escapeHtml(loginName)}</strong></p>` +
      `<label for="password">${t(lang, 'password')}</label>` +
      `<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>` +
      `<button type="submit">${t(lang, 'signIn')}</button></form>` +
      `<form method="post" action="${BASE}/${escapeHtml(uid)}/restart">${hidden(uid)}<button type="submit" class="secondary">${t(lang, 'notYou', { username: loginName })}</button></form>`
    );
  }

  function changeForm(lang: Language, uid: string, loginName: string, error?: string): string {
    return (
      `<h1>${t(lang, 'changePassword')}</h1><p>${t(lang, 'changeRequired')}</p>${error ? `<p class="error" role="alert">${error}</p>` : ''}` +
      `<form method="post" action="${BASE}/${escapeHtml(uid)}/change">${hidden(uid)}` +
      `<input type="text" name="username" autocomplete="username" value="${escapeHtml(loginName)}" hidden readonly>` +
      `<label for="new_password">${t(lang, 'newPassword')}</label>` +
      `<input id="new_password" name="new_password" type="password" autocomplete="new-password" required autofocus>` +
      `<label for="confirm_password">${t(lang, 'confirmPassword')}</label>` +
      `<input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" required>` +
      `<button type="submit">${t(lang, 'save')}</button></form>`
    );
  }

  function consentForm(lang: Language, uid: string, app: string, scope: unknown): string {
    return (
      `<h1>${t(lang, 'consentTitle', { app })}</h1>` +
      scopeList(lang, app, scope) +
      `<form method="post" action="${BASE}/${escapeHtml(uid)}/consent">${hidden(uid)}` +
      `<button type="submit" name="decision" value="allow">${t(lang, 'allow')}</button> ` +
      `<button type="submit" name="decision" value="deny" class="secondary">${t(lang, 'deny')}</button></form>`
    );
  }

  const pendingOf = (interaction: Any): PendingLogin | undefined => interaction.result?.keyhold;
  const setPending = async (interaction: Any, pending: PendingLogin | undefined) => {
    interaction.result = pending ? { keyhold: pending } : undefined;
    await interaction.persist();
  };
  const orgScope = (interaction: Any): string | undefined => orgScopeIn(interaction.params?.scope)?.slice(ORG_SCOPE_PREFIX.length);

  /** Grants what was asked (the consent OIDC needs is given, or none was needed) and finishes the interaction. */
  async function grantAndFinish(req: FastifyRequest, reply: FastifyReply, interaction: Any): Promise<void> {
    const provider = deps.provider();
    const { prompt, params, session, grantId } = interaction;
    const grant = grantId ? await provider.Grant.find(grantId) : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
    const details = prompt.details ?? {};
    if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
    if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
    if (details.missingResourceScopes) {
      for (const [indicator, scopes] of Object.entries(details.missingResourceScopes as Record<string, string[]>)) grant.addResourceScope(indicator, scopes.join(' '));
    }
    const saved = await grant.save();
    await finish(req, reply, interaction, { consent: { grantId: saved } });
  }

  /** Ends the interaction; a NATIVE app without skipNativeAppSuccessPage gets the "you may close this window" page first. */
  async function finish(req: FastifyRequest, reply: FastifyReply, interaction: Any, result: Any): Promise<void> {
    const provider = deps.provider();
    const lang = negotiateLanguage(req.headers['accept-language']);
    const client = await provider.Client.find(interaction.params.client_id);
    const returnTo: string = await provider.interactionResult(req.raw, reply.raw, result, { mergeWithLastSubmission: true });
    // A device sign-in (RFC 8628) ends on the library's done page (device-pages.ts), never on this one.
    const native = client?.applicationType === 'native' && !interaction.deviceCode && !(client.keyholdSkipNativeSuccessPage ?? client.keyhold_skip_native_success_page);
    if (native && result.consent) {
      const body = `<h1>${t(lang, 'title')}</h1><p>${t(lang, 'nativeDone')}</p><p><a href="${escapeHtml(returnTo)}">${t(lang, 'nativeContinue')}</a></p>`;
      await html(reply, page(lang, t(lang, 'title'), body));
      return;
    }
    await reply.code(303).header('location', returnTo).headers(LOGIN_HEADERS).send();
  }

  async function show(req: FastifyRequest, reply: FastifyReply, uid: string, interaction: Any, error?: string): Promise<void> {
    const lang = languageOf(req, interaction);
    const provider = deps.provider();
    const client = await provider.Client.find(interaction.params.client_id).catch(() => undefined);
    const app = appName(client);
    if (interaction.prompt.name === 'login') {
      const pending = pendingOf(interaction);
      // The key page's "Use a recovery code" link (a lost key): only in place of a key the user has.
      if (pending && secondFactorOf(interaction)?.step === 'key' && wantsRecovery(req)) return recovery.show(req, reply, interaction, lang, pending.loginName);
      if (pending && secondFactorOf(interaction)) return keys.show(req, reply, interaction, lang, pending.loginName);
      if (pending?.mustChange) return void (await html(reply, page(lang, t(lang, 'changePassword'), changeForm(lang, uid, pending.loginName, error))));
      if (pending) return void (await html(reply, page(lang, t(lang, 'title'), passwordForm(lang, uid, app, pending.loginName, error))));
      const hint = typeof interaction.params.login_hint === 'string' ? interaction.params.login_hint : '';
      return void (await html(reply, page(lang, t(lang, 'title'), usernameForm(lang, uid, app, hint, error))));
    }
    if (interaction.prompt.name === 'consent') {
      const projectId = client?.keyholdProjectId ?? client?.keyhold_project_id;
      if (projectId && interaction.session?.accountId && !(await ports.mayLogIn(interaction.session.accountId, projectId))) {
        return void (await html(reply, page(lang, t(lang, 'errorTitle'), `<h1>${t(lang, 'errorTitle')}</h1><p class="error">${t(lang, 'notAllowed')}</p>`), 403));
      }
      const asked = String(interaction.params.prompt ?? '').split(' ').includes('consent');
      // Keyhold's own API is never granted without this page (api-audience.ts).
      if (!asked && !consentNeededForApi(interaction)) return grantAndFinish(req, reply, interaction);
      return void (await html(reply, page(lang, t(lang, 'consentTitle', { app }), consentForm(lang, uid, app, interaction.params.scope))));
    }
    return expired(reply, lang);
  }

  const clientIp = (req: FastifyRequest) => req.ip ?? '';
  const field = (body: unknown, name: string): string => {
    const v = (body as Record<string, unknown> | undefined)?.[name];
    return typeof v === 'string' ? v.slice(0, MAX_FIELD) : '';
  };

  void fastify.register(async (app) => {
    // While the database cannot answer, every step answers a page saying so (503, Retry-After) in the
    // user's language; other errors go on to the server's handler.
    app.setErrorHandler((err, req, reply) => {
      if (!isStoreUnavailable(err)) throw err;
      return html(reply.header('retry-after', String(RETRY_AFTER_SECONDS)), unavailablePage(negotiateLanguage(req.headers['accept-language'])), 503);
    });
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    // The key step's script, by its content-hashed name (key-step-script.ts).
    app.get<{ Params: { file: string } }>(`${BASE}/assets/:file`, async (req, reply) => {
      if (`${BASE}/assets/${req.params.file}` !== keyStepScriptPath()) return reply.code(404).headers(LOGIN_HEADERS).send();
      return keys.script(reply);
    });

    app.get<{ Params: { uid: string } }>(`${BASE}/:uid`, async (req, reply) => {
      const interaction = await details(req, reply, req.params.uid);
      if (!interaction) return expired(reply, negotiateLanguage(req.headers['accept-language']));
      return show(req, reply, req.params.uid, interaction);
    });

    app.post<{ Params: { uid: string; step: string } }>(`${BASE}/:uid/:step`, async (req, reply) => {
      const { uid, step } = req.params;
      const interaction = await details(req, reply, uid);
      const lang = languageOf(req, interaction);
      if (!interaction || !tokenOk(uid, field(req.body, 'form_token'))) return expired(reply, lang);
      const pending = pendingOf(interaction);
      const again = () => reply.code(303).header('location', loginUrl(deps.issuer(), uid)).send();

      if (step === 'restart') {
        await setPending(interaction, undefined);
        return again();
      }
      if (step === 'username' && interaction.prompt.name === 'login') {
        const loginName = field(req.body, 'username').trim();
        if (!loginName) return show(req, reply, uid, interaction, t(lang, 'unknownOrWrong'));
        const user = await ports.findLoginUser(loginName, orgScope(interaction));
        await setPending(interaction, { loginName, userId: user?.id });
        return again();
      }
      if (step === 'password' && interaction.prompt.name === 'login' && pending) {
        const password = field(req.body, 'password');
        // An unknown name is checked too (against a dummy hash, in budgets of the typed name): same time, same answer.
        const verdict = await ports.verifyPassword({
          userId: pending.userId,
          loginName: pending.loginName,
          password,
          client: guessClient(req, pending.userId),
          clientId: interaction.params.client_id,
        });
        if (!verdict.ok) {
          const text =
            verdict.retryAfterSeconds !== undefined
              ? t(lang, 'slowDown', { seconds: verdict.retryAfterSeconds })
              : verdict.reason === 'locked' || verdict.reason === 'lockedOut'
                ? inactiveText(req, lang, pending.userId, verdict.reason)
                : t(lang, 'unknownOrWrong');
          return show(req, reply, uid, interaction, text);
        }
        if (verdict.changeRequired) {
          await setPending(interaction, { ...pending, mustChange: true });
          return again();
        }
        return keys.afterPassword(req, reply, interaction, pending.userId!);
      }
      if (step === 'change' && interaction.prompt.name === 'login' && pending?.mustChange && pending.userId) {
        const next = field(req.body, 'new_password');
        if (next !== field(req.body, 'confirm_password')) return show(req, reply, uid, interaction, t(lang, 'passwordsDiffer'));
        const changed = await ports.changePassword(pending.userId, next, lang);
        if (!changed.ok) return show(req, reply, uid, interaction, escapeHtml(changed.problem));
        return keys.afterPassword(req, reply, interaction, pending.userId);
      }
      if (step === 'key' && interaction.prompt.name === 'login' && pending && secondFactorOf(interaction)) {
        return keys.post(req, reply, interaction, lang, pending.loginName);
      }
      if (step === 'recovery' && interaction.prompt.name === 'login' && pending && secondFactorOf(interaction)) {
        return recovery.post(req, reply, interaction, lang, pending.loginName);
      }
      if (step === 'consent' && interaction.prompt.name === 'consent') {
        if (field(req.body, 'decision') !== 'allow') {
          return finish(req, reply, interaction, { error: 'access_denied', error_description: 'the user denied the request' });
        }
        return grantAndFinish(req, reply, interaction);
      }
      return again();
    });
  });
}

