// The account page's "Sessions" section: the user's login sessions (device,
// address, last use; this browser's marked), each with "End", and "End all
// other sessions" while there are others. Ending runs the user's own
// commands (adapters.ts): the session's grants and tokens end with it and its
// apps hear of it by back-channel logout.
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

const when = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');

/** `base`: the account page's path, the forms' actions under it. */
export function sessionsSection(lang: Language, sessions: readonly ListedSession[], hidden: string, base: string): string {
  const items = sessions.map(
    (s) =>
      `<li class="session"${s.current ? ' id="current-session"' : ''}>${escapeHtml(s.device)} · ${escapeHtml(s.address)} · ${at(lang, 'lastUsed', { when: when(s.lastUsedAt) })}` +
      (s.current ? ` · <strong>${at(lang, 'thisBrowser')}</strong>` : '') +
      `<form method="post" action="${base}/end-session">${hidden}<input type="hidden" name="session" value="${escapeHtml(s.id)}"><button type="submit">${at(lang, 'endSession')}</button></form></li>`,
  );
  const others = sessions.some((s) => !s.current)
    ? `<form id="end-others" method="post" action="${base}/end-others">${hidden}<button type="submit">${at(lang, 'endOtherSessions')}</button></form>`
    : '';
  const body = items.length ? `<ul id="sessions-list">${items.join('')}</ul>${others}` : `<p>${at(lang, 'sessionsNone')}</p>`;
  return `<section id="sessions"><h2>${at(lang, 'sessions')}</h2>${body}</section>`;
}
