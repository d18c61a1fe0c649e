// #/users/<id>: the user, its state and lifecycle actions (./user-lifecycle.ts),
// a human's profile (./user-profile.ts) and password (./user-password.ts),
// a machine user's access tokens (./user-pats.ts), its roles, memberships,
// last login and metadata (./user-access.ts), and the security keys. A key
// is added by the user, in the user's own browser, from an invitation
// (./invite.ts): the console never runs the ceremony for someone else, so the
// administrator never holds the user's key.
import { U2FState, type U2FToken } from '../../../gen/keyhold/user/v2/user_pb.js';
import { describeError, management, users } from '../api.js';
import { announce, h } from '../dom.js';
import { busy } from '../forms.js';
import { tsText, type View } from '../view.js';
import { L } from '../i18n.js';
import { canSomewhere, permissions } from '../my-roles.js';
import { grantsSection, lastLogin, membershipsSection, metadataSection } from './user-access.js';
import { sessionsSection } from './user-sessions.js';
import { lifecycle } from './user-lifecycle.js';
import { patSection } from './user-pats.js';
import { profileForm } from './user-profile.js';
import { passwordSection } from './user-password.js';
import { invite, invitedCard } from './invite.js';

export interface Trouble {
  kind: 'already-registered' | 'cancelled' | 'expired' | 'wrong-origin' | 'unsupported' | 'other';
  title: string;
  advice: string;
}

function keysTable(userId: string, tokens: U2FToken[], reload: () => Promise<void>, showError: (t: Trouble) => void, mayWrite: boolean): HTMLElement {
  const ready = tokens.filter((t) => t.state === U2FState.U2F_STATE_READY);
  if (!ready.length) return h('p', { class: 'empty', 'data-testid': 'no-keys' }, L.noKeys);
  return h(
    'table',
    { class: 'list', 'data-testid': 'keys' },
    h('caption', null, L.keysCount(ready.length)),
    h(
      'thead',
      null,
      h('tr', null, h('th', { scope: 'col' }, L.name), h('th', { scope: 'col' }, L.format), h('th', { scope: 'col' }, 'AAGUID'), h('th', { scope: 'col' }, L.added), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, L.actions))),
    ),
    h(
      'tbody',
      null,
      ready.map((t) => {
        const remove: HTMLButtonElement = h(
          'button',
          {
            type: 'button',
            class: 'danger small',
            'aria-label': L.removeKey(t.name),
            onclick: async () => {
              if (!window.confirm(L.confirmRemoveKey(t.name))) return;
              await busy(remove, L.removing, async () => {
                try {
                  await users.removeU2F({ userId, u2fId: t.id });
                  announce(L.keyRemoved(t.name));
                  await reload();
                } catch (e) {
                  showError({ kind: 'other', title: L.keyNotRemoved, advice: describeError(e).message });
                }
              });
            },
          },
          L.remove,
        );
        return h(
          'tr',
          { 'data-u2f-id': t.id },
          h('th', { scope: 'row' }, t.name),
          h('td', null, t.format || '\u2014'),
          h('td', { class: 'mono' }, t.aaguid || '\u2014'),
          h('td', null, tsText(t.creationDate)),
          h('td', null, mayWrite ? remove : null),
        );
      }),
    ),
  );
}

export async function userView(userId: string): Promise<View> {
  const [{ user }, tokens] = await Promise.all([users.getUserByID({ userId }), users.listU2FTokens({ userId })]);
  const username = user?.username ?? userId;
  const human = user?.type.case === 'human' ? user.type.value : undefined;
  const displayName = human?.profile?.displayName || (user?.type.case === 'machine' ? user.type.value.name : '') || username;
  const [orgName, may, grantWriter] = await Promise.all([
    management.getMyOrganization({}).then((o) => o.name, () => L.yourOrganization),
    permissions(['user.write', 'user.credential.write', 'user.read'] as const),
    // A project owner grants its project's roles: the grant controls show for it too.
    canSomewhere('user.grant.write'),
  ]);
  const pats = user?.type.case === 'machine' ? await patSection(userId, may['user.write']) : null;
  const [roles, memberships, login, metadata, sessions] = await Promise.all([
    grantsSection(userId, grantWriter),
    membershipsSection(userId, orgName),
    lastLogin(userId),
    metadataSection(userId, may['user.write']),
    user?.type.case === 'human' && may['user.read'] ? sessionsSection(userId, may['user.write']) : null,
  ]);
  const state = h('div');
  const showState = (u: NonNullable<typeof user>) =>
    state.replaceChildren(
      lifecycle(u, async (removed) => {
        if (removed) {
          window.location.hash = '#/users';
          return;
        }
        const fresh = await users.getUserByID({ userId });
        if (fresh.user) showState(fresh.user);
        state.querySelector<HTMLElement>('h2')?.focus();
      }, may['user.write']),
    );
  if (user) showState(user);

  const keys = h('div', { 'data-testid': 'key-list' });
  const status = h('p', { class: 'status-line', role: 'status', 'data-testid': 'key-status' });
  const alert = h('div', { class: 'alert-box', role: 'alert', 'data-testid': 'key-error' });
  const naming = h('div');

  const showError = (t: Trouble) => {
    status.textContent = '';
    alert.replaceChildren(h('div', { class: 'error', 'data-kind': t.kind }, h('p', null, h('strong', null, t.title)), h('p', null, t.advice)));
  };
  const reload = async () => {
    const { result } = await users.listU2FTokens({ userId });
    keys.replaceChildren(keysTable(userId, result, reload, showError, may['user.credential.write']));
  };
  keys.replaceChildren(keysTable(userId, tokens.result, reload, showError, may['user.credential.write']));

  // An invitation to add a key, opened by the user in the user's own browser (the page asks for the password).
  const add: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      onclick: () =>
        busy(add, L.saving, async () => {
          alert.replaceChildren();
          naming.replaceChildren();
          try {
            naming.replaceChildren(invitedCard(await invite(userId), displayName, true));
            status.textContent = '';
          } catch (e) {
            showError({ kind: 'other', title: L.keyRefused, advice: describeError(e).message });
          }
        }),
    },
    L.inviteKey,
  );

  return {
    title: displayName,
    node: h(
      'section',
      { 'aria-labelledby': 'user-title' },
      h('nav', { 'aria-label': L.breadcrumb, class: 'breadcrumb' }, h('a', { href: '#/users' }, L.usersTitle), ' / ', h('span', { 'aria-current': 'page' }, username)),
      h('h1', { id: 'user-title', tabindex: '-1' }, displayName),
      h(
        'dl',
        { class: 'facts compact' },
        h('dt', null, L.userId),
        h('dd', { class: 'mono' }, user?.userId ?? userId),
        h('dt', null, L.username),
        h('dd', null, username),
        human?.email?.email ? [h('dt', null, L.email), h('dd', null, human.email.email)] : null,
        h('dt', null, L.kind),
        h('dd', null, user?.type.case === 'machine' ? L.machineUser : L.humanUser),
        h('dt', null, L.created),
        h('dd', null, tsText(user?.details?.creationDate)),
        login,
      ),
      state,
      user && may['user.write'] ? profileForm(user, () => window.dispatchEvent(new HashChangeEvent('hashchange'))) : null,
      human && may['user.credential.write'] ? passwordSection(userId, displayName) : null,
      pats,
      roles,
      memberships,
      metadata,
      sessions,
      h(
        'section',
        { 'aria-labelledby': 'keys-title', class: 'keys' },
        h('h2', { id: 'keys-title' }, L.keys),
        h('p', null, L.keysInviteIntro),
        keys,
        may['user.credential.write'] ? h('div', { class: 'actions' }, add) : null,
        status,
        alert,
        naming,
      ),
    ),
  };
}
