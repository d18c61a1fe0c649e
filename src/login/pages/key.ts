// The security-key pages: the ceremony (using a key, or registering a first
// one), the recovery codes a first key brings, and the refusal of a second
// factor this login cannot take. The ceremony runs in Keyhold's own script
// (key-script.ts), its options in a data attribute (no inline script).
import type { Language } from '../../domain/i18n/language.js';
import { escapeHtml, t } from './layout.js';
import { actionOf, BASE, restartForm } from './forms.js';

/** A refusal shown on the page: its text (HTML-escaped) and, for a catalogue reason, its code. */
export interface Problem {
  text: string;
  reason?: string;
}

export const errorLine = (problem?: Problem) =>
  problem ? `<p class="error" role="alert"${problem.reason ? ` data-reason="${problem.reason}"` : ''}>${problem.text}</p>` : '';

/** A user who lost the key: one of the recovery codes instead (recovery.ts). A link, so it works without JavaScript and is a plain GET. */
export const recoveryLink = (lang: Language, uid: string) =>
  `<p><a id="use-recovery" href="${BASE}/${escapeHtml(encodeURIComponent(uid))}?recovery=1">${t(lang, 'recoveryLink')}</a></p>`;

export function ceremonyBody(lang: Language, uid: string, hidden: string, mode: 'authenticate' | 'register', loginName: string, options: unknown, problem?: Problem): string {
  const enrol = mode === 'register';
  return (
    `<h1>${t(lang, enrol ? 'enrollTitle' : 'keyTitle')}</h1>` +
    `<p>${t(lang, enrol ? 'enrollPrompt' : 'keyPrompt', { username: loginName })}</p>` +
    errorLine(problem) +
    `<div id="key-step" data-mode="${mode}" data-options="${escapeHtml(JSON.stringify(options))}" hidden></div>` +
    `<form id="key-form" method="post" action="${actionOf(uid, 'key')}">${hidden}` +
    `<input type="hidden" id="key-response" name="response"><input type="hidden" id="key-failure" name="failure">` +
    `<button type="button" id="key-start" disabled>${t(lang, enrol ? 'enrollUse' : 'keyUse')}</button></form>` +
    `<noscript><p class="error">${t(lang, 'keyNoScript')}</p></noscript>` +
    (enrol ? '' : recoveryLink(lang, uid)) +
    restartForm(lang, uid, hidden, loginName)
  );
}

/** The recovery codes of a first key: listed only in the answer to the registration; the page shown again says they were shown. */
export function codesBody(lang: Language, uid: string, hidden: string, codes: readonly string[]): string {
  const list = codes.length
    ? `<p>${t(lang, 'codesPrompt')}</p><ol id="recovery-codes">${codes.map((c) => `<li><code>${escapeHtml(c)}</code></li>`).join('')}</ol>`
    : `<p>${t(lang, 'codesShownOnce')}</p>`;
  return `<h1>${t(lang, 'codesTitle')}</h1>${list}` + `<form method="post" action="${actionOf(uid, 'key')}">${hidden}<button type="submit">${t(lang, 'codesContinue')}</button></form>`;
}

/** Where the user's keys work (their origins, or an RP id no longer configured); none: no key can be registered at this address. */
export function elsewhereBody(lang: Language, uid: string, hidden: string, loginName: string, where: readonly { rpId: string; origins: readonly string[] }[]): string {
  const items = where.map(({ rpId, origins }) => `<li>${origins.length ? origins.map((o) => `<code>${escapeHtml(o)}</code>`).join(', ') : t(lang, 'keyRetired', { rpId })}</li>`);
  const text = where.length
    ? `<p class="error" role="alert" data-refusal="key-elsewhere">${t(lang, 'keyElsewhere', { username: loginName })}</p><ul id="key-elsewhere">${items.join('')}</ul>`
    : `<p class="error" role="alert" data-refusal="no-enrollment-here">${t(lang, 'enrollUnavailable')}</p>`;
  return `<h1>${t(lang, 'keyElsewhereTitle')}</h1>${text}` + restartForm(lang, uid, hidden, loginName);
}
