// A user's page: its roles per project (user grants: Add/List/Update/
// Deactivate/Reactivate/RemoveUserGrant), its memberships in the organization
// the console acts in and that organization's projects, its last login (from
// the audit log: no other call tells it), and its metadata (Set/List/RemoveUserMetadata).
import type { Project } from '../../../gen/keyhold/management/v1/management_pb.js';
import { UserGrantState, type UserGrant } from '../../../gen/keyhold/management/v1/user_grants_pb.js';
import type { Metadata } from '../../../gen/keyhold/management/v1/user_metadata_pb.js';
import { admin, describeError, management } from '../api.js';
import { announce, h, textField, uid } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { L, roleLabel } from '../i18n.js';
import { href, tsText } from '../view.js';
import { roleChecks } from './members.js';

const fail = (box: HTMLElement, e: unknown) => box.replaceChildren(h('p', { class: 'error' }, describeError(e).message));

async function rolesOf(projectId: string): Promise<string[]> {
  return (await management.listProjectRoles({ projectId, query: { limit: 1000, asc: true } })).result.map((r) => r.key);
}

async function projectsOfOrg(): Promise<readonly Project[]> {
  return (await management.listProjects({ query: { limit: 1000, asc: true } })).result;
}

export async function grantsSection(userId: string, mayWrite = true): Promise<HTMLElement> {
  const heading = h('h2', { id: 'user-roles-title', tabindex: '-1' }, L.userRoles);
  const body = h('div');
  const status = h('div', { class: 'alert-box', role: 'alert' });
  const projects = await projectsOfOrg().catch(() => [] as readonly Project[]);
  const projectName = new Map(projects.map((p) => [p.id, p.name]));

  const show = async () => {
    let grants: readonly UserGrant[];
    try {
      grants = (await management.listUserGrants({ query: { limit: 1000, asc: true }, queries: [{ query: { case: 'userIdQuery', value: { userId } } }] })).result;
    } catch (e) {
      body.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
      return;
    }
    if (!grants.length) {
      body.replaceChildren(h('p', { class: 'empty' }, L.noUserGrants));
      return;
    }
    const roles = await Promise.all(grants.map((g) => rolesOf(g.projectId).catch(() => [...g.roleKeys])));
    const names = await Promise.all(grants.map(async (g) => projectName.get(g.projectId) ?? (await management.getProjectByID({ id: g.projectId }).then((r) => r.project?.name, () => undefined)) ?? g.projectId));
    body.replaceChildren(
      h(
        'table',
        { class: 'list', 'data-testid': 'user-grants' },
        h('caption', { class: 'visually-hidden' }, L.userRoles),
        h('thead', null, h('tr', null, [L.project, L.roles, L.state].map((c) => h('th', { scope: 'col' }, c)), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, L.actions)))),
        h(
          'tbody',
          null,
          grants.map((g, i) => {
            const project = names[i]!;
            const inactive = g.state === UserGrantState.INACTIVE;
            if (!mayWrite) {
              return h(
                'tr',
                { 'data-grant-id': g.id, 'data-project': project },
                h('th', { scope: 'row' }, h('a', { href: href('projects', g.projectId), title: g.projectId }, project)),
                h('td', { class: 'mono' }, g.roleKeys.join(', ') || '\u2014'),
                h('td', { 'data-testid': 'grant-state' }, inactive ? L.grantInactive : L.grantActive),
                h('td', null),
              );
            }
            const checks = roleChecks(L.rolesOn(project), [...new Set([...roles[i]!, ...g.roleKeys])], g.roleKeys, 'roleKeys', (k) => k);
            const run = (button: HTMLButtonElement, busyLabel: string, call: () => Promise<unknown>, done: string) =>
              busy(button, busyLabel, async () => {
                status.replaceChildren();
                try {
                  await call();
                  announce(done);
                  await show();
                  heading.focus();
                } catch (e) {
                  fail(status, e);
                }
              });
            const save: HTMLButtonElement = h('button', { type: 'button', class: 'secondary small', 'aria-label': L.saveRolesOn(project), onclick: () => run(save, L.saving, () => management.updateUserGrant({ userId, grantId: g.id, roleKeys: checks.chosen() }), L.grantSaved(project)) }, L.saveRoles);
            const toggle: HTMLButtonElement = h('button', {
              type: 'button',
              class: 'secondary small',
              'aria-label': inactive ? L.reactivateGrantOn(project) : L.deactivateGrantOn(project),
              onclick: () => {
                if (!inactive && !window.confirm(L.confirmDeactivateGrant(project))) return;
                return run(
                  toggle,
                  inactive ? L.reactivating : L.deactivating,
                  () => (inactive ? management.reactivateUserGrant({ userId, grantId: g.id }) : management.deactivateUserGrant({ userId, grantId: g.id })),
                  inactive ? L.grantReactivated(project) : L.grantDeactivated(project),
                );
              },
            }, inactive ? L.reactivate : L.deactivate);
            const remove: HTMLButtonElement = h('button', {
              type: 'button',
              class: 'danger small',
              'aria-label': L.removeGrantOn(project),
              onclick: () => {
                if (!window.confirm(L.confirmRemoveGrant(project))) return;
                return run(remove, L.removing, () => management.removeUserGrant({ userId, grantId: g.id }), L.grantRemoved(project));
              },
            }, L.remove);
            return h(
              'tr',
              { 'data-grant-id': g.id, 'data-project': project },
              h('th', { scope: 'row' }, h('a', { href: href('projects', g.projectId), title: g.projectId }, project)),
              h('td', null, checks.element),
              h('td', { 'data-testid': 'grant-state' }, inactive ? L.grantInactive : L.grantActive),
              h('td', null, h('div', { class: 'actions' }, save, toggle, remove)),
            );
          }),
        ),
      ),
    );
  };
  await show();

  // Grant: a project of the org, then its roles.
  const selectId = uid('grant-project');
  const select = h('select', { id: selectId, name: 'projectId', 'data-field': 'projectId' }, h('option', { value: '' }, L.chooseProject), projects.map((p) => h('option', { value: p.id }, p.name)));
  const rolesBox = h('div', { 'data-field': 'roleKeys' });
  let chosen: () => string[] = () => [];
  select.addEventListener('change', async () => {
    rolesBox.replaceChildren();
    chosen = () => [];
    if (!select.value) return;
    try {
      const keys = await rolesOf(select.value);
      if (!keys.length) {
        rolesBox.replaceChildren(h('p', { class: 'hint' }, L.projectHasNoRoles));
        return;
      }
      const checks = roleChecks(L.roles, keys, [], 'roleKeys', (k) => k);
      chosen = checks.chosen;
      rolesBox.replaceChildren(h('span', { class: 'label' }, L.roles), checks.element);
    } catch (e) {
      fail(rolesBox, e);
    }
  });
  const add = h('button', { type: 'submit' }, L.grantRoles);
  const form = h(
    'form',
    { method: 'post', novalidate: true, class: 'card', 'data-testid': 'grant-form' },
    h('h3', null, L.grantRoles),
    h('div', { class: 'field' }, h('label', { for: selectId }, L.grantProject), select),
    rolesBox,
    h('div', { class: 'actions' }, add),
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(add, L.adding, async () => {
      try {
        await management.addUserGrant({ userId, projectId: select.value, roleKeys: chosen() });
        clearProblems(form);
        announce(L.granted(projectName.get(select.value) ?? select.value));
        select.value = '';
        rolesBox.replaceChildren();
        await show();
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });
  return h('section', { 'aria-labelledby': 'user-roles-title', 'data-testid': 'user-roles' }, heading, h('p', null, L.userRolesIntro), body, status, mayWrite ? form : null);
}

/** Where the user is a member: the acting org, and each of its projects (no call lists a user's memberships at once). */
export async function membershipsSection(userId: string, orgName: string): Promise<HTMLElement> {
  const byUser = [{ query: { case: 'userIdQuery' as const, value: { userId } } }];
  const rows: HTMLElement[] = [];
  const problems: string[] = [];
  const [org, projects] = await Promise.all([
    management.listOrgMembers({ query: { limit: 1 }, queries: byUser }).then(
      (r) => r.result[0]?.roles ?? [],
      (e) => {
        problems.push(describeError(e).message);
        return [];
      },
    ),
    projectsOfOrg().catch((e) => {
      problems.push(describeError(e).message);
      return [] as readonly Project[];
    }),
  ]);
  if (org.length) rows.push(h('tr', { 'data-membership': 'org' }, h('th', { scope: 'row' }, L.organization, ' ', orgName), h('td', null, org.map(roleLabel).join(', '))));
  // One call per project: bounded, so a large organization does not fan out without end.
  const asked = projects.slice(0, 100);
  const inProjects = await Promise.all(
    asked.map((p) =>
      management.listProjectMembers({ projectId: p.id, query: { limit: 1 }, queries: byUser }).then(
        (r) => r.result[0]?.roles ?? [],
        () => [],
      ),
    ),
  );
  asked.forEach((p, i) => {
    const roles = inProjects[i]!;
    if (roles.length) rows.push(h('tr', { 'data-membership': p.id }, h('th', { scope: 'row' }, L.project, ' ', h('a', { href: href('projects', p.id), title: p.id }, p.name)), h('td', null, roles.map(roleLabel).join(', '))));
  });
  return h(
    'section',
    { 'aria-labelledby': 'memberships-title', 'data-testid': 'memberships' },
    h('h2', { id: 'memberships-title' }, L.memberships),
    h('p', null, L.membershipsIntro(orgName)),
    rows.length
      ? h('table', { class: 'list' }, h('caption', { class: 'visually-hidden' }, L.memberships), h('thead', null, h('tr', null, h('th', { scope: 'col' }, L.name), h('th', { scope: 'col' }, L.roles))), h('tbody', null, rows))
      : h('p', { class: 'empty' }, L.noMemberships),
    problems.length ? h('p', { class: 'hint' }, L.membershipsPartial(problems[0]!)) : null,
  );
}

/** The newest user.login.succeeded of the user in the audit log, when the caller may read it. */
export async function lastLogin(userId: string): Promise<HTMLElement[]> {
  let value: HTMLElement;
  try {
    const res = await admin.listEvents({ aggregateTypes: ['user'], aggregateId: userId, eventTypes: ['user.login.succeeded'], limit: 1, asc: false });
    const last = res.events[0];
    value = h('dd', { 'data-testid': 'last-login', title: L.lastLoginFrom }, last ? tsText(last.creationDate) : L.lastLoginNever);
  } catch (e) {
    value = h('dd', { 'data-testid': 'last-login', class: 'muted' }, L.lastLoginUnavailable(describeError(e).message));
  }
  return [h('dt', null, L.lastLogin), value];
}

export async function metadataSection(userId: string, mayWrite = true): Promise<HTMLElement> {
  const body = h('div');
  const status = h('div', { class: 'alert-box', role: 'alert' });
  const text = new TextDecoder();
  const show = async () => {
    let items: readonly Metadata[];
    try {
      items = (await management.listUserMetadata({ id: userId, query: { limit: 1000, asc: true } })).result;
    } catch (e) {
      body.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
      return;
    }
    body.replaceChildren(
      items.length
        ? h(
            'table',
            { class: 'list', 'data-testid': 'metadata-list' },
            h('caption', { class: 'visually-hidden' }, L.metadata),
            h('thead', null, h('tr', null, h('th', { scope: 'col' }, L.metadataKey), h('th', { scope: 'col' }, L.metadataValue), h('th', { scope: 'col' }, L.changed), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, L.actions)))),
            h(
              'tbody',
              null,
              items.map((m) => {
                const remove: HTMLButtonElement = h('button', {
                  type: 'button',
                  class: 'danger small',
                  'aria-label': L.removeMetadata(m.key),
                  onclick: async () => {
                    if (!window.confirm(L.confirmRemoveMetadata(m.key))) return;
                    await busy(remove, L.removing, async () => {
                      status.replaceChildren();
                      try {
                        await management.removeUserMetadata({ id: userId, key: m.key });
                        announce(L.metadataRemoved(m.key));
                        await show();
                      } catch (e) {
                        fail(status, e);
                      }
                    });
                  },
                }, L.remove);
                return h('tr', { 'data-key': m.key }, h('th', { scope: 'row', class: 'mono' }, m.key), h('td', { class: 'mono' }, text.decode(m.value)), h('td', null, tsText(m.details?.changeDate)), h('td', null, mayWrite ? remove : null));
              }),
            ),
          )
        : h('p', { class: 'empty' }, L.noMetadata),
    );
  };
  await show();
  const key = textField({ label: L.metadataKey, name: 'key', required: true, attrs: { class: 'mono' } });
  const value = textField({ label: L.metadataValue, name: 'value', attrs: { class: 'mono' } });
  const set = h('button', { type: 'submit' }, L.setMetadata);
  const form = h('form', { method: 'post', novalidate: true, class: 'card' }, h('h3', null, L.setMetadata), key.wrapper, value.wrapper, h('div', { class: 'actions' }, set));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(set, L.saving, async () => {
      try {
        await management.setUserMetadata({ id: userId, key: key.input.value, value: new TextEncoder().encode(value.input.value) });
        clearProblems(form);
        announce(L.metadataSet(key.input.value.trim()));
        key.input.value = value.input.value = '';
        await show();
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });
  return h('section', { 'aria-labelledby': 'metadata-title', 'data-testid': 'metadata' }, h('h2', { id: 'metadata-title' }, L.metadata), h('p', null, L.metadataIntro), body, status, mayWrite ? form : null);
}
