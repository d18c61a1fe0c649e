// #/projects/<id>: the project's applications (searched by name, paged by the
// server) with their details, the Keyhold API access switch (../api-access.ts),
// "Edit", "Regenerate secret", "Deactivate" / "Reactivate" and "Remove", a
// link to "New application"; then the project's settings, roles, members and
// user grants (./project-admin.ts).
import type { Duration } from '@bufbuild/protobuf/wkt';
import { AppState, OIDCAuthMethodType, type App } from '../../../gen/keyhold/management/v1/app_pb.js';
import { TextQueryMethod } from '../../../gen/keyhold/object/v1/object_pb.js';
import { describeError, management } from '../api.js';
import { apiAccessSwitch } from '../api-access.js';
import { isInstanceOwner } from '../my-roles.js';
import { complianceReport, secretOnce } from '../components.js';
import { announce, h, uid, type Child } from '../dom.js';
import { busy } from '../forms.js';
import { searchList } from '../paging.js';
import { APP_TYPES, AUTH_METHODS, GRANT_TYPES, labelOf, RESPONSE_TYPES, shortLabelOf, TOKEN_TYPES, VERSIONS } from '../labels.js';
import { L } from '../i18n.js';
import { href, tsText, type View } from '../view.js';
import { projectGrants, projectMembers, rolesSection, settingsSection } from './project-admin.js';

export function durationText(d: Duration | undefined): string {
  if (!d) return '0 s';
  const seconds = Number(d.seconds) + d.nanos / 1e9;
  return `${seconds.toLocaleString(navigator.languages?.[0], { maximumFractionDigits: 3 })} s`;
}

function list(values: readonly string[]): Child {
  return values.length ? h('ul', { class: 'plain mono' }, values.map((v) => h('li', null, v))) : h('span', { class: 'muted' }, 'none');
}

function yesNo(b: boolean): string {
  return b ? 'yes' : 'no';
}

function hasSecret(app: App): boolean {
  const m = app.oidcConfig?.authMethodType;
  return m === OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_BASIC || m === OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_POST;
}

function appDetails(projectId: string, app: App, instanceOwner: boolean, reload: () => Promise<void>): HTMLElement {
  const c = app.oidcConfig;
  // Not a live region: a regenerated secret must not be read out by itself; announce() says what happened.
  const status = h('div', { class: 'app-status' });
  const actions: HTMLElement[] = [h('a', { class: 'button secondary', href: href('projects', projectId, 'apps', app.id, 'edit') }, 'Edit application')];
  if (hasSecret(app)) {
    const regenerate: HTMLButtonElement = h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: async () => {
          if (!window.confirm(`Generate a new client secret for \u201c${app.name}\u201d? The current secret stops working at once.`)) return;
          await busy(regenerate, 'Regenerating\u2026', async () => {
            try {
              const res = await management.regenerateOIDCClientSecret({ projectId, appId: app.id });
              status.replaceChildren(secretOnce(res.clientSecret, 'New client secret'));
              announce('A new client secret was generated. Copy it now: you will not see it again.');
              status.querySelector<HTMLInputElement>('input')?.focus();
            } catch (e) {
              status.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
            }
          });
        },
      },
      'Regenerate secret',
    );
    actions.push(regenerate);
  }
  const inactive = app.state === AppState.INACTIVE;
  const toggle: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: async () => {
        if (!inactive && !window.confirm(`Deactivate \u201c${app.name}\u201d? It cannot log anyone in until it is reactivated.`)) return;
        await busy(toggle, inactive ? 'Reactivating\u2026' : 'Deactivating\u2026', async () => {
          try {
            if (inactive) await management.reactivateApp({ projectId, appId: app.id });
            else await management.deactivateApp({ projectId, appId: app.id });
            announce(`Application ${app.name} ${inactive ? 'reactivated' : 'deactivated'}.`);
            await reload();
          } catch (e) {
            status.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
          }
        });
      },
    },
    inactive ? 'Reactivate application' : 'Deactivate application',
  );
  actions.push(toggle);
  const remove: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      class: 'danger',
      onclick: async () => {
        if (!window.confirm(`Remove the application \u201c${app.name}\u201d? Its client id and secret stop working.`)) return;
        await busy(remove, 'Removing\u2026', async () => {
          try {
            await management.removeApp({ projectId, appId: app.id });
            announce(`Application ${app.name} removed.`);
            await reload();
          } catch (e) {
            status.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
          }
        });
      },
    },
    'Remove application',
  );
  actions.push(remove);

  const row = (term: string, value: Child) => [h('dt', null, term), h('dd', null, value)];
  const summaryId = uid('app');
  return h(
    'details',
    { class: 'app', 'data-app-id': app.id, 'data-app-name': app.name },
    h(
      'summary',
      { id: summaryId },
      h('span', { class: 'app-name' }, app.name),
      ' ',
      h('span', { class: 'muted' }, c ? `${shortLabelOf(APP_TYPES, c.appType)} \u00b7 ${shortLabelOf(AUTH_METHODS, c.authMethodType)}` : ''),
      ' ',
      c ? h('span', { class: c.noneCompliant ? 'badge bad' : 'badge good' }, c.noneCompliant ? 'not compliant' : 'compliant') : null,
      inactive ? [' ', h('span', { class: 'badge off', 'data-testid': 'app-inactive' }, 'deactivated')] : null,
      app.apiAccessAllowed ? [' ', h('span', { class: 'badge api', 'data-testid': 'app-api-access' }, 'Keyhold API')] : null,
    ),
    h(
      'div',
      { class: 'app-body' },
      h(
        'dl',
        { class: 'facts' },
        row('Application ID', h('span', { class: 'mono' }, app.id)),
        row('State', h('span', { 'data-testid': 'app-state' }, inactive ? 'deactivated: cannot log anyone in' : 'active')),
        row('Client ID', h('span', { class: 'mono', 'data-testid': 'client-id' }, c?.clientId ?? '')),
        row('Client secret', hasSecret(app) ? 'set (shown only when created or regenerated)' : 'none (this authentication method uses no secret)'),
        c
          ? [
              row('Application type', labelOf(APP_TYPES, c.appType)),
              row('Authentication method', labelOf(AUTH_METHODS, c.authMethodType)),
              row('Response types', c.responseTypes.map((t) => shortLabelOf(RESPONSE_TYPES, t)).join(', ')),
              row('Grant types', c.grantTypes.map((t) => shortLabelOf(GRANT_TYPES, t)).join(', ')),
              row('Redirect URIs', list(c.redirectUris)),
              row('Post-logout redirect URIs', list(c.postLogoutRedirectUris)),
              row('Additional origins', list(c.additionalOrigins)),
              row('OIDC version', labelOf(VERSIONS, c.version)),
              row('Access token type', labelOf(TOKEN_TYPES, c.accessTokenType)),
              row('Roles in access token', yesNo(c.accessTokenRoleAssertion)),
              row('Roles in ID token', yesNo(c.idTokenRoleAssertion)),
              row('User info in ID token', yesNo(c.idTokenUserinfoAssertion)),
              row('Clock skew', durationText(c.clockSkew)),
              row('Development mode', yesNo(c.devMode)),
              row('Skip native success page', yesNo(c.skipNativeAppSuccessPage)),
            ]
          : null,
        row('Created', tsText(app.details?.creationDate)),
        row('Changed', tsText(app.details?.changeDate)),
      ),
      c ? complianceReport(c.noneCompliant, c.complianceProblems, 'h4') : null,
      apiAccessSwitch(projectId, app, instanceOwner),
      h('div', { class: 'actions', role: 'group', 'aria-label': `Actions for ${app.name}` }, actions),
      status,
    ),
  );
}

export async function projectView(projectId: string): Promise<View> {
  const [{ project }, instanceOwner] = await Promise.all([management.getProjectByID({ id: projectId }), isInstanceOwner()]);
  const name = project?.name ?? projectId;
  const heading = h('h2', { id: 'apps-title', tabindex: '-1' }, L.applications);
  let appCount = 0;
  const list = searchList<App>({
    id: 'apps',
    noun: 'applications',
    searchLabel: 'Search applications by name',
    searchHint: 'Part of the name, any case. Oldest first.',
    empty: 'No applications yet.',
    async load({ text, offset, limit }) {
      const res = await management.listApps({
        projectId,
        query: { offset: BigInt(offset), limit, asc: true },
        queries: text ? [{ query: { case: 'nameQuery', value: { name: text, method: TextQueryMethod.CONTAINS_IGNORE_CASE } } }] : [],
      });
      const total = Number(res.details?.totalResult ?? 0);
      heading.textContent = L.applicationsCount(total);
      appCount = total;
      return { items: res.result, total };
    },
    render: (apps, reload) =>
      h(
        'div',
        { class: 'app-list' },
        apps.map((a) =>
          appDetails(projectId, a, instanceOwner, async () => {
            await reload();
            heading.focus();
          }),
        ),
      ),
  });
  let roleCount = 0;
  let grants: readonly { roleKeys: readonly string[] }[] = [];
  const reloadPage = () => window.dispatchEvent(new HashChangeEvent('hashchange'));
  const [, grantsPart] = await Promise.all([
    list.start(),
    projectGrants(projectId, (g) => {
      grants = g;
    }),
  ]);
  const [rolesPart, membersPart] = await Promise.all([
    rolesSection(
      projectId,
      (key) => grants.filter((g) => g.roleKeys.includes(key)).length,
      (n) => {
        roleCount = n;
      },
      () => grantsPart.reload(),
    ),
    projectMembers(projectId),
  ]);
  const settings = project ? settingsSection(project, () => ({ apps: appCount, roles: roleCount, grants: grants.length }), reloadPage) : null;

  return {
    title: name,
    node: h(
      'section',
      { 'aria-labelledby': 'project-title' },
      h('nav', { 'aria-label': 'Breadcrumb', class: 'breadcrumb' }, h('a', { href: '#/projects' }, L.navProjects), ' / ', h('span', { 'aria-current': 'page' }, name)),
      h('h1', { id: 'project-title', tabindex: '-1' }, name),
      h(
        'dl',
        { class: 'facts compact' },
        h('dt', null, L.projectId),
        h('dd', { class: 'mono' }, projectId),
        h('dt', null, L.created),
        h('dd', null, tsText(project?.details?.creationDate)),
      ),
      h('p', null, h('a', { class: 'button', href: href('projects', projectId, 'apps', 'new') }, L.newOidcApp)),
      h('section', { class: 'apps', 'aria-labelledby': 'apps-title' }, heading, list.element),
      rolesPart,
      membersPart,
      grantsPart.element,
      settings,
    ),
  };
}
