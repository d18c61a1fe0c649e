// The device sign-in pages (RFC 8628) at /ui/login/device — oidc-provider's
// deviceFlow sources, in Keyhold's look (src/login/pages/layout.ts: no script, strict CSP):
// enter the code the device shows, confirm or deny for which app and what it
// asks to do (every scope in words: scope-words.ts), and the done page after the login. The login itself is Keyhold's login UI
// (src/login/), which the library sends the browser to after the confirmation.
import { DEVICE_TEXTS, type DeviceText } from '../../domain/i18n/device.js';
import { negotiateLanguage, type Language } from '../../domain/i18n/language.js';
import { localize } from '../../domain/i18n/text.js';
import { prefilledUserCode, UserCodeThrottled } from './extensions.js';
import { LOGIN_HEADERS, escapeHtml, page } from './pages.js';
import { scopeList } from '../../login/pages/scope-words.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const dt = (lang: Language, code: DeviceText, params: Record<string, unknown> = {}) => escapeHtml(localize(DEVICE_TEXTS[code], lang, params));
const langOf = (ctx: Any): Language => negotiateLanguage(ctx.get?.('accept-language'));
const appName = (client: Any) => client?.clientName ?? client?.client_name ?? client?.clientId ?? '';

function send(ctx: Any, html: string): void {
  for (const [k, v] of Object.entries(LOGIN_HEADERS)) ctx.set(k, v);
  ctx.type = 'html';
  ctx.body = html;
}

/** What each refusal of the library's code verification says on the page (by its class). */
const REFUSALS: Readonly<Record<string, DeviceText>> = {
  NoCodeError: 'noCode',
  NotFoundError: 'notFound',
  ExpiredError: 'expired',
  AlreadyUsedError: 'used',
  AbortedError: 'denied',
  // Confirmed or denied by another request at the same moment (single-use.ts).
  DeviceCodeTaken: 'used',
};

function problemOf(lang: Language, out: Any, err: Any): string | undefined {
  if (!out && !err) return undefined;
  // Beyond the guessing budget (extensions.ts UserCodeThrottled): how long to wait.
  if (err instanceof UserCodeThrottled) return dt(lang, 'slowDown', { seconds: err.retryAfterSeconds });
  const known = REFUSALS[String(err?.name ?? err?.constructor?.name ?? '')];
  if (known) return dt(lang, known);
  // A missing or stale form token (the library's xsrf check: "could not find device form details", "xsrf token invalid"): the form expired.
  if (out?.error === 'invalid_request' && /form details|xsrf/.test(String(out.error_description ?? ''))) return dt(lang, 'formExpired');
  return dt(lang, 'failed', { error: out?.error ?? 'server_error' });
}

/** features.deviceFlow.userCodeInputSource: the code entry (prefilled from verification_uri_complete), with the refusal when there was one. */
export async function renderUserCodeInput(ctx: Any, _form: string, out?: Any, err?: Any): Promise<void> {
  const lang = langOf(ctx);
  const action = ctx.oidc.urlFor('code_verification');
  const xsrf = ctx.oidc.session?.state?.secret ?? '';
  const problem = problemOf(lang, out, err);
  const value = err?.userCode ?? prefilledUserCode(ctx) ?? '';
  const body =
    `<h1>${dt(lang, 'title')}</h1>${problem ? `<p class="error" role="alert">${problem}</p>` : ''}` +
    `<p>${dt(lang, value ? 'checkCode' : 'enterCode')}</p>` +
    `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="xsrf" value="${escapeHtml(xsrf)}">` +
    `<label for="user_code">${dt(lang, 'code')}</label>` +
    `<input id="user_code" name="user_code" autocomplete="off" autocapitalize="characters" spellcheck="false" required autofocus value="${escapeHtml(value)}">` +
    `<button type="submit">${dt(lang, 'next')}</button></form>`;
  send(ctx, page(lang, dt(lang, 'title'), body));
}

/** features.deviceFlow.userCodeConfirmSource: which app, which code, what it asks to do; continue (to the login) or deny. */
export async function renderUserCodeConfirm(ctx: Any, _form: string, client: Any, _deviceInfo: unknown, userCode: string): Promise<void> {
  const lang = langOf(ctx);
  const action = ctx.oidc.urlFor('code_verification');
  const xsrf = ctx.oidc.session?.state?.secret ?? '';
  const app = appName(client);
  const scope = ctx.oidc.entities?.DeviceCode?.params?.scope;
  const body =
    `<h1>${dt(lang, 'confirmTitle', { app })}</h1>` +
    `<p>${dt(lang, 'checkCode')}</p><p><strong><code id="user-code">${escapeHtml(userCode)}</code></strong></p>` +
    scopeList(lang, app, scope) +
    `<p>${dt(lang, 'confirmText')}</p>` +
    `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="xsrf" value="${escapeHtml(xsrf)}">` +
    `<input type="hidden" name="user_code" value="${escapeHtml(userCode)}">` +
    `<button type="submit" name="confirm" value="yes">${dt(lang, 'allow')}</button> ` +
    `<button type="submit" name="abort" value="yes" class="secondary">${dt(lang, 'deny')}</button></form>`;
  send(ctx, page(lang, dt(lang, 'confirmTitle', { app }), body));
}

/** features.deviceFlow.successSource: the device has its grant; it gets the tokens at its next poll. */
export async function renderDeviceDone(ctx: Any): Promise<void> {
  const lang = langOf(ctx);
  const app = appName(ctx.oidc.client);
  send(ctx, page(lang, dt(lang, 'doneTitle'), `<h1>${dt(lang, 'doneTitle')}</h1><p role="status">${dt(lang, 'done', { app })}</p>`));
}
