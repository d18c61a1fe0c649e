// A user's login sessions on the console's user page (ListUserSessions):
// device, address, last use and the apps each signed in to; "End" one
// (RemoveUserSession) or "End all" (RemoveOtherUserSessions keeping none).
// Ending one ends its grants and tokens, and its apps are told (back-channel
// logout). An administrator who may only read sees the list without buttons.
import type { UserSession } from '../../../gen/keyhold/user/v2/user_sessions_pb.js';
import { describeError, users } from '../api.js';
import { announce, h } from '../dom.js';
import { busy } from '../forms.js';
import { L } from '../i18n.js';
import { tsText } from '../view.js';

export async function sessionsSection(userId: string, mayWrite: boolean): Promise<HTMLElement> {
  const heading = h('h2', { id: 'sessions-title', tabindex: '-1' }, L.sessions);
  const body = h('div');
  const status = h('div', { class: 'alert-box', role: 'alert' });
  const fail = (e: unknown) => status.replaceChildren(h('p', { class: 'error' }, describeError(e).message));
  const ending = (button: HTMLButtonElement, confirmText: string, done: string, call: () => Promise<unknown>) => async () => {
    if (!window.confirm(confirmText)) return;
    await busy(button, L.removing, async () => {
      status.replaceChildren();
      try {
        await call();
        announce(done);
        await show();
        heading.focus();
      } catch (e) {
        fail(e);
      }
    });
  };

  const show = async (): Promise<void> => {
    let sessions: readonly UserSession[];
    try {
      sessions = (await users.listUserSessions({ userId, query: { limit: 1000 } })).result;
    } catch (e) {
      body.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
      return;
    }
    if (!sessions.length) {
      body.replaceChildren(h('p', { class: 'empty', 'data-testid': 'no-sessions' }, L.noSessions));
      return;
    }
    const rows = sessions.map((s) => {
      const end: HTMLButtonElement | null = mayWrite ? h('button', { type: 'button', class: 'danger small', 'aria-label': L.endSessionOf(s.device) }, L.endSession) : null;
      if (end) end.onclick = ending(end, L.confirmEndSession(s.device), L.sessionEnded, () => users.removeUserSession({ userId, sessionId: s.sessionId }));
      return h('tr', { 'data-session': s.sessionId }, h('th', { scope: 'row' }, s.device), h('td', null, s.address), h('td', null, tsText(s.lastUsedDate)), h('td', null, s.clientIds.join(', ')), h('td', null, end));
    });
    const all: HTMLButtonElement | null = mayWrite ? h('button', { type: 'button', class: 'danger' }, L.endAllSessions) : null;
    if (all) all.onclick = ending(all, L.confirmEndAllSessions, L.allSessionsEnded, () => users.removeOtherUserSessions({ userId }));
    const table = h(
      'table',
      { class: 'list', 'data-testid': 'sessions-list' },
      h('caption', { class: 'visually-hidden' }, L.sessions),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, L.sessionDevice), h('th', { scope: 'col' }, L.sessionAddress), h('th', { scope: 'col' }, L.sessionLastUsed), h('th', { scope: 'col' }, L.sessionApps), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, L.actions)))),
      h('tbody', null, rows),
    );
    body.replaceChildren(table, ...(all ? [h('div', { class: 'actions' }, all)] : []));
  };
  await show();
  return h('section', { 'aria-labelledby': 'sessions-title', 'data-testid': 'user-sessions' }, heading, h('p', null, L.sessionsIntro), status, body);
}
