// The frame of every page Keyhold serves to a person (the login's, the
// provider's own): server-rendered, no external assets, one inline style
// allowed by its hash under a strict Content-Security-Policy, Keyhold's own
// scripts only. Every text comes from src/domain/i18n/login.ts in the page's language.
import { createHash } from 'node:crypto';
import { LOGIN_TEXTS, type LoginText } from '../../domain/i18n/login.js';
import type { Language } from '../../domain/i18n/language.js';
import { localize } from '../../domain/i18n/text.js';

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1b1d21}
main{max-width:24rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:.5rem;box-shadow:0 1px 3px #0003}
h1{font-size:1.4rem;margin:0 0 1rem}label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.5rem;font:inherit;border:1px solid #888;border-radius:.25rem}
button{margin-top:1rem;padding:.5rem 1rem;font:inherit;border:0;border-radius:.25rem;background:#1f5fd1;color:#fff;cursor:pointer}
button.secondary{background:#e3e5e8;color:#1b1d21}p.error{color:#a4001b;font-weight:600}code{word-break:break-all}
ul{padding-left:1.2rem}a{color:#1f5fd1}`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * The policy of every login page: nothing loads but this page's own style.
 * No form-action: Chromium applies it to the redirects after a submitted form,
 * which end at the app's redirect URI (any origin).
 */
export const LOGIN_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'`;

/** The policy of a page with a script (the key step): Keyhold's own scripts only, no inline script, no other source. */
export const SCRIPT_CSP = `${LOGIN_CSP}; script-src 'self'`;

/**
 * The policy of every answer of oidc-provider's own (mount.ts): as a page with a
 * script. Its auto-submitting forms add their inline script's hash to this
 * script-src (the library's helpers/script_src_sha.js), so only that script runs.
 */
export const PROVIDER_CSP = SCRIPT_CSP;

export const LOGIN_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': LOGIN_CSP,
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
});

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** A text in `lang`, HTML-escaped (parameters included). */
export function t(lang: Language, code: LoginText, params: Record<string, unknown> = {}): string {
  return escapeHtml(localize(LOGIN_TEXTS[code], lang, params));
}

/** A login page; `script` is the path of one of Keyhold's own scripts (the security-key steps), loaded under SCRIPT_CSP; `referrer` its referrer policy (a meta tag overrides the header). */
export function page(lang: Language, title: string, body: string, script?: string, referrer: 'no-referrer' | 'same-origin' = 'no-referrer'): string {
  const tag = script ? `<script src="${escapeHtml(script)}" defer></script>` : '';
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="${referrer}"><title>${title}</title><style>${STYLE}</style>${tag}</head><body><main>${body}</main></body></html>`;
}


/** The page of a sign-in step that cannot go on while the database cannot answer (src/server/oidc/unavailable.ts): 503, with Retry-After. */
export function unavailablePage(lang: Language): string {
  return page(lang, t(lang, 'unavailableTitle'), `<h1>${t(lang, 'unavailableTitle')}</h1><p class="error">${t(lang, 'unavailable')}</p>`);
}
