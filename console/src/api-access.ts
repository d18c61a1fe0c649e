// An app's "Keyhold API access" switch (SetAppAPIAccess), on the project's app
// list and the app's edit page: whether the app may ask its users to let it act
// as them on Keyhold's management API. Only an instance administrator may turn
// it; everyone else sees it disabled, with the reason.
import type { App } from '../../gen/keyhold/management/v1/app_pb.js';
import { describeError, management } from './api.js';
import { announce, h, uid } from './dom.js';
import { L } from './i18n.js';

export function apiAccessSwitch(projectId: string, app: App, instanceOwner: boolean): HTMLElement {
  const id = uid('api-access');
  const hintId = `${id}-hint`;
  const status = h('p', { class: 'field-error', role: 'alert', hidden: true });
  const input: HTMLInputElement = h('input', {
    type: 'checkbox',
    role: 'switch',
    id,
    checked: app.apiAccessAllowed,
    disabled: !instanceOwner,
    'aria-describedby': hintId,
    'data-testid': 'api-access-switch',
    onchange: async () => {
      const allowed = input.checked;
      status.hidden = true;
      if (allowed && !window.confirm(L.confirmApiAccess(app.name))) {
        input.checked = false;
        return;
      }
      input.disabled = true;
      try {
        await management.setAppAPIAccess({ projectId, appId: app.id, allowed });
        app.apiAccessAllowed = allowed;
        announce(allowed ? L.apiAccessOn(app.name) : L.apiAccessOff(app.name));
      } catch (e) {
        input.checked = !allowed;
        status.textContent = describeError(e).message;
        status.hidden = false;
      } finally {
        input.disabled = false;
      }
    },
  });
  const hint = instanceOwner ? L.apiAccessHintOwner : L.apiAccessHintOther;
  return h(
    'div',
    { class: 'check api-access', 'data-testid': 'api-access' },
    input,
    h('label', { for: id }, L.apiAccess),
    h('p', { class: 'hint', id: hintId }, hint),
    status,
  );
}
