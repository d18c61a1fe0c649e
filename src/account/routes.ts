// The account page under /ui/account: GET shows the signed-in user's account,
// POST /<action> takes one of its forms. Server-rendered in the login's frame
// (same CSP and headers); the passkey page loads the login's key-step script.
//
// Who: the browser's login session (the provider's session cookie, read by
// SessionPort); none, or its user no longer active → the console, which signs
// in (the provider's session then exists and this page shows it).
//
// CSRF: the session cookie is SameSite=Lax (not sent on a cross-site POST: no
// session, no write), and every form carries a token bound to the session
// (HMAC under the cookie key; src/login/form-token.ts).
//
// Re-authentication: a change to how the user signs in (password, adding or
// removing a factor, new recovery codes) needs the current password, checked
// by the login's password check (its guessing budgets and lockout); a user
// without a password needs a login of the last REAUTH_SECONDS instead.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { negotiateLanguage, type Language } from '../domain/i18n/language.js';
import type { AccountText } from '../domain/i18n/account.js';
import { fieldOf, formTokens, parseForms } from '../login/form-token.js';
import { keyStepScript } from '../login/pages/key-script.js';
import { escapeHtml, LOGIN_HEADERS, page, SCRIPT_CSP, unavailablePage } from '../login/pages/layout.js';
import { totpQrSvg } from '../login/pages/totp-qr.js';
import type { LoginPorts } from '../login/ports.js';
import { loginRpIds } from '../login/relying-parties.js';
import { ACCOUNT_BASE, accountBody, codesBody, passkeyBody, totpBody, type Said } from './pages.js';
import type { AccountPorts, AccountSession, AccountView, Factor, SessionPort } from './ports.js';
import { at } from './text.js';

/** How recent a login stands in for the current password (a user without one). */
export const REAUTH_SECONDS = 10 * 60;
/** The app id the account page's password checks are recorded under. */
export const ACCOUNT_CLIENT_ID = 'keyhold-account';

/** The notices a redirect after a form may name (?done=…): only these texts. */
const NOTICES: Readonly<Record<string, AccountText>> = {
  profile: 'profileSaved',
  password: 'passwordChanged',
  removed: 'removed',
  added: 'added',
  revoked: 'revoked',
  renamed: 'renamed',
  address: 'addressChanged',
  'address-code': 'addressCodeSent',
  'address-confirmed': 'addressConfirmed',
  'session-ended': 'sessionEnded',
  'others-ended': 'otherSessionsEnded',
};

export interface AccountRoutesDeps {
  sessions: SessionPort;
  account: AccountPorts;
  /** The login's adapters: the password check, the password change, the passkey and authenticator-app enrolments. */
  login: LoginPorts;
  cookieKey: () => string;
  issuer: () => string;
  /** Where a browser without a session signs in (from the issuer). */
  signInUrl: () => string;
  unavailable: { is(err: unknown): boolean; retryAfterSeconds: number };
  now?: () => number;
}

type Outcome = { page: string; title: string; status?: number; script?: boolean } | { done: keyof typeof NOTICES } | { problem: string; status: number };

interface Request {
  lang: Language;
  session: AccountSession;
  view: AccountView;
  field: (name: string) => string;
  /** A field the form bound alone limits (a ceremony's answer). */
  long: (name: string) => string;
  hidden: string;
  client: { address: string };
}

export function registerAccountRoutes(fastify: FastifyInstance, deps: AccountRoutesDeps): void {
  const now = deps.now ?? Date.now;
  const tokens = formTokens(deps.cookieKey, 'keyhold account form');
  const lang = (req: FastifyRequest) => negotiateLanguage(req.headers['accept-language']);
  const html = (reply: FastifyReply, body: string, status = 200, script = false) => {
    reply.code(status).headers(LOGIN_HEADERS);
    if (script) reply.header('content-security-policy', SCRIPT_CSP);
    return reply.type('text/html; charset=utf-8').send(body);
  };
  const toLogin = (reply: FastifyReply) => reply.code(303).headers(LOGIN_HEADERS).header('location', deps.signInUrl()).send();
  const hiddenOf = (session: AccountSession) => `<input type="hidden" name="form_token" value="${escapeHtml(tokens.tokenOf(session.uid))}">`;

  async function showAccount(reply: FastifyReply, r: Pick<Request, 'lang' | 'session' | 'view' | 'hidden'>, last?: Said, status = 200) {
    const [grants, found] = await Promise.all([deps.sessions.grantsOf(r.session.accountId), deps.account.sessions(r.session.accountId)]);
    const sessions = found.map((s) => ({ ...s, current: s.id === r.session.uid }));
    return html(reply, page(r.lang, at(r.lang, 'title'), accountBody(r.lang, { view: r.view, grants, sessions, hidden: r.hidden }, last)), status);
  }

  /** Whether this change may go on: the current password, or (without one) a recent login; else the refusal. */
  async function reauth(r: Request): Promise<{ problem: string; status: number } | undefined> {
    if (!r.view.hasPassword) {
      return now() / 1000 - r.session.loginTs <= REAUTH_SECONDS ? undefined : { problem: at(r.lang, 'noPassword', { minutes: REAUTH_SECONDS / 60 }), status: 403 };
    }
    const verdict = await deps.login.verifyPassword({
      userId: r.view.id,
      loginName: r.view.username,
      password: r.field('current_password'),
      client: { address: r.client.address },
      clientId: ACCOUNT_CLIENT_ID,
    });
    if (verdict.ok) return undefined;
    if (verdict.retryAfterSeconds) return { problem: at(r.lang, 'slowDown', { seconds: verdict.retryAfterSeconds }), status: 429 };
    return { problem: at(r.lang, 'wrongPassword'), status: 403 };
  }

  const FACTOR_KINDS: ReadonlySet<string> = new Set<Factor['kind']>(['key', 'passkey', 'totp']);

  /** Each form's action: what it came to. */
  const ACTIONS: Readonly<Record<string, (r: Request) => Promise<Outcome>>> = {
    async profile(r) {
      const done = await deps.account.updateProfile(r.view.id, { givenName: r.field('given_name'), familyName: r.field('family_name'), displayName: r.field('display_name') }, r.lang);
      return done.ok ? { done: 'profile' } : { problem: escapeHtml(done.problem), status: 400 };
    },
    // The address is where a reset link goes: changing it asks for the current password, as a password change does.
    async address(r) {
      const refused = await reauth(r);
      if (refused) return refused;
      const done = await deps.account.changeAddress(r.view.id, r.field('new_email'), r.lang);
      return done.ok ? { done: 'address' } : { problem: escapeHtml(done.problem), status: 400 };
    },
    async 'address-code'(r) {
      const done = await deps.account.sendAddressCode(r.view.id, r.lang);
      return done.ok ? { done: 'address-code' } : { problem: escapeHtml(done.problem), status: 400 };
    },
    async 'address-confirm'(r) {
      const done = await deps.account.confirmAddress(r.view.id, r.field('code'), r.client, r.lang);
      return done.ok ? { done: 'address-confirmed' } : { problem: escapeHtml(done.problem), status: 400 };
    },
    // A session of someone else, or one already ended, is the command's 404 (SESSION_NOT_FOUND).
    async 'end-session'(r) {
      const done = await deps.account.endSession(r.view.id, r.field('session'), r.lang);
      return done.ok ? { done: 'session-ended' } : { problem: escapeHtml(done.problem), status: 404 };
    },
    async 'end-others'(r) {
      const done = await deps.account.endOtherSessions(r.view.id, r.session.uid, r.lang);
      return done.ok ? { done: 'others-ended' } : { problem: escapeHtml(done.problem), status: 400 };
    },
    async password(r) {
      const refused = await reauth(r);
      if (refused) return refused;
      const password = r.field('new_password');
      if (password !== r.field('confirm_password')) return { problem: at(r.lang, 'passwordsDiffer'), status: 400 };
      const done = await deps.login.changePassword(r.view.id, password, r.lang);
      if (!done.ok) return { problem: escapeHtml(done.problem), status: 400 };
      // A new password ends every other session: whoever held the old one (and a session made with it) is out.
      await deps.account.endOtherSessions(r.view.id, r.session.uid, r.lang);
      return { done: 'password' };
    },
    async 'remove-factor'(r) {
      const kind = r.field('kind');
      const id = r.field('id');
      const factor = FACTOR_KINDS.has(kind) ? r.view.factors.find((f) => f.kind === kind && f.id === id) : undefined;
      // Only a factor of the signed-in user's own list: any other id is refused before a command runs.
      if (!factor) return { problem: at(r.lang, 'notYours'), status: 404 };
      if (r.view.mfaRequired && r.view.factors.length <= 1) return { problem: at(r.lang, 'lastFactor'), status: 409 };
      const refused = await reauth(r);
      if (refused) return refused;
      const done = await deps.account.removeFactor(r.view.id, factor, r.lang);
      return done.ok ? { done: 'removed' } : { problem: escapeHtml(done.problem), status: done.conflict ? 409 : 400 };
    },
    async 'remove-link'(r) {
      const idpId = r.field('idp');
      const subject = r.long('subject');
      // Only a link of the signed-in user's own list; any other is refused before a command runs.
      const link = r.view.links.find((l) => l.idpId === idpId && l.subject === subject);
      if (!link) return { problem: at(r.lang, 'notYours'), status: 404 };
      // Without a password or passkey, the last link is the only way in: it stays.
      const passkeys = r.view.factors.some((f) => f.kind === 'passkey');
      if (!r.view.hasPassword && !passkeys && r.view.links.length <= 1) return { problem: at(r.lang, 'lastWayIn'), status: 409 };
      const refused = await reauth(r);
      if (refused) return refused;
      const done = await deps.account.removeLink(r.view.id, link, r.lang);
      return done.ok ? { done: 'removed' } : { problem: escapeHtml(done.problem), status: done.conflict ? 409 : 400 };
    },
    async 'rename-factor'(r) {
      const kind = r.field('kind');
      const id = r.field('id');
      // A name needs no password (nothing about signing in changes); only the user's own keys and passkeys.
      const factor = kind === 'key' || kind === 'passkey' ? r.view.factors.find((f) => f.kind === kind && f.id === id) : undefined;
      if (!factor) return { problem: at(r.lang, 'notYours'), status: 404 };
      const done = await deps.account.renameFactor(r.view.id, factor, r.field('name'), r.lang);
      return done.ok ? { done: 'renamed' } : { problem: escapeHtml(done.problem), status: 400 };
    },
    async passkey(r) {
      const refused = await reauth(r);
      if (refused) return refused;
      const rpId = loginRpIds(deps.issuer(), deps.login.webauthn())[0];
      if (!rpId) return { problem: at(r.lang, 'noPasskeyHere'), status: 409 };
      const started = await deps.login.startPasskeyEnrollment(r.view.id, rpId);
      return { title: at(r.lang, 'passkeyTitle'), page: passkeyBody(r.lang, r.hidden, started.passkeyId, r.field('name'), started.options), script: true };
    },
    async 'passkey-finish'(r) {
      const failure = r.field('failure');
      const response = r.long('response');
      if (failure || !response) return { problem: at(r.lang, 'passkeyFailed', { reason: failure || '-' }), status: 400 };
      let credential: unknown;
      try {
        credential = JSON.parse(response);
      } catch {
        return { problem: at(r.lang, 'passkeyFailed', { reason: 'response' }), status: 400 };
      }
      const done = await deps.login.finishPasskeyEnrollment(r.view.id, r.field('passkey_id'), credential, r.field('name'), r.lang);
      if (!done.ok) return { problem: escapeHtml(done.problem), status: 400 };
      return done.recoveryCodes.length ? { title: at(r.lang, 'codesTitle'), page: codesBody(r.lang, done.recoveryCodes) } : { done: 'added' };
    },
    async totp(r) {
      const refused = await reauth(r);
      if (refused) return refused;
      const started = await deps.login.startTotpEnrolment(r.view.id);
      return { title: at(r.lang, 'totpTitle'), page: totpBody(r.lang, r.hidden, await totpQrSvg(started.uri), started.secret) };
    },
    async 'totp-finish'(r) {
      const done = await deps.login.finishTotpEnrolment(r.view.id, r.field('code'), r.lang);
      if (done.ok) return done.recoveryCodes.length ? { title: at(r.lang, 'codesTitle'), page: codesBody(r.lang, done.recoveryCodes) } : { done: 'added' };
      // The pending app again (its QR code), with the refusal: a wrong code is typed again. Never a new
      // registration here: this form asks no password, and a new secret shown to whoever holds the session
      // would let a left-open session add an app of its own. Nothing pending: the refusal alone.
      const pending = await deps.login.pendingTotpEnrolment(r.view.id);
      if (!pending) return { problem: escapeHtml(done.problem), status: 400 };
      return { title: at(r.lang, 'totpTitle'), page: totpBody(r.lang, r.hidden, await totpQrSvg(pending.uri), pending.secret, escapeHtml(done.problem)), status: 400 };
    },
    async codes(r) {
      const refused = await reauth(r);
      if (refused) return refused;
      const made = await deps.account.regenerateCodes(r.view.id, r.lang);
      if (!made.ok) return { problem: escapeHtml(made.problem), status: 409 };
      return { title: at(r.lang, 'codesTitle'), page: codesBody(r.lang, made.codes) };
    },
    async 'revoke-app'(r) {
      const revoked = await deps.sessions.revokeApp(r.view.id, r.field('client'));
      return revoked ? { done: 'revoked' } : { problem: at(r.lang, 'notYours'), status: 404 };
    },
  };

  /** The signed-in session and its live user; undefined: none (the provider ends a session whose user is no longer active). */
  async function signedIn(req: FastifyRequest, reply: FastifyReply) {
    const session = await deps.sessions.current(req.raw, reply.raw);
    const view = session ? await deps.account.view(session.accountId) : undefined;
    return session && view ? { session, view } : undefined;
  }

  void fastify.register(async (app) => {
    app.setErrorHandler((err, req, reply) => {
      if (!deps.unavailable.is(err)) throw err;
      return html(reply.header('retry-after', String(deps.unavailable.retryAfterSeconds)), unavailablePage(lang(req)), 503);
    });
    parseForms(app);

    app.get(ACCOUNT_BASE, async (req, reply) => {
      const who = await signedIn(req, reply);
      if (!who) return toLogin(reply);
      const done = (req.query as Record<string, unknown> | undefined)?.done;
      const notice = typeof done === 'string' && Object.hasOwn(NOTICES, done) ? at(lang(req), NOTICES[done]!) : undefined;
      return showAccount(reply, { lang: lang(req), ...who, hidden: hiddenOf(who.session) }, { notice });
    });

    app.post<{ Params: { action: string } }>(`${ACCOUNT_BASE}/:action`, async (req, reply) => {
      const l = lang(req);
      const refusedForm = () => html(reply, page(l, at(l, 'errorTitle'), `<h1>${at(l, 'errorTitle')}</h1><p class="error" role="alert">${at(l, 'formExpired')}</p>`), 403);
      const run = Object.hasOwn(ACTIONS, req.params.action) ? ACTIONS[req.params.action] : undefined;
      if (!run) return reply.code(404).headers(LOGIN_HEADERS).send();
      const who = await signedIn(req, reply);
      // No session (a cross-site POST carries none) or a token of another session: nothing changes.
      if (!who || !tokens.ok(who.session.uid, (req.body as Record<string, unknown> | undefined)?.form_token)) return refusedForm();
      const body = (req.body as Record<string, unknown> | undefined) ?? {};
      const r: Request = {
        lang: l,
        ...who,
        hidden: hiddenOf(who.session),
        field: (name) => fieldOf(req.body, name),
        long: (name) => (typeof body[name] === 'string' ? (body[name] as string) : ''),
        client: { address: req.ip ?? '' },
      };
      const outcome = await run(r);
      if ('done' in outcome) return reply.code(303).headers(LOGIN_HEADERS).header('location', `${deps.issuer()}${ACCOUNT_BASE}?done=${outcome.done}`).send();
      if ('problem' in outcome) {
        // The account as it now is (a factor may be gone), with the refusal.
        const view = (await deps.account.view(who.session.accountId)) ?? who.view;
        return showAccount(reply, { ...r, view }, { problem: outcome.problem }, outcome.status);
      }
      return html(reply, page(l, outcome.title, outcome.page, outcome.script ? keyStepScript().path : undefined), outcome.status ?? 200, outcome.script);
    });
  });
}
