// The login's pages without a ceremony: the username, the password, a new
// password, the app's consent. Each form posts to its step's action under
// /ui/login/<uid>/ with the form token (`hidden`).
import type { Language } from '../../domain/i18n/language.js';
import { scopeList } from './scope-words.js';
import { escapeHtml, t } from './layout.js';

export const BASE = '/ui/login';

export const actionOf = (uid: string, action: string) => `${BASE}/${escapeHtml(uid)}/${action}`;

const errorLine = (error?: string) => (error ? `<p class="error" role="alert">${error}</p>` : '');

/** "Not you?": the sign-in starts over. */
export const restartForm = (lang: Language, uid: string, hidden: string, loginName: string) =>
  `<form method="post" action="${actionOf(uid, 'restart')}">${hidden}<button type="submit" class="secondary">${t(lang, 'notYou', { username: loginName })}</button></form>`;

export function usernameForm(lang: Language, uid: string, hidden: string, app: string, value: string, error?: string): string {
  return (
    `<h1>${t(lang, 'signInTo', { app })}</h1>${errorLine(error)}` +
    `<form method="post" action="${actionOf(uid, 'username')}">${hidden}` +
    `<label for="username">${t(lang, 'username')}</label>` +
    `<input id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus value="${escapeHtml(value)}">` +
    `<button type="submit">${t(lang, 'next')}</button></form>`
  );
}

export function passwordForm(lang: Language, uid: string, hidden: string, app: string, loginName: string, error?: string): string {
  return (
    `<h1>${t(lang, 'signInTo', { app })}</h1>${errorLine(error)}` +
    `<form method="post" action="${actionOf(uid, 'password')}">${hidden}` +
    // The username again, hidden from view, so password managers save the pair.
    `<input type="text" name="username" autocomplete="username" value="${escapeHtml(loginName)}" hidden readonly>` +
    `<p><strong>${escapeHtml(loginName)}</strong></p>` +
    `<label for="password">${t(lang, 'password')}</label>` +
    `<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>` +
    `<button type="submit">${t(lang, 'signIn')}</button></form>` +
    // "Forgot password?" is a form (the login moves only by its form token), dressed as a link.
    `<form method="post" action="${actionOf(uid, 'forgot')}">${hidden}<button type="submit" class="secondary" id="forgot">${t(lang, 'forgotPassword')}</button></form>` +
    restartForm(lang, uid, hidden, loginName)
  );
}

/** The name to send a reset link for; without mail, a sentence saying to ask an administrator. */
export function forgotForm(lang: Language, uid: string, hidden: string, loginName: string, mail: boolean): string {
  const back = `<form method="post" action="${actionOf(uid, 'restart')}">${hidden}<button type="submit" class="secondary">${t(lang, 'backToSignIn')}</button></form>`;
  if (!mail) return `<h1>${t(lang, 'forgotTitle')}</h1><p role="alert">${t(lang, 'noMail')}</p>${back}`;
  return (
    `<h1>${t(lang, 'forgotTitle')}</h1><p>${t(lang, 'forgotIntro')}</p>` +
    `<form method="post" action="${actionOf(uid, 'send')}">${hidden}` +
    `<label for="username">${t(lang, 'username')}</label>` +
    `<input id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus value="${escapeHtml(loginName)}">` +
    `<button type="submit">${t(lang, 'sendLink')}</button></form>` +
    back
  );
}

/** What asking for a link answers, whatever the name: no name, nothing about an account. */
export function resetSentBody(lang: Language, uid: string, hidden: string): string {
  return `<h1>${t(lang, 'forgotTitle')}</h1><p role="status">${t(lang, 'resetSent')}</p><form method="post" action="${actionOf(uid, 'restart')}">${hidden}<button type="submit">${t(lang, 'backToSignIn')}</button></form>`;
}

/** The reset link's page: a new password, the code carried in the form (not the URL of the POST). */
export function resetForm(lang: Language, code: string, username: string, error?: string): string {
  return (
    `<h1>${t(lang, 'forgotTitle')}</h1><p>${t(lang, 'resetFor', { username: escapeHtml(username) })}</p>${errorLine(error)}` +
    `<form method="post" action="${BASE}/reset"><input type="hidden" name="code" value="${escapeHtml(code)}">` +
    `<input type="text" name="username" autocomplete="username" value="${escapeHtml(username)}" hidden readonly>` +
    `<label for="new_password">${t(lang, 'newPassword')}</label>` +
    `<input id="new_password" name="new_password" type="password" autocomplete="new-password" required autofocus>` +
    `<label for="confirm_password">${t(lang, 'confirmPassword')}</label>` +
    `<input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" required>` +
    `<button type="submit">${t(lang, 'save')}</button></form>`
  );
}

export function changeForm(lang: Language, uid: string, hidden: string, loginName: string, error?: string): string {
  return (
    `<h1>${t(lang, 'changePassword')}</h1><p>${t(lang, 'changeRequired')}</p>${errorLine(error)}` +
    `<form method="post" action="${actionOf(uid, 'change')}">${hidden}` +
    `<input type="text" name="username" autocomplete="username" value="${escapeHtml(loginName)}" hidden readonly>` +
    `<label for="new_password">${t(lang, 'newPassword')}</label>` +
    `<input id="new_password" name="new_password" type="password" autocomplete="new-password" required autofocus>` +
    `<label for="confirm_password">${t(lang, 'confirmPassword')}</label>` +
    `<input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" required>` +
    `<button type="submit">${t(lang, 'save')}</button></form>`
  );
}

export function consentForm(lang: Language, uid: string, hidden: string, app: string, scope: unknown): string {
  return (
    `<h1>${t(lang, 'consentTitle', { app })}</h1>` +
    scopeList(lang, app, scope) +
    `<form method="post" action="${actionOf(uid, 'consent')}">${hidden}` +
    `<button type="submit" name="decision" value="allow">${t(lang, 'allow')}</button> ` +
    `<button type="submit" name="decision" value="deny" class="secondary">${t(lang, 'deny')}</button></form>`
  );
}

/** An error page of the login (an expired form, an app the user may not use). */
export const errorBody = (lang: Language, text: string) => `<h1>${t(lang, 'errorTitle')}</h1><p class="error">${text}</p>`;

/** A native app's sign-in is done: the user may close the window, or continue to the app. */
export const nativeDoneBody = (lang: Language, returnTo: string) =>
  `<h1>${t(lang, 'title')}</h1><p>${t(lang, 'nativeDone')}</p><p><a href="${escapeHtml(returnTo)}">${t(lang, 'nativeContinue')}</a></p>`;
