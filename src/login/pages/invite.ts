// The invitation page (invite-routes.ts): set a first password or register a
// passkey; or, for a user who signs in with a password, add a security key
// (the password typed on the same form). The ceremonies run in the key
// steps' script (key-script.ts), their options in a data attribute.
import type { Language } from '../../domain/i18n/language.js';
import { INVITE_PATH } from '../../domain/invite/link.js';
import { escapeHtml, t } from './layout.js';

export interface InviteView {
  userId: string;
  code: string;
  username: string;
  name: string;
  /** The form token's hidden field. */
  token: string;
  options: unknown;
  enrolmentId: string;
  /** What the user's org lets sign in. */
  offers: { password: boolean; passkey: boolean };
}

const errorLine = (problem?: string) => (problem ? `<p class="error" role="alert">${escapeHtml(problem)}</p>` : '');

/** The fields every form of the page posts: whose invitation, its code, the enrolment the page started, the form token. */
const carried = (v: InviteView) =>
  `<input type="hidden" name="user" value="${escapeHtml(v.userId)}"><input type="hidden" name="code" value="${escapeHtml(v.code)}">` +
  `<input type="hidden" name="enrolment" value="${escapeHtml(v.enrolmentId)}">${v.token}`;

/** The ceremony's form: its options, the answer (or the browser's refusal), and what else the form holds. */
const ceremony = (v: InviteView, action: string, inner: string, button: string, id = 'key-start') =>
  `<div id="key-step" data-mode="register" data-options="${escapeHtml(JSON.stringify(v.options))}" hidden></div>` +
  `<form id="key-form" method="post" action="${INVITE_PATH}/${action}">${carried(v)}` +
  `<input type="hidden" id="key-response" name="response"><input type="hidden" id="key-failure" name="failure">` +
  `${inner}<button type="button" id="${id}" disabled>${button}</button></form>`;

/** A first credential: a password, or a passkey. */
export function inviteCredentialBody(lang: Language, v: InviteView, problem?: string): string {
  const password = !v.offers.password
    ? ''
    : `<form id="invite-password" method="post" action="${INVITE_PATH}/password">${carried(v)}` +
      `<input type="text" name="username" autocomplete="username" value="${escapeHtml(v.username)}" hidden readonly>` +
      `<label for="new_password">${t(lang, 'newPassword')}</label>` +
      `<input id="new_password" name="new_password" type="password" autocomplete="new-password" required autofocus>` +
      `<label for="confirm_password">${t(lang, 'confirmPassword')}</label>` +
      `<input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" required>` +
      `<button type="submit">${t(lang, 'invitePasswordSave')}</button></form>`;
  return (
    `<h1>${t(lang, 'inviteTitle')}</h1><p>${t(lang, 'invitePrompt', { name: v.name, username: v.username })}</p>${errorLine(problem)}` +
    password +
    (v.offers.passkey ? ceremony(v, 'passkey', '', t(lang, 'invitePasskeyUse')) : '')
  );
}

/** A security key, for a user who signs in with a password: the password on the same form. */
export function inviteKeyBody(lang: Language, v: InviteView, problem?: string): string {
  return (
    `<h1>${t(lang, 'inviteKeyTitle')}</h1><p>${t(lang, 'inviteKeyPrompt', { username: v.username })}</p>${errorLine(problem)}` +
    ceremony(
      v,
      'key',
      `<input type="text" name="username" autocomplete="username" value="${escapeHtml(v.username)}" hidden readonly>` +
        `<label for="password">${t(lang, 'password')}</label><input id="password" name="password" type="password" autocomplete="current-password" required autofocus>`,
      t(lang, 'inviteKeyUse'),
    ) +
    `<noscript><p class="error">${t(lang, 'passkeyNoScript')}</p></noscript>`
  );
}

/** Done: on to a normal sign-in. */
export function inviteDoneBody(lang: Language, username: string, key: boolean, signInUrl: string): string {
  return (
    `<h1>${t(lang, 'inviteDoneTitle')}</h1><p id="invite-done">${t(lang, key ? 'inviteKeyDone' : 'inviteDone', { username })}</p>` +
    `<p><a id="invite-sign-in" href="${escapeHtml(signInUrl)}">${t(lang, 'inviteSignIn')}</a></p>`
  );
}

export const inviteErrorBody = (lang: Language, problem: string) => `<h1>${t(lang, 'errorTitle')}</h1><p class="error" role="alert">${escapeHtml(problem)}</p>`;
