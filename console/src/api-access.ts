// An app's "Keyhold API access" switch (SetAppAPIAccess), on the project's app
// list and the app's edit page: whether the app may ask its users to let it act
// as them on Keyhold's management API. Only an instance administrator may turn
// it; everyone else sees it disabled, with the reason.
import type { App } from '../../gen/keyhold/management/v1/app_pb.js';
import { describeError, management } from './api.js';
import { announce, h, uid } from './dom.js';

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
      if (allowed && !window.confirm(`Allow \u201c${app.name}\u201d to act as its users on Keyhold\u2019s management API? Each user is asked on a consent page before it can.`)) {
        input.checked = false;
        return;
      }
      input.disabled = true;
      try {
        await management.setAppAPIAccess({ projectId, appId: app.id, allowed });
        app.apiAccessAllowed = allowed;
        announce(allowed ? `${app.name} may now ask its users for access to Keyhold\u2019s API.` : `${app.name} can no longer use Keyhold\u2019s API; its tokens for it stop working.`);
      } catch (e) {
        input.checked = !allowed;
        status.textContent = describeError(e).message;
        status.hidden = false;
      } finally {
        input.disabled = false;
      }
    },
  });
  const hint = instanceOwner
    ? 'When on, the application may ask each user, on a consent page, to let it act as them on Keyhold\u2019s management API with all their roles. Turning it off ends the tokens it holds for the API.'
    : 'Only an instance administrator (IAM_OWNER) can change this. When on, the application may ask each user, on a consent page, to let it act as them on Keyhold\u2019s management API.';
  return h(
    'div',
    { class: 'check api-access', 'data-testid': 'api-access' },
    input,
    h('label', { for: id }, 'Keyhold API access'),
    h('p', { class: 'hint', id: hintId }, hint),
    status,
  );
}
