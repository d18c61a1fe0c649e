// #/users: the users, searched and paged by the server (ListUsers: username,
// email or display name; state; kind), in the chosen organization when one is
// chosen on #/orgs; "New human user" and "New machine user". Each user's page
// has the lifecycle actions and, for machine users, the access tokens.
import type { MessageInitShape } from '@bufbuild/protobuf';
import { AccessTokenType } from '../../../gen/keyhold/management/v1/management_pb.js';
import { TextQueryMethod } from '../../../gen/keyhold/object/v1/object_pb.js';
import { type SearchQuerySchema, Type, type User, UserState } from '../../../gen/keyhold/user/v2/user_pb.js';
import { describeError, management, orgContext, users } from '../api.js';
import { announce, h, textField, uid } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { L } from '../i18n.js';
import { can } from '../my-roles.js';
import { filterSelect, searchList } from '../paging.js';
import { href, tsText, type View } from '../view.js';
import { invite, invitedCard } from './invite.js';
import { lifecycleButtons, userState } from './user-lifecycle.js';

type Query = MessageInitShape<typeof SearchQuerySchema>;


export function displayNameOf(user: User): string {
  if (user.type.case === 'human') return user.type.value.profile?.displayName || user.username;
  if (user.type.case === 'machine') return user.type.value.name || user.username;
  return user.username;
}

function usersTable(list: readonly User[], reload: () => Promise<void>, problem: HTMLElement, mayWrite: boolean): HTMLElement {
  return h(
    'table',
    { class: 'list' },
    h('caption', { class: 'visually-hidden' }, L.usersTitle),
    h('thead', null, h('tr', null, [L.username, L.name, L.email, L.kind, L.state, L.created, mayWrite ? L.actions : null].filter((c) => c !== null).map((c) => h('th', { scope: 'col' }, c)))),
    h(
      'tbody',
      null,
      list.map((u) =>
        h(
          'tr',
          { 'data-user-id': u.userId },
          h('th', { scope: 'row' }, h('a', { href: href('users', u.userId) }, u.username)),
          h('td', null, displayNameOf(u)),
          h('td', null, u.type.case === 'human' ? (u.type.value.email?.email ?? '') : ''),
          h('td', null, u.type.case === 'machine' ? L.machine : L.human),
          h('td', { 'data-testid': 'user-state' }, userState(u.state)),
          h('td', null, tsText(u.details?.creationDate)),
          mayWrite
            ? h(
                'td',
                null,
                h(
                  'div',
                  { class: 'row-actions', role: 'group', 'aria-label': L.actionsFor(u.username) },
                  lifecycleButtons(u, () => reload(), (message) => problem.replaceChildren(h('p', { class: 'error' }, `${u.username}: ${message}`)), true),
                ),
              )
            : null,
        ),
      ),
    ),
  );
}

function humanForm(): HTMLFormElement {
  const username = textField({ label: L.username, name: 'username', required: true, autocomplete: 'off' });
  const given = textField({ label: L.givenName, name: 'givenName', field: 'profile.givenName', required: true });
  const family = textField({ label: L.familyName, name: 'familyName', field: 'profile.familyName', required: true });
  const display = textField({ label: L.displayName, name: 'displayName', field: 'profile.displayName', hint: L.displayNameHint });
  const email = textField({ label: L.email, name: 'email', field: 'email.email', type: 'email', required: true });
  // The first sign-in: an invitation (the person chooses a password or a passkey), or a password set here.
  const choice = (value: string, label: string, checked: boolean) => {
    const id = uid(`first-${value}`);
    const input = h('input', { type: 'radio', name: 'firstCredential', value, id, checked: checked || undefined });
    return { input, element: h('div', { class: 'choice' }, input, ' ', h('label', { for: id }, label)) };
  };
  const byInvite = choice('invite', L.inviteChoice, true);
  const byPassword = choice('password', L.passwordChoice, false);
  const password = textField({ label: L.initialPassword, name: 'password', field: 'password.password', type: 'password', hint: L.initialPasswordHint, autocomplete: 'new-password' });
  password.wrapper.hidden = true;
  for (const c of [byInvite, byPassword]) c.input.addEventListener('change', () => (password.wrapper.hidden = !byPassword.input.checked));
  const result = h('div');
  const create = h('button', { type: 'submit' }, L.createUser);
  const form = h(
    'form',
    { method: 'post', novalidate: true, class: 'card', 'aria-labelledby': 'new-user-title' },
    h('h2', { id: 'new-user-title' }, L.newHumanUser),
    username.wrapper,
    given.wrapper,
    family.wrapper,
    display.wrapper,
    email.wrapper,
    h('fieldset', { class: 'group', 'data-testid': 'first-credential' }, h('legend', null, L.firstCredential), byInvite.element, byPassword.element, password.wrapper),
    h('div', { class: 'actions' }, create),
    result,
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(create, L.creating, async () => {
      result.replaceChildren();
      try {
        const org = orgContext.current;
        const withPassword = byPassword.input.checked;
        const res = await users.addHumanUser({
          username: username.input.value,
          organization: org ? { orgId: org.id } : undefined,
          profile: { givenName: given.input.value, familyName: family.input.value, displayName: display.input.value },
          email: { email: email.input.value },
          ...(withPassword ? { password: { password: password.input.value, changeRequired: true } } : {}),
        });
        clearProblems(form);
        const name = username.input.value.trim();
        announce(L.userCreated(name));
        if (withPassword) {
          window.location.hash = href('users', res.userId);
          return;
        }
        // The user exists; its invitation is mailed, or its link shown here once.
        try {
          const invited = await invite(res.userId);
          result.replaceChildren(invitedCard(invited, name, false), h('p', null, h('a', { href: href('users', res.userId), 'data-testid': 'open-new-user' }, L.openUser(name))));
        } catch (e) {
          result.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message), h('p', null, h('a', { href: href('users', res.userId) }, L.openUser(name))));
        }
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });
  return form;
}

function machineForm(): HTMLFormElement {
  const username = textField({ label: L.machineLoginName, name: 'userName', required: true });
  const name = textField({ label: L.machineName, name: 'name', required: true });
  const description = textField({ label: L.description, name: 'description', hint: L.descriptionHint });
  const create = h('button', { type: 'submit' }, L.createMachineUser);
  const form = h(
    'form',
    { method: 'post', novalidate: true, class: 'card', 'aria-labelledby': 'new-machine-title' },
    h('h2', { id: 'new-machine-title' }, L.newMachineUser),
    h('p', { class: 'hint' }, L.machineHint),
    username.wrapper,
    name.wrapper,
    description.wrapper,
    h('div', { class: 'actions' }, create),
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(create, L.creating, async () => {
      try {
        const res = await management.addMachineUser({ userName: username.input.value, name: name.input.value, description: description.input.value, accessTokenType: AccessTokenType.BEARER });
        clearProblems(form);
        announce(L.machineCreated(username.input.value.trim()));
        window.location.hash = href('users', res.userId);
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });
  return form;
}

const TEXT_FIELDS: Record<string, (text: string) => Query> = {
  username: (text) => ({ query: { case: 'userNameQuery', value: { userName: text, method: TextQueryMethod.CONTAINS_IGNORE_CASE } } }),
  email: (text) => ({ query: { case: 'emailQuery', value: { emailAddress: text, method: TextQueryMethod.CONTAINS_IGNORE_CASE } } }),
  displayName: (text) => ({ query: { case: 'displayNameQuery', value: { displayName: text, method: TextQueryMethod.CONTAINS_IGNORE_CASE } } }),
};

export async function usersView(): Promise<View> {
  const org = orgContext.current;
  const mayWrite = await can('user.write');
  const problem = h('div', { class: 'alert-box', role: 'alert', 'data-testid': 'users-problem' });
  const field = filterSelect(L.searchIn, 'field', [
    ['username', L.username],
    ['email', L.email],
    ['displayName', L.displayName],
  ]);
  const state = filterSelect(L.state, 'state', [
    ['0', L.any],
    [String(UserState.ACTIVE), L.stateActive],
    [String(UserState.INACTIVE), L.stateDeactivated],
    [String(UserState.LOCKED), L.stateLocked],
  ]);
  const kind = filterSelect(L.kind, 'kind', [
    ['0', L.any],
    [String(Type.HUMAN), L.humanKind],
    [String(Type.MACHINE), L.machineKind],
  ]);
  const list = searchList<User>({
    id: 'users',
    noun: L.usersNoun,
    searchLabel: L.searchUsers,
    searchHint: L.searchUsersHint,
    controls: [field.wrapper, state.wrapper, kind.wrapper],
    filtered: () => state.select.value !== '0' || kind.select.value !== '0',
    empty: L.noUsers,
    async load({ text, offset, limit }) {
      const queries: Query[] = [];
      if (text) queries.push(TEXT_FIELDS[field.select.value]!(text));
      if (state.select.value !== '0') queries.push({ query: { case: 'stateQuery', value: { state: Number(state.select.value) } } });
      if (kind.select.value !== '0') queries.push({ query: { case: 'typeQuery', value: { type: Number(kind.select.value) } } });
      if (org) queries.push({ query: { case: 'organizationIdQuery', value: { organizationId: org.id } } });
      const res = await users.listUsers({ query: { offset: BigInt(offset), limit, asc: true }, queries });
      return { items: res.result, total: Number(res.details?.totalResult ?? 0) };
    },
    render: (items, reload) => {
      problem.replaceChildren();
      return usersTable(items, reload, problem, mayWrite);
    },
  });
  await list.start();

  return {
    title: L.usersTitle,
    node: h(
      'section',
      { 'aria-labelledby': 'users-title' },
      h('h1', { id: 'users-title', tabindex: '-1' }, L.usersTitle),
      org ? h('p', { class: 'notice' }, L.usersOfOrg(org.name)) : null,
      problem,
      list.element,
      mayWrite ? [humanForm(), machineForm()] : null,
    ),
  };
}
