// The registration pages: the "Register" button under the username form, the
// form itself (name, address, password twice), and "verify your address".
import type { Language } from '../../domain/i18n/language.js';
import { actionOf, restartForm } from './forms.js';
import { escapeHtml, t } from './layout.js';

const errorLine = (error?: string) => (error ? `<p class="error" role="alert">${error}</p>` : '');

/** Under the username form, where the app's org allows registration. */
export const registerButton = (lang: Language, uid: string, hidden: string) =>
  `<form id="register-start" method="post" action="${actionOf(uid, 'register-start')}">${hidden}<button type="submit" class="secondary">${t(lang, 'registerLink')}</button></form>`;

export function registerForm(lang: Language, uid: string, hidden: string, app: string, domains: readonly string[], values: Record<string, string>, error?: string): string {
  const field = (name: string, label: string, type: string, autocomplete: string) =>
    `<label for="${name}">${label}</label><input id="${name}" name="${name}" type="${type}" autocomplete="${autocomplete}" required` +
    (type === 'password' ? '>' : ` value="${escapeHtml(values[name] ?? '')}">`);
  return (
    `<h1>${t(lang, 'registerTitle', { app })}</h1>` +
    (domains.length ? `<p id="register-domains">${t(lang, 'registerDomains', { domains: domains.join(', ') })}</p>` : '') +
    errorLine(error) +
    `<form id="register" method="post" action="${actionOf(uid, 'register')}">${hidden}` +
    field('given_name', t(lang, 'givenName'), 'text', 'given-name') +
    field('family_name', t(lang, 'familyName'), 'text', 'family-name') +
    field('email', t(lang, 'emailAddress'), 'email', 'username') +
    field('new_password', t(lang, 'newPassword'), 'password', 'new-password') +
    field('confirm_password', t(lang, 'confirmPassword'), 'password', 'new-password') +
    `<button type="submit">${t(lang, 'registerSubmit')}</button></form>` +
    `<form method="post" action="${actionOf(uid, 'restart')}">${hidden}<button type="submit" class="secondary">${t(lang, 'signIn')}</button></form>`
  );
}

/** `mailed`: a verification link went to the address (otherwise an administrator verifies it). */
export const registeredBody = (lang: Language, uid: string, hidden: string, username: string, mailed = false) =>
  `<h1>${t(lang, 'registeredTitle')}</h1><p id="registered">${t(lang, mailed ? 'registeredMailed' : 'registered', { username })}</p>` + restartForm(lang, uid, hidden, username).replace(t(lang, 'notYou', { username }), t(lang, 'registeredSignIn'));
