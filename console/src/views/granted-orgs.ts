// A project's "Granted organizations": the project grants (ListProjectGrants),
// added (AddProjectGrant: an org id and role keys), their roles changed
// (UpdateProjectGrant), deactivated and reactivated, removed (RemoveProjectGrant).
import { ProjectGrantState, type GrantedProject } from '../../../gen/keyhold/management/v1/project_grants_pb.js';
import { describeError, management } from '../api.js';
import { announce, h, textField } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { L } from '../i18n.js';

/** Role keys as typed: separated by commas (or spaces), each once. */
const keysOf = (text: string): string[] => [...new Set(text.split(/[\s,]+/).filter(Boolean))];

/** `mayWrite`: the caller holds project.grant.write here; without it the section only lists. */
export async function grantedOrgsSection(projectId: string, mayWrite: boolean): Promise<HTMLElement> {
  const heading = h('h2', { id: 'granted-orgs-title', tabindex: '-1' }, L.grantedOrgs);
  const body = h('div');
  const status = h('div', { class: 'alert-box', role: 'alert' });
  const act = (button: HTMLButtonElement, busyLabel: string, run: () => Promise<unknown>, done: string) =>
    busy(button, busyLabel, async () => {
      status.replaceChildren();
      try {
        await run();
        announce(done);
        await show();
      } catch (e) {
        status.replaceChildren(h('p', { class: 'error' }, describeError(e).message));
      }
    });

  const row = (g: GrantedProject) => {
    const org = g.grantedOrgName || g.grantedOrgId;
    const ref = { projectId, grantId: g.grantId };
    const roles = h('input', { type: 'text', class: 'mono', value: g.grantedRoleKeys.join(', '), 'aria-label': L.grantedRolesOf(org), 'data-field': 'roleKeys', readonly: !mayWrite });
    const inactive = g.state === ProjectGrantState.INACTIVE;
    const save: HTMLButtonElement = h('button', {
      type: 'button',
      class: 'secondary small',
      'aria-label': L.saveGrantedRoles(org),
      onclick: () => act(save, L.saving, () => management.updateProjectGrant({ ...ref, roleKeys: keysOf(roles.value) }), L.grantedRolesSaved(org)),
    }, L.save);
    const toggle: HTMLButtonElement = h('button', {
      type: 'button',
      class: 'secondary small',
      'aria-label': inactive ? L.reactivateGrantOf(org) : L.deactivateGrantOf(org),
      onclick: () =>
        act(
          toggle,
          inactive ? L.reactivating : L.deactivating,
          () => (inactive ? management.reactivateProjectGrant(ref) : management.deactivateProjectGrant(ref)),
          inactive ? L.orgGrantReactivated(org) : L.orgGrantDeactivated(org),
        ),
    }, inactive ? L.reactivate : L.deactivate);
    const remove: HTMLButtonElement = h('button', {
      type: 'button',
      class: 'danger small',
      'aria-label': L.removeGrantOf(org),
      onclick: async () => {
        if (!window.confirm(L.confirmRemoveProjectGrant(org))) return;
        await act(remove, L.removing, () => management.removeProjectGrant(ref), L.orgGrantRemoved(org));
        heading.focus();
      },
    }, L.remove);
    return h(
      'tr',
      { 'data-granted-org': g.grantedOrgId, 'data-grant-id': g.grantId },
      h('th', { scope: 'row' }, h('span', { title: g.grantedOrgId }, org)),
      h('td', null, roles),
      h('td', { 'data-testid': 'granted-org-state' }, inactive ? L.projectGrantInactive : L.grantActive),
      mayWrite ? h('td', null, h('div', { class: 'actions' }, save, toggle, remove)) : null,
    );
  };

  const show = async () => {
    let grants: readonly GrantedProject[];
    try {
      grants = (await management.listProjectGrants({ projectId, query: { limit: 1000, asc: true } })).result;
    } catch (e) {
      body.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
      return;
    }
    heading.textContent = L.grantedOrgsCount(grants.length);
    body.replaceChildren(
      grants.length
        ? h(
            'table',
            { class: 'list', 'data-testid': 'granted-orgs-list' },
            h('caption', { class: 'visually-hidden' }, L.grantedOrgs),
            h('thead', null, h('tr', null, [L.grantedOrg, L.grantedRoles, L.state].map((c) => h('th', { scope: 'col' }, c)), mayWrite ? h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, L.actions)) : null)),
            h('tbody', null, grants.map(row)),
          )
        : h('p', { class: 'empty' }, L.noGrantedOrgs),
    );
  };
  await show();

  const orgId = textField({ label: L.grantedOrgId, name: 'grantedOrgId', required: true, attrs: { class: 'mono' } });
  const roleKeys = textField({ label: L.grantedRoles, name: 'roleKeys', required: true, hint: L.grantedRolesHint, attrs: { class: 'mono' } });
  const add = h('button', { type: 'submit' }, L.grantToOrg);
  const form = h('form', { method: 'post', novalidate: true, class: 'card' }, h('h3', null, L.grantToOrg), orgId.wrapper, roleKeys.wrapper, h('div', { class: 'actions' }, add));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(add, L.adding, async () => {
      try {
        await management.addProjectGrant({ projectId, grantedOrgId: orgId.input.value.trim(), roleKeys: keysOf(roleKeys.input.value) });
        clearProblems(form);
        announce(L.projectGranted(orgId.input.value.trim()));
        orgId.input.value = roleKeys.input.value = '';
        await show();
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });
  return h('section', { 'aria-labelledby': 'granted-orgs-title', 'data-testid': 'granted-orgs' }, heading, h('p', null, L.grantedOrgsIntro), body, status, mayWrite ? form : null);
}
