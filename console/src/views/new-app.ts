// #/projects/<id>/apps/new: the application form (../app-form.ts) sent as
// AddOIDCApp. After creation: the client id, the secret shown once, and the
// compliance report in the browser's language.
import type { AddOIDCAppResponse } from '../../../gen/keyhold/management/v1/management_pb.js';
import { management } from '../api.js';
import { appForm } from '../app-form.js';
import { complianceReport, secretOnce } from '../components.js';
import { announce, copyableValue, h } from '../dom.js';
import { L } from '../i18n.js';
import { href, type View } from '../view.js';

export async function newAppView(projectId: string): Promise<View> {
  const { project } = await management.getProjectByID({ id: projectId });
  const projectName = project?.name ?? projectId;
  const content = h('div');

  const showForm = () => {
    const form = appForm({
      labelledBy: 'new-app-title',
      submitLabel: L.createApplication,
      busyLabel: L.creating,
      cancelHref: href('projects', projectId),
      async save(values) {
        const res = await management.addOIDCApp({ projectId, ...values });
        showResult(values.name.trim(), res);
      },
    });
    content.replaceChildren(form);
  };

  const showResult = (appName: string, res: AddOIDCAppResponse) => {
    const result = h(
      'section',
      { class: 'card result', 'aria-labelledby': 'created-title', 'data-testid': 'app-created' },
      h('h2', { id: 'created-title', tabindex: '-1' }, L.appCreatedTitle(appName)),
      h('dl', { class: 'facts compact' }, h('dt', null, L.applicationId), h('dd', { class: 'mono', 'data-testid': 'app-id' }, res.appId)),
      copyableValue(L.clientId, res.clientId, { testId: 'client-id' }),
      res.clientSecret ? secretOnce(res.clientSecret) : h('p', { 'data-testid': 'no-secret' }, L.noClientSecret),
      complianceReport(res.noneCompliant, res.complianceProblems),
      h(
        'div',
        { class: 'actions' },
        h('a', { class: 'button', href: href('projects', projectId) }, L.backTo(projectName)),
        h('a', { class: 'button secondary', href: href('projects', projectId, 'apps', res.appId, 'edit') }, L.editThisApplication),
        h('button', { type: 'button', class: 'secondary', onclick: () => { showForm(); content.querySelector<HTMLInputElement>('input')?.focus(); } }, L.createAnotherApplication),
      ),
    );
    content.replaceChildren(result);
    announce(L.appCreated(appName, res.clientSecret !== ''));
    result.querySelector<HTMLElement>('h2')?.focus();
  };

  showForm();
  return {
    title: `${L.newApplication} \u00b7 ${projectName}`,
    node: h(
      'section',
      { 'aria-labelledby': 'new-app-title' },
      h('nav', { 'aria-label': L.breadcrumb, class: 'breadcrumb' }, h('a', { href: '#/projects' }, L.navProjects), ' / ', h('a', { href: href('projects', projectId) }, projectName), ' / ', h('span', { 'aria-current': 'page' }, L.newApplication)),
      h('h1', { id: 'new-app-title', tabindex: '-1' }, L.newOidcApp),
      h('p', null, L.newAppIntro),
      content,
    ),
  };
}
