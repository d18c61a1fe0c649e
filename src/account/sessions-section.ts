// The account page's "Sessions" section. The user's sessions (device,
// address, last use; end one, end all others) are listed by their own
// queries; until those are wired in, the section lists none and says so.
import type { Language } from '../domain/i18n/language.js';
import { escapeHtml } from '../login/pages/layout.js';
import { at } from './text.js';

/** One session of the user as the section lists it. */
export interface ListedSession {
  id: string;
  device: string;
  address: string;
  lastUsedAt: Date;
  current: boolean;
}

/** The user's sessions: none listed yet. */
export async function listUserSessions(_userId: string): Promise<ListedSession[]> {
  return [];
}

export function sessionsSection(lang: Language, sessions: readonly ListedSession[]): string {
  const body = sessions.length ? `<ul id="sessions-list">${sessions.map((s) => `<li>${escapeHtml(s.device)} · ${escapeHtml(s.address)} · ${escapeHtml(s.lastUsedAt.toISOString())}</li>`).join('')}</ul>` : `<p>${at(lang, 'sessionsLater')}</p>`;
  return `<section id="sessions"><h2>${at(lang, 'sessions')}</h2>${body}</section>`;
}
