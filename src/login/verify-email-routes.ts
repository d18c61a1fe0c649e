// The address-verification page, GET and POST /ui/login/verify-email: outside
// any sign-in, since the mail may be opened in another browser. Opening the
// link shows the code in a form and spends nothing (a mail scanner fetching
// the link verifies nothing); the person's POST verifies, once. The code is
// the only credential (no cookie, no form token: whoever holds it may use it
// anyway); wrong codes count in the attempt budgets.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderMessage } from '../domain/errors/reasons.js';
import { negotiateLanguage, type Language } from '../domain/i18n/language.js';
import { VERIFY_EMAIL_PATH } from '../domain/user/email-link.js';
import { errorBody } from './pages/forms.js';
import { escapeHtml, LOGIN_HEADERS, page, t } from './pages/layout.js';
import type { LoginPorts } from './ports.js';

/** A user id as Keyhold makes them (and callers choose them): printable, short. */
const USER_ID = /^[A-Za-z0-9_.@-]{1,200}$/;
/** What a code field may hold before the command reads it (symbols, dashes, spaces). */
const CODE_TEXT = /^[A-Za-z0-9 -]{1,32}$/;

function form(lang: Language, userId: string, code: string, error?: string): string {
  return (
    `<h1>${t(lang, 'verifyEmailTitle')}</h1><p>${t(lang, 'verifyEmailIntro')}</p>` +
    (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '') +
    `<form method="post" action="${VERIFY_EMAIL_PATH}"><input type="hidden" name="user" value="${escapeHtml(userId)}">` +
    `<label for="code">${t(lang, 'verifyEmailCode')}</label>` +
    `<input id="code" name="code" type="text" autocomplete="one-time-code" value="${escapeHtml(code)}" required autofocus>` +
    `<button type="submit">${t(lang, 'verifyEmailConfirm')}</button></form>`
  );
}

export function registerVerifyEmailRoutes(app: FastifyInstance, ports: Pick<LoginPorts, 'verifyEmailCode'>): void {
  const html = (reply: FastifyReply, body: string, status = 200) => reply.code(status).headers(LOGIN_HEADERS).type('text/html; charset=utf-8').send(body);
  const lang = (req: FastifyRequest) => negotiateLanguage(req.headers['accept-language']);
  const refused = (reply: FastifyReply, l: Language) => html(reply, page(l, t(l, 'verifyEmailTitle'), errorBody(l, escapeHtml(renderMessage('EMAIL_CODE_WRONG', l, {})))), 400);

  app.get(VERIFY_EMAIL_PATH, async (req, reply) => {
    const query = (req.query ?? {}) as Record<string, unknown>;
    const l = lang(req);
    const userId = typeof query.user === 'string' ? query.user : '';
    const code = typeof query.code === 'string' ? query.code : '';
    if (!USER_ID.test(userId) || (code !== '' && !CODE_TEXT.test(code))) return refused(reply, l);
    return html(reply, page(l, t(l, 'verifyEmailTitle'), form(l, userId, code)));
  });

  app.post(VERIFY_EMAIL_PATH, async (req, reply) => {
    const body = (req.body as Record<string, unknown> | undefined) ?? {};
    const l = lang(req);
    const userId = typeof body.user === 'string' ? body.user : '';
    const code = typeof body.code === 'string' ? body.code : '';
    if (!USER_ID.test(userId) || !CODE_TEXT.test(code)) return refused(reply, l);
    const used = await ports.verifyEmailCode(userId, code, req.ip ?? '');
    if (used.ok) return html(reply, page(l, t(l, 'verifyEmailTitle'), `<h1>${t(l, 'verifyEmailTitle')}</h1><p id="email-verified" role="status">${t(l, 'verifyEmailDone')}</p>`));
    if (used.retryAfterSeconds) reply.header('retry-after', String(used.retryAfterSeconds));
    const problem = renderMessage(used.reason, l, used.retryAfterSeconds ? { seconds: String(used.retryAfterSeconds) } : {});
    return html(reply, page(l, t(l, 'verifyEmailTitle'), form(l, userId, '', problem)), used.retryAfterSeconds ? 429 : 400);
  });
}
