// #/projects/<id>/apps/<appId>/edit: the application form (../app-form.ts)
// filled with the stored app. Saving sends UpdateApp (when the name changed)
// and UpdateOIDCAppConfig; the compliance report shown above the form is the
// one the server answered, as on create. A switch to Basic/Post issues no
// secret by itself: the page says one is needed and offers to generate it.
// The Keyhold API access switch is its own call (../api-access.ts), above the form.
import { AppState } from '../../../gen/keyhold/management/v1/app_pb.js';
import type { UpdateOIDCAppConfigResponse } from '../../../gen/keyhold/management/v1/management_pb.js';
import { describeError, management } from '../api.js';
import { apiAccessSwitch } from '../api-access.js';
import { isInstanceOwner } from '../my-roles.js';
import { appForm } from '../app-form.js';
import { complianceReport, secretOnce } from '../components.js';
import { announce, h } from '../dom.js';
import { L } from '../i18n.js';
import { busy } from '../forms.js';
import { href, type View } from '../view.js';

export async function editAppView(projectId: string, appId: string): Promise<View> {
  const [{ project }, { app }, instanceOwner] = await Promise.all([management.getProjectByID({ id: projectId }), management.getAppByID({ projectId, appId }), isInstanceOwner()]);
  const projectName = project?.name ?? projectId;
  let appName = app?.name ?? appId;
  const config = app?.oidcConfig;
  const title = h('h1', { id: 'edit-app-title', tabindex: '-1' }, L.editNamed(appName));
  const report = h('div', { class: 'card result', 'data-testid': 'app-report' }, config ? complianceReport(config.noneCompliant, config.complianceProblems, 'h2') : null);

  const secretNeeded = (): HTMLElement => {
    const box = h('div', { 'data-testid': 'secret-needed' });
    const generate: HTMLButtonElement = h(
      'button',
      {
        type: 'button',
        onclick: async () => {
          await busy(generate, L.generating, async () => {
            try {
              const res = await management.regenerateOIDCClientSecret({ projectId, appId });
              box.replaceChildren(secretOnce(res.clientSecret));
              announce(L.secretGenerated);
              box.querySelector<HTMLInputElement>('input')?.focus();
            } catch (e) {
              box.append(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
            }
          });
        },
      },
      L.generateSecret,
    );
    box.append(h('p', { class: 'warning' }, L.secretNeeded), h('div', { class: 'actions' }, generate));
    return box;
  };

  const showSaved = (res: UpdateOIDCAppConfigResponse) => {
    report.replaceChildren(
      h('h2', { id: 'saved-title', tabindex: '-1', 'data-testid': 'app-saved' }, L.changesSaved(appName)),
      complianceReport(res.noneCompliant, res.complianceProblems, 'h3'),
    );
    if (res.clientSecretNeeded) report.append(secretNeeded());
    announce(L.changesSavedAnnounce(res.noneCompliant));
    report.querySelector<HTMLElement>('h2')?.focus();
  };

  const form = appForm({
    initial: { name: appName, config },
    labelledBy: 'edit-app-title',
    submitLabel: L.saveChanges,
    busyLabel: L.saving,
    cancelHref: href('projects', projectId),
    async save(values) {
      const { name, version: _version, ...rest } = values;
      if (name.trim() !== appName) {
        await management.updateApp({ projectId, appId, name });
        appName = name.trim();
        title.textContent = L.editNamed(appName);
      }
      showSaved(await management.updateOIDCAppConfig({ projectId, appId, ...rest }));
    },
  });

  return {
    title: `${L.editNamed(appName)} \u00b7 ${projectName}`,
    node: h(
      'section',
      { 'aria-labelledby': 'edit-app-title' },
      h('nav', { 'aria-label': L.breadcrumb, class: 'breadcrumb' }, h('a', { href: '#/projects' }, L.navProjects), ' / ', h('a', { href: href('projects', projectId) }, projectName), ' / ', h('span', { 'aria-current': 'page' }, L.editApplication)),
      title,
      h(
        'p',
        null,
        L.editAppIntro,
        app?.state === AppState.INACTIVE ? h('strong', { 'data-testid': 'app-inactive' }, L.editAppInactive) : null,
      ),
      report,
      app ? apiAccessSwitch(projectId, app, instanceOwner) : null,
      form,
    ),
  };
}
