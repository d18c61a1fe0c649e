// The account page's texts in the page's language, HTML-escaped (parameters included).
import { ACCOUNT_TEXTS, type AccountText } from '../domain/i18n/account.js';
import type { Language } from '../domain/i18n/language.js';
import { localize } from '../domain/i18n/text.js';
import { escapeHtml } from '../login/pages/layout.js';

export function at(lang: Language, code: AccountText, params: Record<string, unknown> = {}): string {
  return escapeHtml(localize(ACCOUNT_TEXTS[code], lang, params));
}
