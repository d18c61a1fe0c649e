// A project's page below its applications: settings and lifecycle
// (UpdateProject with the two login checks, Deactivate/Reactivate/RemoveProject),
// its roles (Add/List/Update/RemoveProjectRole), members (./members.ts) and
// the user grants on it (ListUserGrants; changed on the user's page).
import { ProjectState, type Project } from '../../../gen/keyhold/management/v1/management_pb.js';
import type { Role } from '../../../gen/keyhold/management/v1/projects_lifecycle_pb.js';
import { UserGrantState, type UserGrant } from '../../../gen/keyhold/management/v1/user_grants_pb.js';
import { describeError, management } from '../api.js';
import { announce, h, textField, uid } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { L } from '../i18n.js';
import { names } from '../names.js';
import { href } from '../view.js';
import { membersSection } from './members.js';

/** A labelled checkbox with a hint, in the house's `.check` layout. */
export function checkField(label: string, name: string, checked: boolean, hint: string): { wrapper: HTMLElement; input: HTMLInputElement } {
  const id = uid(`f-${name}`);
  const input = h('input', { type: 'checkbox', id, name, checked, 'data-field': name, 'aria-describedby': `${id}-hint` });
  return { wrapper: h('div', { class: 'check' }, input, h('label', { for: id }, label), h('p', { class: 'hint', id: `${id}-hint` }, hint)), input };
}

export interface ProjectCounts {
  apps: number;
  roles: number;
  grants: number;
}

export function settingsSection(project: Project, counts: () => ProjectCounts, changed: () => void, mayWrite = true): HTMLElement {
  const name = textField({ label: L.projectName, name: 'name', value: project.name, required: true, hint: L.oneTo200 });
  const roleCheck = checkField(L.roleCheck, 'projectRoleCheck', project.projectRoleCheck, L.roleCheckHint);
  const projectCheck = checkField(L.projectCheck, 'hasProjectCheck', project.hasProjectCheck, L.projectCheckHint);
  const save = h('button', { type: 'submit' }, L.saveSettings);
  const form = h('form', { method: 'post', novalidate: true, class: 'card', 'aria-labelledby': 'settings-title', 'data-testid': 'project-settings' }, h('h2', { id: 'settings-title' }, L.projectSettings), name.wrapper, roleCheck.wrapper, projectCheck.wrapper, mayWrite ? h('div', { class: 'actions' }, save) : null);
  // Read-only for a caller without project.write: the settings shown, nothing to press.
  if (!mayWrite) form.querySelectorAll('input').forEach((i) => (i.disabled = true));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(save, L.saving, async () => {
      try {
        await management.updateProject({ id: project.id, name: name.input.value, projectRoleCheck: roleCheck.input.checked, hasProjectCheck: projectCheck.input.checked });
        clearProblems(form);
        announce(L.settingsSaved);
        changed();
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });

  const inactive = project.state === ProjectState.INACTIVE;
  const status = h('div', { class: 'alert-box', role: 'alert' });
  const act = (button: HTMLButtonElement, busyLabel: string, run: () => Promise<unknown>, done: string, after: () => void) =>
    busy(button, busyLabel, async () => {
      status.replaceChildren();
      try {
        await run();
        announce(done);
        after();
      } catch (e) {
        status.replaceChildren(h('p', { class: 'error' }, describeError(e).message));
      }
    });
  const toggle: HTMLButtonElement = h('button', {
    type: 'button',
    class: 'secondary',
    onclick: async () => {
      if (!inactive && !window.confirm(L.confirmDeactivateProject(project.name, counts().apps))) return;
      await act(
        toggle,
        inactive ? L.reactivating : L.deactivating,
        () => (inactive ? management.reactivateProject({ id: project.id }) : management.deactivateProject({ id: project.id })),
        inactive ? L.projectReactivated(project.name) : L.projectDeactivated(project.name),
        changed,
      );
    },
  }, inactive ? L.reactivateProject : L.deactivateProject);
  const remove: HTMLButtonElement = h('button', {
    type: 'button',
    class: 'danger',
    onclick: async () => {
      const c = counts();
      if (!window.confirm(L.confirmRemoveProject(project.name, c.apps, c.roles, c.grants))) return;
      await act(remove, L.removing, () => management.removeProject({ id: project.id }), L.projectRemoved(project.name), () => {
        window.location.hash = '#/projects';
      });
    },
  }, L.removeProject);
  const lifecycle = h(
    'section',
    { 'aria-labelledby': 'project-state-title', 'data-testid': 'project-state' },
    h('h2', { id: 'project-state-title' }, L.state),
    h('p', null, L.projectStateIs, h('strong', { 'data-testid': 'project-state-value' }, inactive ? L.deactivated : L.active), inactive ? L.projectInactiveNote : '.'),
    mayWrite ? h('div', { class: 'actions', role: 'group', 'aria-label': L.actions }, toggle, remove) : null,
    status,
  );
  return h('div', null, form, lifecycle);
}

export async function rolesSection(projectId: string, grantsHolding: (key: string) => number, counted: (n: number) => void, rolesChanged: () => Promise<void>, mayWrite = true): Promise<HTMLElement> {
  const heading = h('h2', { id: 'roles-title', tabindex: '-1' }, L.roles);
  const body = h('div');
  const status = h('div', { class: 'alert-box', role: 'alert' });
  const show = async () => {
    let roles: readonly Role[];
    try {
      roles = (await management.listProjectRoles({ projectId, query: { limit: 1000, asc: true } })).result;
    } catch (e) {
      body.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
      return;
    }
    counted(roles.length);
    heading.textContent = L.rolesCount(roles.length);
    body.replaceChildren(roles.length ? rolesTable(roles) : h('p', { class: 'empty' }, L.noRoles));
  };
  const rolesTable = (roles: readonly Role[]) =>
    h(
      'table',
      { class: 'list', 'data-testid': 'roles' },
      h('caption', { class: 'visually-hidden' }, L.roles),
      h('thead', null, h('tr', null, [L.roleKey, L.displayName, L.group].map((c) => h('th', { scope: 'col' }, c)), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, L.actions)))),
      h(
        'tbody',
        null,
        roles.map((r) => {
          if (!mayWrite) return h('tr', { 'data-role': r.key }, h('th', { scope: 'row', class: 'mono' }, r.key), h('td', null, r.displayName), h('td', null, r.group), h('td', null));
          const display = h('input', { type: 'text', value: r.displayName, 'aria-label': L.displayNameOf(r.key), 'data-field': 'displayName' });
          const group = h('input', { type: 'text', value: r.group, 'aria-label': L.groupOf(r.key), 'data-field': 'group' });
          const save: HTMLButtonElement = h('button', {
            type: 'button',
            class: 'secondary small',
            'aria-label': L.saveRole(r.key),
            onclick: () =>
              busy(save, L.saving, async () => {
                status.replaceChildren();
                try {
                  await management.updateProjectRole({ projectId, roleKey: r.key, displayName: display.value, group: group.value });
                  announce(L.roleSaved(r.key));
                  await show();
                } catch (e) {
                  status.replaceChildren(h('p', { class: 'error' }, describeError(e).message));
                }
              }),
          }, L.save);
          const remove: HTMLButtonElement = h('button', {
            type: 'button',
            class: 'danger small',
            'aria-label': L.removeRole(r.key),
            onclick: async () => {
              if (!window.confirm(L.confirmRemoveRole(r.key, grantsHolding(r.key)))) return;
              await busy(remove, L.removing, async () => {
                status.replaceChildren();
                try {
                  await management.removeProjectRole({ projectId, roleKey: r.key });
                  announce(L.roleRemoved(r.key));
                  await show();
                  await rolesChanged();
                  heading.focus();
                } catch (e) {
                  status.replaceChildren(h('p', { class: 'error' }, describeError(e).message));
                }
              });
            },
          }, L.remove);
          return h('tr', { 'data-role': r.key }, h('th', { scope: 'row', class: 'mono' }, r.key), h('td', null, display), h('td', null, group), h('td', null, h('div', { class: 'actions' }, save, remove)));
        }),
      ),
    );
  await show();

  const key = textField({ label: L.roleKey, name: 'roleKey', required: true, hint: L.roleKeyHint, attrs: { class: 'mono' } });
  const display = textField({ label: L.displayName, name: 'displayName' });
  const group = textField({ label: L.group, name: 'group' });
  const add = h('button', { type: 'submit' }, L.addRole);
  const form = h('form', { method: 'post', novalidate: true, class: 'card' }, h('h3', null, L.addRole), key.wrapper, display.wrapper, group.wrapper, h('div', { class: 'actions' }, add));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(add, L.adding, async () => {
      try {
        await management.addProjectRole({ projectId, roleKey: key.input.value, displayName: display.input.value, group: group.input.value });
        clearProblems(form);
        announce(L.roleAdded(key.input.value.trim()));
        key.input.value = display.input.value = group.input.value = '';
        await show();
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });
  return h('section', { 'aria-labelledby': 'roles-title', 'data-testid': 'project-roles' }, heading, h('p', null, L.rolesIntro), body, status, mayWrite ? form : null);
}

export function projectMembers(projectId: string, mayWrite = true): Promise<HTMLElement> {
  return membersSection({
    mayWrite,
    id: 'project-members',
    intro: L.projectMembersIntro,
    roles: ['PROJECT_OWNER'],
    list: async () => (await management.listProjectMembers({ projectId, query: { limit: 1000, asc: true } })).result,
    add: (userId, roles) => management.addProjectMember({ projectId, userId, roles }),
    update: (userId, roles) => management.updateProjectMember({ projectId, userId, roles }),
    remove: (userId) => management.removeProjectMember({ projectId, userId }),
  });
}

/** The user grants on the project, read-only here; `loaded` gets them (for the counts the confirmations name). */
export async function projectGrants(projectId: string, loaded: (grants: readonly UserGrant[]) => void): Promise<{ element: HTMLElement; reload(): Promise<void> }> {
  const heading = h('h2', { id: 'grants-title', tabindex: '-1' }, L.userGrants);
  const body = h('div');
  const resolve = names();
  const show = async () => {
    let grants: readonly UserGrant[];
    try {
      grants = (await management.listUserGrants({ query: { limit: 1000, asc: true }, queries: [{ query: { case: 'projectIdQuery', value: { projectId } } }] })).result;
    } catch (e) {
      loaded([]);
      body.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
      return;
    }
    loaded(grants);
    heading.textContent = L.userGrantsCount(grants.length);
    if (!grants.length) {
      body.replaceChildren(h('p', { class: 'empty' }, L.noGrants));
      return;
    }
    const userNames = await Promise.all(grants.map((g) => resolve.user(g.userId)));
    body.replaceChildren(
      h(
        'table',
        { class: 'list', 'data-testid': 'project-grants-list' },
        h('caption', { class: 'visually-hidden' }, L.userGrants),
        h('thead', null, h('tr', null, [L.user, L.roles, L.state].map((c) => h('th', { scope: 'col' }, c)))),
        h(
          'tbody',
          null,
          grants.map((g, i) =>
            h(
              'tr',
              { 'data-grant-id': g.id },
              h('th', { scope: 'row' }, h('a', { href: href('users', g.userId), title: g.userId }, userNames[i] ?? g.userId)),
              h('td', { class: 'mono' }, g.roleKeys.join(', ') || '\u2014'),
              h('td', null, g.state === UserGrantState.INACTIVE ? L.grantInactive : L.grantActive),
            ),
          ),
        ),
      ),
    );
  };
  await show();
  return { element: h('section', { 'aria-labelledby': 'grants-title', 'data-testid': 'project-grants' }, heading, h('p', null, L.projectGrantsIntro), body), reload: show };
}
