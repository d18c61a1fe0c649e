// The passkey pages: the username page offering a passkey (a button, and the
// browser's autofill on the username field), the passkey prompt of a user
// whose org signs in without passwords, and a passkey's registration at a
// forced enrolment with the other methods to choose from. The ceremony runs
// in Keyhold's own script (key-script.ts), its options in a data attribute.
import type { Language } from '../../domain/i18n/language.js';
import { ENROLMENT_METHODS, type EnrolmentMethod } from '../steps/enrolment-methods.js';
import { actionOf, restartForm } from './forms.js';
import { errorLine, type Problem } from './key.js';
import { escapeHtml, t } from './layout.js';

/** The passkey button's form: the ceremony's options, the answer (or the browser's refusal) posted to the `passkey` action. */
function passkeyForm(lang: Language, uid: string, hidden: string, options: unknown): string {
  return (
    `<div id="passkey-step" data-options="${escapeHtml(JSON.stringify(options))}" hidden></div>` +
    `<form id="passkey-form" method="post" action="${actionOf(uid, 'passkey')}">${hidden}` +
    `<input type="hidden" id="passkey-response" name="response"><input type="hidden" id="passkey-failure" name="failure">` +
    `<button type="button" id="passkey-start" class="secondary" disabled>${t(lang, 'passkeyUse')}</button></form>`
  );
}

/** The username page with a passkey: the username field also offers the browser's passkeys (autocomplete "username webauthn"). */
export function usernamePasskeyBody(lang: Language, uid: string, hidden: string, app: string, value: string, options: unknown, problem?: Problem): string {
  return (
    `<h1>${t(lang, 'signInTo', { app })}</h1>${errorLine(problem)}` +
    `<form method="post" action="${actionOf(uid, 'username')}">${hidden}` +
    `<label for="username">${t(lang, 'username')}</label>` +
    `<input id="username" name="username" autocomplete="username webauthn" autocapitalize="none" spellcheck="false" required autofocus value="${escapeHtml(value)}">` +
    `<button type="submit">${t(lang, 'next')}</button></form>` +
    passkeyForm(lang, uid, hidden, options)
  );
}

/** A typed name whose org signs in without passwords: its passkey, no password field. */
export function passkeyOnlyBody(lang: Language, uid: string, hidden: string, app: string, loginName: string, options: unknown, problem?: Problem): string {
  return (
    `<h1>${t(lang, 'signInTo', { app })}</h1>` +
    `<p id="passkey-only">${t(lang, 'passkeyOnly', { username: loginName })}</p>${errorLine(problem)}` +
    passkeyForm(lang, uid, hidden, options) +
    `<noscript><p class="error">${t(lang, 'passkeyNoScript')}</p></noscript>` +
    restartForm(lang, uid, hidden, loginName)
  );
}

/** The forced enrolment's other methods (ENROLMENT_METHODS), one button each. */
export function enrolmentChoice(lang: Language, uid: string, hidden: string, current: EnrolmentMethod, offered: (m: EnrolmentMethod) => boolean = () => true): string {
  const others = (Object.keys(ENROLMENT_METHODS) as EnrolmentMethod[]).filter((m) => m !== current && offered(m));
  if (!others.length) return '';
  const buttons = others.map((m) => `<button type="submit" class="secondary" name="method" value="${m}" id="enrol-${m}">${t(lang, ENROLMENT_METHODS[m].label)}</button>`);
  return `<form id="enrol-choice" method="post" action="${actionOf(uid, 'enrol-method')}">${hidden}<p>${t(lang, 'enrollOther')}</p>${buttons.join(' ')}</form>`;
}

/** A passkey's registration at a forced enrolment (the key step's register ceremony, passkey options). */
export function enrolPasskeyBody(lang: Language, uid: string, hidden: string, loginName: string, options: unknown, problem?: Problem): string {
  return (
    `<h1>${t(lang, 'enrollPasskeyTitle')}</h1>` +
    `<p>${t(lang, 'enrollPasskeyPrompt', { username: loginName })}</p>` +
    errorLine(problem) +
    `<div id="key-step" data-mode="register" data-options="${escapeHtml(JSON.stringify(options))}" hidden></div>` +
    `<form id="key-form" method="post" action="${actionOf(uid, 'key')}">${hidden}` +
    `<input type="hidden" id="key-response" name="response"><input type="hidden" id="key-failure" name="failure">` +
    `<button type="button" id="key-start" disabled>${t(lang, 'enrollPasskeyUse')}</button></form>` +
    `<noscript><p class="error">${t(lang, 'passkeyNoScript')}</p></noscript>` +
    enrolmentChoice(lang, uid, hidden, 'passkey') +
    restartForm(lang, uid, hidden, loginName)
  );
}
