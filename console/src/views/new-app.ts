// #/projects/<id>/apps/new: the guided sequence (../app-wizard.ts) sent as
// AddOIDCApp. After creation, what a developer configures next: the client id,
// the secret shown once, the issuer and the discovery document's URL (from the
// discovery document itself, so it is KEYHOLD_ISSUER's, not this page's
// address), each with a copy button; then the compliance report in the
// browser's language.
import type { AddOIDCAppResponse } from '../../../gen/keyhold/management/v1/management_pb.js';
import { management } from '../api.js';
import { OIDCAuthMethodType } from '../../../gen/keyhold/management/v1/app_pb.js';
import { appWizard } from '../app-wizard.js';
import { complianceReport, secretOnce } from '../components.js';
import { announce, copyableValue, h } from '../dom.js';
import { L } from '../i18n.js';
import { href, type View } from '../view.js';

/** The issuer as Keyhold announces it (KEYHOLD_ISSUER); this page's origin only when the document cannot be read. */
async function issuerOf(): Promise<string> {
  try {
    const res = await fetch('/.well-known/openid-configuration', { headers: { accept: 'application/json' } });
    const doc = (await res.json()) as { issuer?: unknown };
    if (res.ok && typeof doc.issuer === 'string' && doc.issuer) return doc.issuer.replace(/\/+$/, '');
  } catch {
    // Unreachable: the page's own origin, which serves the console and so is Keyhold's.
  }
  return window.location.origin;
}

export async function newAppView(projectId: string): Promise<View> {
  const { project } = await management.getProjectByID({ id: projectId });
  const projectName = project?.name ?? projectId;
  const content = h('div');

  const showForm = () => {
    const form = appWizard({
      projectId,
      labelledBy: 'new-app-title',
      async create(values) {
        const res = await management.addOIDCApp({ projectId, ...values });
        await showResult(values.name.trim(), res, values.authMethodType);
      },
    });
    content.replaceChildren(form);
  };

  const showResult = async (appName: string, res: AddOIDCAppResponse, method: OIDCAuthMethodType) => {
    const issuer = await issuerOf();
    const discovery = `${issuer}/.well-known/openid-configuration`;
    const result = h(
      'section',
      { class: 'card result', 'aria-labelledby': 'created-title', 'data-testid': 'app-created' },
      h('h2', { id: 'created-title', tabindex: '-1' }, L.appCreatedTitle(appName)),
      h('dl', { class: 'facts compact' }, h('dt', null, L.applicationId), h('dd', { class: 'mono', 'data-testid': 'app-id' }, res.appId)),
      h(
        'section',
        { class: 'next-steps', 'aria-labelledby': 'next-steps-title', 'data-testid': 'next-steps' },
        h('h3', { id: 'next-steps-title' }, L.nextStepsTitle),
        h('p', null, L.nextStepsIntro),
        copyableValue(L.issuer, issuer, { testId: 'issuer' }),
        copyableValue(L.discoveryUrl, discovery, { testId: 'discovery-url' }),
        copyableValue(L.clientId, res.clientId, { testId: 'client-id' }),
      ),
      res.clientSecret ? secretOnce(res.clientSecret) : h('p', { 'data-testid': 'no-secret' }, L.noClientSecret),
      method === OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT ? h('p', { class: 'notice', 'data-testid': 'key-needed' }, L.keyNeeded) : null,
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
