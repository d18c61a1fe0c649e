// The reset link's page, GET and POST /ui/login/reset: outside any sign-in,
// since the mail may be opened in another browser, or after the sign-in
// expired. The code is the only credential: no cookie, no form token (whoever
// holds the code may use it anyway). It is carried in the form, checked before
// the page shows and used once when the password is set (password-reset.ts).
// Afterwards the page says to sign in: the reset signs nobody in.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { negotiateLanguage } from '../domain/i18n/language.js';
import { BASE, errorBody, resetForm } from './pages/forms.js';
import { escapeHtml, LOGIN_HEADERS, page, t } from './pages/layout.js';
import type { LoginPorts } from './ports.js';

const CODE = /^[A-Za-z0-9_-]{43}$/;

export function registerResetRoutes(app: FastifyInstance, ports: Pick<LoginPorts, 'resetTarget' | 'resetPassword'>): void {
  const html = (reply: FastifyReply, body: string, status = 200) => reply.code(status).headers(LOGIN_HEADERS).type('text/html; charset=utf-8').send(body);
  const lang = (req: FastifyRequest) => negotiateLanguage(req.headers['accept-language']);
  const expired = (req: FastifyRequest, reply: FastifyReply) => {
    const l = lang(req);
    return html(reply, page(l, t(l, 'forgotTitle'), errorBody(l, t(l, 'resetExpired'))), 410);
  };

  app.get(`${BASE}/reset`, async (req, reply) => {
    const code = (req.query as Record<string, unknown> | undefined)?.code;
    if (typeof code !== 'string' || !CODE.test(code)) return expired(req, reply);
    const target = await ports.resetTarget(code);
    if (!target) return expired(req, reply);
    const l = lang(req);
    return html(reply, page(l, t(l, 'forgotTitle'), resetForm(l, code, target.username)));
  });

  app.post(`${BASE}/reset`, async (req, reply) => {
    const body = (req.body as Record<string, unknown> | undefined) ?? {};
    const field = (name: string) => (typeof body[name] === 'string' ? (body[name] as string).slice(0, 1024) : '');
    const code = field('code');
    if (!CODE.test(code)) return expired(req, reply);
    const l = lang(req);
    const target = await ports.resetTarget(code);
    if (!target) return expired(req, reply);
    const chosen = field('new_password');
    if (chosen !== field('confirm_password')) return html(reply, page(l, t(l, 'forgotTitle'), resetForm(l, code, target.username, t(l, 'passwordsDiffer'))), 400);
    const done = await ports.resetPassword(code, chosen, l);
    if (done.ok) return html(reply, page(l, t(l, 'forgotTitle'), `<h1>${t(l, 'forgotTitle')}</h1><p role="status">${t(l, 'resetDone')}</p>`));
    if (done.expired) return expired(req, reply);
    return html(reply, page(l, t(l, 'forgotTitle'), resetForm(l, code, target.username, escapeHtml(done.problem))), 400);
  });
}
