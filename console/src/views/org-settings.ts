// The organization page's settings and state: its name (UpdateOrg) and
// Deactivate/ReactivateOrg, the org of the call (the chosen one, else the
// caller's own). Removing an org stays an API call: one button would take every
// user, project and grant under it, and nothing on this page can show all that.
import { OrgState } from '../../../gen/keyhold/management/v1/orgs_lifecycle_pb.js';
import { describeError, management, orgContext } from '../api.js';
import { announce, h, textField } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { L } from '../i18n.js';

export interface OrgFacts {
  id: string;
  name: string;
  state: OrgState;
}

/** After a rename the header's "acting in" names the org anew. */
function renamedInHeader(id: string, name: string): void {
  if (orgContext.current?.id === id) orgContext.set({ id, name });
}

export function orgSettingsSection(org: OrgFacts, mayWrite: boolean, changed: () => void): HTMLElement {
  const name = textField({ label: L.orgName, name: 'name', value: org.name, required: true, hint: L.oneTo200 });
  const save = h('button', { type: 'submit' }, L.saveName);
  const form = h('form', { method: 'post', novalidate: true, class: 'card', 'aria-labelledby': 'org-settings-title', 'data-testid': 'org-settings' }, h('h2', { id: 'org-settings-title' }, L.orgSettings), name.wrapper, mayWrite ? h('div', { class: 'actions' }, save) : null);
  name.input.readOnly = !mayWrite;
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(save, L.saving, async () => {
      try {
        await management.updateOrg({ name: name.input.value });
        clearProblems(form);
        announce(L.orgRenamed);
        renamedInHeader(org.id, name.input.value.trim());
        changed();
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });

  const inactive = org.state === OrgState.INACTIVE;
  const status = h('div', { class: 'alert-box', role: 'alert' });
  const toggle: HTMLButtonElement = h('button', {
    type: 'button',
    class: inactive ? 'secondary' : 'danger',
    onclick: async () => {
      if (!inactive && !window.confirm(L.confirmDeactivateOrg(org.name))) return;
      await busy(toggle, inactive ? L.reactivating : L.deactivating, async () => {
        status.replaceChildren();
        try {
          await (inactive ? management.reactivateOrg({}) : management.deactivateOrg({}));
          announce(inactive ? L.orgReactivated(org.name) : L.orgDeactivated(org.name));
          changed();
        } catch (e) {
          status.replaceChildren(h('p', { class: 'error' }, describeError(e).message));
        }
      });
    },
  }, inactive ? L.reactivateOrg : L.deactivateOrg);
  const state = h(
    'section',
    { 'aria-labelledby': 'org-state-title', 'data-testid': 'org-state' },
    h('h2', { id: 'org-state-title' }, L.state),
    h('p', null, L.orgStateIs, h('strong', { 'data-testid': 'org-state-value' }, inactive ? L.deactivated : L.active), inactive ? L.orgInactiveNote : '.'),
    mayWrite ? h('div', { class: 'actions' }, toggle) : null,
    status,
  );
  return h('div', null, form, state);
}
