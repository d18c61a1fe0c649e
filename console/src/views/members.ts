// Members of an organization or a project (Add/List/Update/RemoveOrgMember,
// …ProjectMember): who may manage it, with which roles. The same table for
// both; the caller gives the calls and the roles that fit the scope.
import { TextQueryMethod } from '../../../gen/keyhold/object/v1/object_pb.js';
import type { Member } from '../../../gen/keyhold/management/v1/members_pb.js';
import { describeError, management, orgContext, users } from '../api.js';
import { announce, h, textField, uid } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { L, roleLabel } from '../i18n.js';
import { href } from '../view.js';

export interface MemberCalls {
  /** `data-testid` of the section. */
  id: string;
  intro: string;
  /** The roles a member can hold here. */
  roles: readonly string[];
  /** Whether the caller may add, change and remove members here (my-roles.ts); no: the list only. */
  mayWrite?: boolean;
  list(): Promise<readonly Member[]>;
  add(userId: string, roles: string[]): Promise<unknown>;
  update(userId: string, roles: string[]): Promise<unknown>;
  remove(userId: string): Promise<unknown>;
}

/** One checkbox per role, in a fieldset named `legend`. */
export function roleChecks(legend: string, roles: readonly string[], held: readonly string[], field = 'roles', labelOf: (role: string) => string = roleLabel): { element: HTMLFieldSetElement; chosen(): string[] } {
  const boxes = roles.map((role) => {
    const id = uid('role');
    const box = h('input', { type: 'checkbox', id, value: role, checked: held.includes(role) });
    return { box, node: h('span', { class: 'check' }, box, h('label', { for: id }, labelOf(role))) };
  });
  const element = h('fieldset', { class: 'checks', 'data-field': field }, h('legend', { class: 'visually-hidden' }, legend), boxes.map((b) => b.node));
  return { element, chosen: () => boxes.filter((b) => b.box.checked).map((b) => b.box.value) };
}

export function memberName(m: Member): string {
  return m.preferredLoginName || m.displayName || m.userId;
}

/**
 * A user id for a username of the organization the console acts in (ListUsers, exact name, that
 * organization only: an instance administrator sees every org's users, and names repeat across orgs).
 */
export async function userIdFor(username: string): Promise<string | undefined> {
  const orgId = orgContext.current?.id ?? (await management.getMyOrganization({})).id;
  const res = await users.listUsers({
    query: { limit: 1 },
    queries: [
      { query: { case: 'userNameQuery', value: { userName: username, method: TextQueryMethod.EQUALS } } },
      { query: { case: 'organizationIdQuery', value: { organizationId: orgId } } },
    ],
  });
  return res.result[0]?.userId;
}

export async function membersSection(calls: MemberCalls): Promise<HTMLElement> {
  const titleId = uid('members-title');
  const heading = h('h2', { id: titleId, tabindex: '-1' }, L.members);
  const body = h('div');
  const status = h('div', { class: 'alert-box', role: 'alert' });
  const fail = (e: unknown) => status.replaceChildren(h('p', { class: 'error' }, describeError(e).message));

  const show = async () => {
    let members: readonly Member[];
    try {
      members = await calls.list();
    } catch (e) {
      body.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
      return;
    }
    heading.textContent = L.membersCount(members.length);
    if (!members.length) {
      body.replaceChildren(h('p', { class: 'empty' }, L.noMembers));
      return;
    }
    body.replaceChildren(
      h(
        'table',
        { class: 'list' },
        h('caption', { class: 'visually-hidden' }, L.members),
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, L.user), h('th', { scope: 'col' }, L.roles), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, L.actions)))),
        h(
          'tbody',
          null,
          members.map((m) => {
            const who = memberName(m);
            if (calls.mayWrite === false) {
              return h(
                'tr',
                { 'data-member': who },
                h('th', { scope: 'row' }, h('a', { href: href('users', m.userId), title: m.userId }, who)),
                h('td', null, m.roles.map(roleLabel).join(', ')),
                h('td', null),
              );
            }
            const checks = roleChecks(L.rolesOf(who), [...new Set([...calls.roles, ...m.roles])], m.roles);
            const save: HTMLButtonElement = h('button', {
              type: 'button',
              class: 'secondary small',
              'aria-label': L.saveRolesOf(who),
              onclick: () =>
                busy(save, L.saving, async () => {
                  status.replaceChildren();
                  try {
                    await calls.update(m.userId, checks.chosen());
                    announce(L.memberRolesSaved(who));
                    await show();
                  } catch (e) {
                    fail(e);
                  }
                }),
            }, L.saveRoles);
            const remove: HTMLButtonElement = h('button', {
              type: 'button',
              class: 'danger small',
              'aria-label': L.removeMember(who),
              onclick: async () => {
                if (!window.confirm(L.confirmRemoveMember(who))) return;
                await busy(remove, L.removing, async () => {
                  status.replaceChildren();
                  try {
                    await calls.remove(m.userId);
                    announce(L.memberRemoved(who));
                    await show();
                    heading.focus();
                  } catch (e) {
                    fail(e);
                  }
                });
              },
            }, L.remove);
            return h(
              'tr',
              { 'data-member': who },
              h('th', { scope: 'row' }, h('a', { href: href('users', m.userId), title: m.userId }, who), m.displayName && m.displayName !== who ? h('span', { class: 'muted' }, ` (${m.displayName})`) : null),
              h('td', null, checks.element),
              h('td', null, h('div', { class: 'actions' }, save, remove)),
            );
          }),
        ),
      ),
    );
  };
  await show();

  const username = textField({ label: L.username, name: 'username', field: 'userId', required: true, hint: L.usernameHint });
  const checks = roleChecks(L.roles, calls.roles, calls.roles.slice(0, 1));
  const addButton = h('button', { type: 'submit' }, L.addMember);
  const form = h('form', { method: 'post', novalidate: true, class: 'card' }, h('h3', null, L.addMember), username.wrapper, h('div', { class: 'field' }, h('span', { class: 'label' }, L.roles), checks.element), h('div', { class: 'actions' }, addButton));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(addButton, L.adding, async () => {
      const name = username.input.value.trim();
      try {
        const userId = name ? await userIdFor(name) : '';
        if (userId === undefined) {
          showProblems(form, { code: 5, message: L.noSuchUser(name), violations: [{ field: 'userId', description: L.noSuchUser(name) }] });
          return;
        }
        await calls.add(userId, checks.chosen());
        clearProblems(form);
        announce(L.memberAdded(name));
        username.input.value = '';
        await show();
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });

  return h('section', { 'aria-labelledby': titleId, 'data-testid': calls.id }, heading, h('p', null, calls.intro), body, status, calls.mayWrite === false ? null : form);
}
