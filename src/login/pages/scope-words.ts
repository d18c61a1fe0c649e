// The scopes of a request as a list a person reads (../../domain/i18n/scopes.ts),
// for the consent page (src/login/steps/consent.ts) and the device confirmation (src/server/oidc/device-pages.ts):
// every scope asked for, in words, and the warning when one of them lets the
// app act as the user on Keyhold's API (src/server/oidc/api-audience.ts).
import type { Language } from '../../domain/i18n/language.js';
import { SCOPE_TEXTS, type ScopeText } from '../../domain/i18n/scopes.js';
import { localize } from '../../domain/i18n/text.js';
import { METADATA_SCOPE, ORG_SCOPE_PREFIX, ROLES_SCOPE } from '../../domain/oidc/scope-names.js';
import { API_AUDIENCE_SCOPE } from '../../queries/callers.js';
import { escapeHtml } from './layout.js';

const SCOPE_WORDS: Readonly<Record<string, ScopeText>> = {
  openid: 'openid',
  profile: 'profile',
  email: 'email',
  offline_access: 'offlineAccess',
  [ROLES_SCOPE]: 'roles',
  [METADATA_SCOPE]: 'metadata',
  [API_AUDIENCE_SCOPE]: 'api',
};

const say = (lang: Language, code: ScopeText, params: Record<string, unknown> = {}) => escapeHtml(localize(SCOPE_TEXTS[code], lang, params));

/** One scope in words (HTML-escaped); a scope Keyhold has no words for is named as it is. */
function scopeItem(lang: Language, scope: string): string {
  const known = SCOPE_WORDS[scope];
  if (known) return say(lang, known);
  if (scope.startsWith(ORG_SCOPE_PREFIX)) return say(lang, 'org', { orgId: scope.slice(ORG_SCOPE_PREFIX.length) });
  return say(lang, 'other', { scope });
}

/**
 * The HTML of "{app} asks to:" and the list of every scope in `scope` (space-separated),
 * preceded by the API warning when the API audience is among them; empty for no scope.
 */
export function scopeList(lang: Language, app: string, scope: unknown): string {
  const scopes = [...new Set(typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [])];
  if (!scopes.length) return '';
  const warning = scopes.includes(API_AUDIENCE_SCOPE) ? `<p class="error" data-scope="api">${say(lang, 'apiWarning', { app })}</p>` : '';
  const items = scopes.map((s) => `<li data-scope="${escapeHtml(s)}">${scopeItem(lang, s)}</li>`).join('');
  return `${warning}<p>${say(lang, 'intro', { app })}</p><ul>${items}</ul>`;
}
