// The recovery-code page (a lost key): one of the user's one-time codes, and
// the way back to the key (a form button: it moves the login's state).
import type { Language } from '../../domain/i18n/language.js';
import { t } from './layout.js';
import { actionOf, restartForm } from './forms.js';
import { errorLine, type Problem } from './key.js';

/** The longest input read (a code is 13 characters as shown; spaces may be added). */
export const MAX_CODE = 64;

export function recoveryBody(lang: Language, uid: string, hidden: string, loginName: string, problem?: Problem): string {
  return (
    `<h1>${t(lang, 'recoveryTitle')}</h1>` +
    `<p>${t(lang, 'recoveryPrompt', { username: loginName })}</p>` +
    errorLine(problem) +
    `<form id="recovery-form" method="post" action="${actionOf(uid, 'recovery')}">${hidden}` +
    `<label for="code">${t(lang, 'recoveryCode')}</label>` +
    `<input id="code" name="code" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" maxlength="${MAX_CODE}" required autofocus>` +
    `<button type="submit">${t(lang, 'recoveryUse')}</button></form>` +
    `<form method="post" action="${actionOf(uid, 'use-key')}">${hidden}<button type="submit" class="secondary" id="use-key">${t(lang, 'recoveryBack')}</button></form>` +
    restartForm(lang, uid, hidden, loginName)
  );
}
