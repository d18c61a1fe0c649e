// The account page and its two ceremony pages (a passkey, an authenticator
// app), server-rendered in the login's frame (src/login/pages/layout.ts):
// every form posts to /ui/account/<action> with the form token; every text
// and every value shown is HTML-escaped (at(), escapeHtml).
import type { Language } from '../domain/i18n/language.js';
import { escapeHtml } from '../login/pages/layout.js';
import { groupedSecret, MAX_TOTP_CODE } from '../login/pages/totp.js';
import type { AccountView, AppGrant, Factor } from './ports.js';
import { sessionsSection, type ListedSession } from './sessions-section.js';
import { at } from './text.js';

export const ACCOUNT_BASE = '/ui/account';
const actionOf = (action: string) => `${ACCOUNT_BASE}/${action}`;

/** What the last form came to: a notice, or a refusal. */
export interface Said {
  notice?: string;
  problem?: string;
}

const said = ({ notice, problem }: Said = {}) =>
  (notice ? `<p class="notice" role="status">${notice}</p>` : '') + (problem ? `<p class="error" role="alert">${problem}</p>` : '');

const field = (id: string, label: string, value: string, extra = '') =>
  `<label for="${id}">${label}</label><input id="${id}" name="${id}" value="${escapeHtml(value)}"${extra}>`;

/** The current password of a change to how the user signs in (routes.ts reauth). */
const currentPassword = (lang: Language, view: AccountView, id: string) =>
  view.hasPassword ? `<label for="${id}">${at(lang, 'currentPassword')}</label><input id="${id}" name="current_password" type="password" autocomplete="current-password" required>` : '';

const form = (hidden: string, action: string, inner: string, id = '') => `<form${id ? ` id="${id}"` : ''} method="post" action="${actionOf(action)}">${hidden}${inner}</form>`;

function profileSection(lang: Language, view: AccountView, hidden: string): string {
  const address = view.email
    ? `<p id="address"><strong>${at(lang, 'address')}:</strong> ${escapeHtml(view.email)} (<span id="address-state">${at(lang, view.emailVerified ? 'addressVerified' : 'addressUnverified')}</span>)</p>`
    : `<p id="address"><strong>${at(lang, 'address')}:</strong> ${at(lang, 'none')}</p>`;
  return (
    `<section id="profile"><h2>${at(lang, 'profile')}</h2>` +
    form(
      hidden,
      'profile',
      field('given_name', at(lang, 'givenName'), view.givenName, ' required autocomplete="given-name"') +
        field('family_name', at(lang, 'familyName'), view.familyName, ' required autocomplete="family-name"') +
        field('display_name', at(lang, 'displayName'), view.displayName, ' autocomplete="nickname"') +
        `<button type="submit">${at(lang, 'saveProfile')}</button>`,
      'profile-form',
    ) +
    address +
    addressForms(lang, view, hidden) +
    `</section>`
  );
}

/** A new address (with the current password), and — while the address is unverified — the code from the mail. */
function addressForms(lang: Language, view: AccountView, hidden: string): string {
  const change = form(
    hidden,
    'address',
    field('new_email', at(lang, 'newAddress'), '', ' type="email" required autocomplete="email"') + currentPassword(lang, view, 'address_current') + `<button type="submit">${at(lang, 'changeAddress')}</button>`,
    'address-form',
  );
  if (!view.mailConfigured) return change + `<p id="address-no-mail">${at(lang, 'addressNoMail')}</p>`;
  if (!view.email || view.emailVerified) return change;
  return (
    change +
    form(hidden, 'address-confirm', field('code', at(lang, 'addressCode'), '', ' required autocomplete="one-time-code"') + `<button type="submit">${at(lang, 'confirmAddress')}</button>`, 'address-confirm-form') +
    form(hidden, 'address-code', `<button type="submit">${at(lang, 'sendAddressCode')}</button>`, 'address-code-form')
  );
}

function passwordSection(lang: Language, view: AccountView, hidden: string): string {
  return (
    `<section id="password"><h2>${at(lang, 'password')}</h2>` +
    form(
      hidden,
      'password',
      `<input type="text" name="username" autocomplete="username" value="${escapeHtml(view.username)}" hidden readonly>` +
        currentPassword(lang, view, 'password_current') +
        `<label for="new_password">${at(lang, 'newPassword')}</label><input id="new_password" name="new_password" type="password" autocomplete="new-password" required>` +
        `<label for="confirm_password">${at(lang, 'confirmPassword')}</label><input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" required>` +
        `<button type="submit">${at(lang, 'changePassword')}</button>`,
      'password-form',
    ) +
    `</section>`
  );
}

const KIND_TEXT = { key: 'kindKey', passkey: 'kindPasskey', totp: 'kindTotp' } as const;

/** A key's or passkey's new name: no password asked (how the user signs in does not change). */
const renameForm = (lang: Language, hidden: string, f: Factor) => {
  const id = `rename_${f.kind}_${escapeHtml(f.id)}`;
  return form(
    hidden,
    'rename-factor',
    `<input type="hidden" name="kind" value="${f.kind}"><input type="hidden" name="id" value="${escapeHtml(f.id)}">` +
      `<label for="${id}">${at(lang, 'newName')}</label><input id="${id}" name="name" maxlength="200" required value="${escapeHtml(f.name ?? '')}">` +
      `<button type="submit" class="secondary">${at(lang, 'rename')}</button>`,
  );
};

function factorItem(lang: Language, view: AccountView, hidden: string, f: Factor): string {
  const name = f.name ? escapeHtml(f.name) : at(lang, 'unnamed');
  const created = f.createdAt ? ` · ${at(lang, 'created', { date: f.createdAt.toISOString().slice(0, 10) })}` : '';
  return (
    `<li data-kind="${f.kind}" data-id="${escapeHtml(f.id)}"><strong>${at(lang, KIND_TEXT[f.kind])}</strong>: <span class="name">${name}</span>${created}` +
    form(
      hidden,
      'remove-factor',
      `<input type="hidden" name="kind" value="${f.kind}"><input type="hidden" name="id" value="${escapeHtml(f.id)}">` +
        currentPassword(lang, view, `remove_${f.kind}_${escapeHtml(f.id)}`) +
        `<button type="submit" class="secondary">${at(lang, 'remove')}</button>`,
    ) +
    (f.kind === 'totp' ? '' : renameForm(lang, hidden, f)) +
    `</li>`
  );
}

function factorsSection(lang: Language, view: AccountView, hidden: string): string {
  const list = view.factors.length ? `<ul id="factors">${view.factors.map((f) => factorItem(lang, view, hidden, f)).join('')}</ul>` : `<p id="factors">${at(lang, 'noFactors')}</p>`;
  const hasTotp = view.factors.some((f) => f.kind === 'totp');
  return (
    `<section id="second-factors"><h2>${at(lang, 'factors')}</h2><p>${at(lang, 'reauthNote')}</p>${list}` +
    form(
      hidden,
      'passkey',
      `<label for="passkey_name">${at(lang, 'passkeyName')}</label><input id="passkey_name" name="name" maxlength="200" required>` +
        currentPassword(lang, view, 'passkey_current') +
        `<button type="submit">${at(lang, 'addPasskey')}</button>`,
      'add-passkey-form',
    ) +
    (hasTotp ? '' : form(hidden, 'totp', currentPassword(lang, view, 'totp_current') + `<button type="submit">${at(lang, 'addTotp')}</button>`, 'add-totp-form')) +
    `</section>`
  );
}

function codesSection(lang: Language, view: AccountView, hidden: string): string {
  return (
    `<section id="recovery"><h2>${at(lang, 'codes')}</h2><p id="codes-left">${at(lang, 'codesLeft', { count: view.codesLeft })}</p>` +
    form(hidden, 'codes', currentPassword(lang, view, 'codes_current') + `<button type="submit">${at(lang, 'codesRegenerate')}</button>`, 'codes-form') +
    `</section>`
  );
}

function appsSection(lang: Language, grants: readonly AppGrant[], hidden: string): string {
  const items = grants.map(
    (g) =>
      `<li data-client="${escapeHtml(g.clientId)}">${escapeHtml(g.appName || g.clientId)}` +
      form(hidden, 'revoke-app', `<input type="hidden" name="client" value="${escapeHtml(g.clientId)}"><button type="submit" class="secondary">${at(lang, 'revoke')}</button>`) +
      `</li>`,
  );
  return `<section id="apps"><h2>${at(lang, 'apps')}</h2>${items.length ? `<ul id="app-list">${items.join('')}</ul>` : `<p>${at(lang, 'noApps')}</p>`}</section>`;
}

function linksSection(lang: Language, view: AccountView, hidden: string): string {
  const items = view.links.map(
    (l) =>
      `<li data-idp="${escapeHtml(l.idpId)}">${at(lang, 'linkOf', { name: l.name, subject: l.subject })}` +
      form(
        hidden,
        'remove-link',
        `<input type="hidden" name="idp" value="${escapeHtml(l.idpId)}"><input type="hidden" name="subject" value="${escapeHtml(l.subject)}">` +
          currentPassword(lang, view, `link_${escapeHtml(l.idpId)}`) +
          `<button type="submit" class="secondary">${at(lang, 'remove')}</button>`,
      ) +
      `</li>`,
  );
  return `<section id="links"><h2>${at(lang, 'links')}</h2>${items.length ? `<ul id="link-list">${items.join('')}</ul>` : `<p>${at(lang, 'noLinks')}</p>`}</section>`;
}

export interface AccountPage {
  view: AccountView;
  grants: readonly AppGrant[];
  sessions: readonly ListedSession[];
  hidden: string;
}

export function accountBody(lang: Language, p: AccountPage, last?: Said): string {
  return (
    `<h1>${at(lang, 'title')}</h1><p id="signed-in-as">${at(lang, 'signedInAs', { username: p.view.username })}</p>` +
    said(last) +
    profileSection(lang, p.view, p.hidden) +
    passwordSection(lang, p.view, p.hidden) +
    factorsSection(lang, p.view, p.hidden) +
    codesSection(lang, p.view, p.hidden) +
    linksSection(lang, p.view, p.hidden) +
    appsSection(lang, p.grants, p.hidden) +
    sessionsSection(lang, p.sessions, p.hidden, ACCOUNT_BASE)
  );
}

const backLink = (lang: Language) => `<p><a id="back" href="${ACCOUNT_BASE}">${at(lang, 'back')}</a></p>`;

/** A passkey's registration: the login's key-step script runs the ceremony (#key-step, #key-form). */
export function passkeyBody(lang: Language, hidden: string, passkeyId: string, name: string, options: unknown, problem?: string): string {
  return (
    `<h1>${at(lang, 'passkeyTitle')}</h1><p>${at(lang, 'passkeyPrompt')}</p>` +
    said({ problem }) +
    `<div id="key-step" data-mode="register" data-options="${escapeHtml(JSON.stringify(options))}" hidden></div>` +
    `<form id="key-form" method="post" action="${actionOf('passkey-finish')}">${hidden}` +
    `<input type="hidden" name="passkey_id" value="${escapeHtml(passkeyId)}"><input type="hidden" name="name" value="${escapeHtml(name)}">` +
    `<input type="hidden" id="key-response" name="response"><input type="hidden" id="key-failure" name="failure">` +
    `<button type="button" id="key-start" disabled>${at(lang, 'passkeyStart')}</button></form>` +
    `<noscript><p class="error">${at(lang, 'noScript')}</p></noscript>` +
    backLink(lang)
  );
}

/** An authenticator app's registration: the QR code (server-drawn SVG), the key as text, and the code form. */
export function totpBody(lang: Language, hidden: string, qrSvg: string, secret: string, problem?: string): string {
  return (
    `<h1>${at(lang, 'totpTitle')}</h1><p>${at(lang, 'totpPrompt')}</p>` +
    said({ problem }) +
    // Server-drawn markup (the qrcode package's paths), not user input.
    `<div id="totp-qr">${qrSvg}</div>` +
    `<p>${at(lang, 'totpSecret')}: <code id="totp-secret">${escapeHtml(groupedSecret(secret))}</code></p>` +
    form(
      hidden,
      'totp-finish',
      `<label for="code">${at(lang, 'totpCode')}</label><input id="code" name="code" inputmode="numeric" pattern="[0-9 ]*" autocomplete="one-time-code" maxlength="${MAX_TOTP_CODE}" required autofocus>` +
        `<button type="submit">${at(lang, 'totpConfirm')}</button>`,
      'totp-form',
    ) +
    backLink(lang)
  );
}

/** New recovery codes: shown in this answer only. */
export function codesBody(lang: Language, codes: readonly string[]): string {
  return `<h1>${at(lang, 'codesTitle')}</h1><p>${at(lang, 'codesPrompt')}</p><ol id="recovery-codes">${codes.map((c) => `<li><code>${escapeHtml(c)}</code></li>`).join('')}</ol>` + backLink(lang);
}
