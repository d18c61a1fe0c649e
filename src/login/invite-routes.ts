// The invitation page, beside the login's routes (a standalone page: an
// invitation is opened from a mail, with no sign-in in flight; once it is
// done, the person signs in normally). GET /ui/invite?user=&code= checks the
// code (counted by the attempt budgets, nothing spent: a mail scanner's fetch
// uses nothing up) and shows the forms; POST /ui/invite/<password|passkey|key>
// spends the code in one atomic step with what it was for.
//
// The same machinery as the login: server-rendered, Keyhold's own script for
// the ceremonies, a form token (HMAC under the cookie key, bound to the user)
// on every POST. The page needs no cookie: what authorizes a POST is the code
// itself, which a cross-site form cannot know.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderMessage } from '../domain/errors/reasons.js';
import { negotiateLanguage, type Language } from '../domain/i18n/language.js';
import { INVITE_PATH } from '../domain/invite/link.js';
import { keyStepScript } from './pages/key-script.js';
import { inviteCredentialBody, inviteDoneBody, inviteErrorBody, inviteKeyBody, type InviteView } from './pages/invite.js';
import { escapeHtml, LOGIN_HEADERS, page, SCRIPT_CSP, t, unavailablePage } from './pages/layout.js';
import { MAX_ANSWER } from './steps/key-ceremony.js';
import type { InvitePagePorts } from './invite-ports.js';

const MAX_FIELD = 1024;
/** A user id or code as Keyhold makes them: printable ASCII. Anything else (a NUL, a control character) is no invitation, answered before it reaches a query. */
const printable = (value: string) => /^[\x20-\x7e]*$/.test(value);
/** How long a shown invitation page's forms may be posted. */
const FORM_TOKEN_SECONDS = 3600;
const BODY_LIMIT = 16 * 1024;

export interface InviteRoutesDeps {
  ports: InvitePagePorts;
  cookieKey: () => string;
  issuer: () => string;
  unavailable: { is(err: unknown): boolean; retryAfterSeconds: number };
}

/** The browser's refusal of a ceremony, in the page's words (as the login's key steps). */
const BROWSER_REFUSALS = new Set(['NotAllowedError', 'AbortError', 'SecurityError']);

export function registerInviteRoutes(fastify: FastifyInstance, deps: InviteRoutesDeps): void {
  const { ports } = deps;
  // The form token names the user and when it stops working (an hour after the page was shown, as the
  // login's forms): a page left open for days is shown again rather than posted.
  const mac = (userId: string, until: number) => createHmac('sha256', deps.cookieKey()).update(`keyhold invite form ${userId} ${until}`).digest('base64url');
  const formToken = (userId: string) => {
    const until = Math.floor(Date.now() / 1000) + FORM_TOKEN_SECONDS;
    return `${until}.${mac(userId, until)}`;
  };
  const tokenOk = (userId: string, sent: string) => {
    const [untilText, signature = ''] = sent.split('.', 2);
    const until = Number(untilText);
    if (!/^\d{1,12}$/.test(untilText ?? '') || until < Date.now() / 1000) return false;
    const a = Buffer.from(mac(userId, until));
    const b = Buffer.from(signature);
    return a.length === b.length && timingSafeEqual(a, b);
  };
  const lang = (req: FastifyRequest): Language => negotiateLanguage(req.headers['accept-language']);
  const send = (reply: FastifyReply, l: Language, title: string, body: string, status = 200, script = false) => {
    reply.code(status).headers(LOGIN_HEADERS);
    if (script) reply.header('content-security-policy', SCRIPT_CSP);
    return reply.type('text/html; charset=utf-8').send(page(l, title, body, script ? keyStepScript().path : undefined));
  };
  const failed = (reply: FastifyReply, l: Language, problem: string, retryAfterSeconds?: number) => {
    if (retryAfterSeconds) reply.header('retry-after', String(retryAfterSeconds));
    return send(reply, l, t(l, 'errorTitle'), inviteErrorBody(l, problem), retryAfterSeconds ? 429 : 400);
  };
  const signInUrl = () => `${deps.issuer().replace(/\/+$/, '')}/console/`;

  /** The page for a code that works: its forms, with a fresh registration for the ceremony. */
  async function show(req: FastifyRequest, reply: FastifyReply, userId: string, code: string, problem?: string, status = 200) {
    const l = lang(req);
    const checked = await ports.check(userId, code, req.ip ?? '', l);
    if (!checked.ok) return failed(reply, l, checked.problem, checked.retryAfterSeconds);
    // A registration for the page's ceremony: the key's, or the passkey's where the org lets passkeys sign in.
    const started = checked.purpose === 'key' ? await ports.startKey(userId) : checked.offers.passkey ? await ports.startPasskey(userId) : { id: '', options: {} };
    const view: InviteView = {
      userId,
      code,
      username: checked.username,
      name: checked.name,
      token: `<input type="hidden" name="form_token" value="${escapeHtml(formToken(userId))}">`,
      options: started.options,
      enrolmentId: started.id,
      offers: checked.offers,
    };
    const body = checked.purpose === 'key' ? inviteKeyBody(l, view, problem) : inviteCredentialBody(l, view, problem);
    return send(reply, l, t(l, checked.purpose === 'key' ? 'inviteKeyTitle' : 'inviteTitle'), body, status, true);
  }

  void fastify.register(async (app) => {
    app.setErrorHandler((err, req, reply) => {
      if (!deps.unavailable.is(err)) throw err;
      reply.header('retry-after', String(deps.unavailable.retryAfterSeconds)).code(503).headers(LOGIN_HEADERS).type('text/html; charset=utf-8');
      return reply.send(unavailablePage(negotiateLanguage(req.headers['accept-language'])));
    });
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    app.get(INVITE_PATH, async (req, reply) => {
      const query = (req.query ?? {}) as Record<string, unknown>;
      const userId = typeof query.user === 'string' ? query.user.slice(0, MAX_FIELD) : '';
      const code = typeof query.code === 'string' ? query.code.slice(0, MAX_FIELD) : '';
      if (!printable(userId) || !printable(code)) return failed(reply, lang(req), renderMessage('INVITE_CODE_WRONG', lang(req), {}));
      return show(req, reply, userId, code);
    });

    app.post<{ Params: { action: string } }>(`${INVITE_PATH}/:action`, async (req, reply) => {
      const l = lang(req);
      const body = (req.body as Record<string, unknown> | undefined) ?? {};
      const field = (name: string, max = MAX_FIELD) => (typeof body[name] === 'string' ? (body[name] as string).slice(0, max) : '');
      const userId = field('user');
      const code = field('code');
      if (!printable(userId) || !printable(code)) return failed(reply, l, renderMessage('INVITE_CODE_WRONG', l, {}));
      if (!userId || !tokenOk(userId, field('form_token'))) return failed(reply, l, t(l, 'inviteFormExpired'));
      const address = req.ip ?? '';
      const action = req.params.action;
      let answer;
      if (action === 'password') {
        const checked = await ports.check(userId, code, address, l);
        if (checked.ok && !checked.offers.password) return show(req, reply, userId, code, undefined, 400);
        const chosen = field('new_password');
        if (chosen !== field('confirm_password')) return show(req, reply, userId, code, t(l, 'passwordsDiffer'), 400);
        answer = await ports.acceptPassword(userId, code, chosen, address, l);
      } else if (action === 'passkey' || action === 'key') {
        const failure = field('failure', 64);
        // The browser refused (cancelled, another origin): nothing tried, the page again.
        if (failure) return show(req, reply, userId, code, renderMessage(BROWSER_REFUSALS.has(failure) ? 'U2F_LOGIN_CANCELLED' : 'U2F_LOGIN_INVALID', l, {}), 400);
        let credential: unknown;
        try {
          credential = JSON.parse(field('response', MAX_ANSWER));
        } catch {
          return show(req, reply, userId, code, renderMessage('U2F_LOGIN_INVALID', l, {}), 400);
        }
        const id = field('enrolment');
        answer =
          action === 'key'
            ? await ports.finishKey(userId, code, field('password'), id, credential, address, l)
            : await ports.finishPasskey(userId, code, id, credential, address, l);
      } else {
        return failed(reply, l, t(l, 'inviteFormExpired'));
      }
      if (!answer.ok) return answer.again ? show(req, reply, userId, code, answer.problem, 400) : failed(reply, l, answer.problem, answer.retryAfterSeconds);
      const checkedName = field('username');
      return send(reply, l, t(l, 'inviteDoneTitle'), inviteDoneBody(l, checkedName, action === 'key', signInUrl()));
    });
  });
}
