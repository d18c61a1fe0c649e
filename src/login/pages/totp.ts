// The authenticator-app pages: a code as the second factor, and registering
// an app at the login (its QR code drawn on the server as inline SVG markup —
// no script, no external reference, so the login's CSP needs nothing more —
// and its secret as text, grouped for typing). Changing the method is a form
// (a POST with the form token), as every step's input.
import type { Language } from '../../domain/i18n/language.js';
import { escapeHtml, t } from './layout.js';
import { actionOf, BASE, restartForm } from './forms.js';
import { errorLine, type Problem } from './key.js';

/** The longest input read (6 digits; spaces a user types are allowed). */
export const MAX_TOTP_CODE = 32;

const pageLink = (uid: string, query: string) => `${BASE}/${escapeHtml(encodeURIComponent(uid))}?${query}`;

/** The security-key page's button to the app (a user with both). */
export const totpChoice = (lang: Language, uid: string, hidden: string) =>
  `<form method="post" action="${actionOf(uid, 'use-totp')}">${hidden}<button type="submit" class="secondary" id="use-totp">${t(lang, 'totpLink')}</button></form>`;

const codeField = (lang: Language) =>
  `<label for="code">${t(lang, 'totpCode')}</label>` +
  `<input id="code" name="code" inputmode="numeric" pattern="[0-9 ]*" autocomplete="one-time-code" maxlength="${MAX_TOTP_CODE}" required autofocus>`;

export function totpBody(lang: Language, uid: string, hidden: string, loginName: string, hasKey: boolean, problem?: Problem): string {
  return (
    `<h1>${t(lang, 'totpTitle')}</h1>` +
    `<p>${t(lang, 'totpPrompt', { username: loginName })}</p>` +
    errorLine(problem) +
    `<form id="totp-form" method="post" action="${actionOf(uid, 'totp')}">${hidden}${codeField(lang)}` +
    `<button type="submit">${t(lang, 'totpUse')}</button></form>` +
    (hasKey ? `<form method="post" action="${actionOf(uid, 'use-key')}">${hidden}<button type="submit" class="secondary" id="use-key">${t(lang, 'totpKeyLink')}</button></form>` : '') +
    `<p><a id="use-recovery" href="${pageLink(uid, 'recovery=1')}">${t(lang, 'totpRecoveryLink')}</a></p>` +
    restartForm(lang, uid, hidden, loginName)
  );
}

/** The secret in groups of four, as authenticator apps show and take it. */
export const groupedSecret = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

export function enrolTotpBody(lang: Language, uid: string, hidden: string, loginName: string, qrSvg: string, secret: string, links: string, problem?: Problem): string {
  return (
    `<h1>${t(lang, 'enrolTotpTitle')}</h1>` +
    `<p>${t(lang, 'enrolTotpPrompt', { username: loginName })}</p>` +
    errorLine(problem) +
    // Server-drawn markup (the qrcode package's paths), not user input.
    `<div id="totp-qr">${qrSvg}</div>` +
    `<p>${t(lang, 'enrolTotpSecret')}: <code id="totp-secret">${escapeHtml(groupedSecret(secret))}</code></p>` +
    `<form id="totp-form" method="post" action="${actionOf(uid, 'totp')}">${hidden}${codeField(lang)}` +
    `<button type="submit">${t(lang, 'enrolTotpUse')}</button></form>` +
    links +
    restartForm(lang, uid, hidden, loginName)
  );
}
