// oidc-provider's own pages (its error page, logout confirmation, logged-out
// page) in the login's frame (src/login/pages/layout.ts).
import { negotiateLanguage, type Language } from '../../domain/i18n/language.js';
import { escapeHtml, LOGIN_HEADERS, page, t, unavailablePage } from '../../login/pages/layout.js';

export { escapeHtml, LOGIN_CSP, LOGIN_HEADERS, page, PROVIDER_CSP, SCRIPT_CSP, t, unavailablePage } from '../../login/pages/layout.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

function send(ctx: Any, html: string, status?: number): void {
  for (const [k, v] of Object.entries(LOGIN_HEADERS)) ctx.set(k, v);
  ctx.type = 'html';
  if (status !== undefined) ctx.status = status;
  ctx.body = html;
}

const langOf = (ctx: Any): Language => negotiateLanguage(ctx.get?.('accept-language'));

/** The first position where two strings differ (1-based). */
function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i + 1;
}

/**
 * oidc-provider's renderError: a page a developer can act on. An unregistered
 * redirect_uri: for a devMode app the registered URIs and where the closest
 * one differs; for any other app only where its developer finds them — anyone
 * who knows a client id may send this request, and the list is the app's.
 */
export async function renderErrorPage(ctx: Any, out: { error: string; error_description?: string }, error: Any): Promise<void> {
  const lang = langOf(ctx);
  if (out.error === 'temporarily_unavailable') {
    send(ctx, unavailablePage(lang), 503);
    return;
  }
  const client = ctx.oidc?.client;
  const sent: string | undefined = ctx.oidc?.params?.redirect_uri;
  let body = `<h1>${t(lang, 'errorTitle')}</h1><p class="error">${t(lang, 'errorCode', { error: out.error })}</p>`;
  if (out.error_description) body += `<p>${escapeHtml(out.error_description)}</p>`;
  if (out.error === 'invalid_redirect_uri' && client) {
    const registered: string[] = [...(client.redirectUris ?? []), ...(client.keyholdRedirectGlobs ?? client.keyhold_redirect_globs ?? [])];
    const devMode = Boolean(client.keyholdDevMode ?? client.keyhold_dev_mode);
    body += `<p>${t(lang, 'redirectMismatch')}</p>`;
    if (sent) body += `<p>${t(lang, 'redirectSent')} <code>${escapeHtml(sent)}</code></p>`;
    if (!devMode) {
      send(ctx, page(lang, t(lang, 'errorTitle'), `${body}<p>${t(lang, 'redirectWhereListed')}</p>`), ctx.status);
      return;
    }
    body += registered.length
      ? `<p>${t(lang, 'redirectRegistered')}</p><ul>${registered.map((u) => `<li><code>${escapeHtml(u)}</code></li>`).join('')}</ul>`
      : `<p>${t(lang, 'redirectNoneRegistered')}</p>`;
    if (sent && registered.length) {
      const closest = registered
        .map((u) => ({ u, at: firstDifference(u, sent) }))
        .sort((a, b) => b.at - a.at)[0];
      body += `<p>${t(lang, 'redirectDiffers', { at: closest.at, registered: closest.u })}</p>`;
    }
    body += `<p>${t(lang, 'redirectFix')}</p>`;
  }
  void error;
  send(ctx, page(lang, t(lang, 'errorTitle'), body), ctx.status);
}


/** oidc-provider's logoutSource: the confirmation form it hands over (its xsrf field included). */
export async function renderLogoutPage(ctx: Any, form: string): Promise<void> {
  const lang = langOf(ctx);
  const id = /id="([^"]+)"/.exec(form)?.[1] ?? 'op.logoutForm';
  const body =
    `<h1>${t(lang, 'logoutTitle')}</h1><p>${t(lang, 'logoutQuestion')}</p>${form}` +
    `<button type="submit" form="${escapeHtml(id)}" name="logout" value="yes">${t(lang, 'logoutYes')}</button> ` +
    `<button type="submit" form="${escapeHtml(id)}" class="secondary">${t(lang, 'logoutNo')}</button>`;
  send(ctx, page(lang, t(lang, 'logoutTitle'), body));
}

/** oidc-provider's postLogoutSuccessSource (no registered post-logout URI was given). */
export async function renderLoggedOutPage(ctx: Any): Promise<void> {
  const lang = langOf(ctx);
  send(ctx, page(lang, t(lang, 'logoutTitle'), `<h1>${t(lang, 'logoutTitle')}</h1><p>${t(lang, 'loggedOut')}</p>`));
}
