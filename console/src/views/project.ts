// #/projects/<id>: the project's applications (searched by name, paged by the
// server) with their details, the Keyhold API access switch (../api-access.ts),
// "Edit", "Regenerate secret", "Deactivate" / "Reactivate" and "Remove", a
// link to "New application"; then the project's settings, roles, members and
// user grants (./project-admin.ts), the organizations it is granted to (./granted-orgs.ts).
import type { Duration } from '@bufbuild/protobuf/wkt';
import { AppState, OIDCAuthMethodType, type App } from '../../../gen/keyhold/management/v1/app_pb.js';
import { TextQueryMethod } from '../../../gen/keyhold/object/v1/object_pb.js';
import { describeError, management } from '../api.js';
import { apiAccessSwitch } from '../api-access.js';
import { isInstanceOwner, permissions } from '../my-roles.js';
import { complianceReport, secretOnce } from '../components.js';
import { announce, h, uid, type Child } from '../dom.js';
import { busy } from '../forms.js';
import { searchList } from '../paging.js';
import { APP_TYPES, AUTH_METHODS, GRANT_TYPES, labelOf, RESPONSE_TYPES, shortLabelOf, TOKEN_TYPES, VERSIONS } from '../labels.js';
import { L, locale } from '../i18n.js';
import { href, tsText, type View } from '../view.js';
import { projectGrants, projectMembers, rolesSection, settingsSection } from './project-admin.js';
import { grantedOrgsSection } from './granted-orgs.js';

export function durationText(d: Duration | undefined): string {
  if (!d) return '0 s';
  const seconds = Number(d.seconds) + d.nanos / 1e9;
  return `${seconds.toLocaleString(locale(), { maximumFractionDigits: 3 })} s`;
}

function list(values: readonly string[]): Child {
  return values.length ? h('ul', { class: 'plain mono' }, values.map((v) => h('li', null, v))) : h('span', { class: 'muted' }, L.none);
}

function yesNo(b: boolean): string {
  return b ? L.yes : L.no;
}

function hasSecret(app: App): boolean {
  const m = app.oidcConfig?.authMethodType;
  return m === OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_BASIC || m === OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_POST;
}

function appDetails(projectId: string, app: App, instanceOwner: boolean, mayWrite: boolean, reload: () => Promise<void>): HTMLElement {
  const c = app.oidcConfig;
  // Not a live region: a regenerated secret must not be read out by itself; announce() says what happened.
  const status = h('div', { class: 'app-status' });
  const actions: HTMLElement[] = [h('a', { class: 'button secondary', href: href('projects', projectId, 'apps', app.id, 'edit') }, L.editApplication)];
  if (hasSecret(app)) {
    const regenerate: HTMLButtonElement = h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: async () => {
          if (!window.confirm(L.confirmRegenerate(app.name))) return;
          await busy(regenerate, L.regenerating, async () => {
            try {
              const res = await management.regenerateOIDCClientSecret({ projectId, appId: app.id });
              status.replaceChildren(secretOnce(res.clientSecret, L.newClientSecret));
              announce(L.secretRegenerated);
              status.querySelector<HTMLInputElement>('input')?.focus();
            } catch (e) {
              status.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
            }
          });
        },
      },
      L.regenerateSecret,
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
        if (!inactive && !window.confirm(L.confirmDeactivateApp(app.name))) return;
        await busy(toggle, inactive ? L.reactivating : L.deactivating, async () => {
          try {
            if (inactive) await management.reactivateApp({ projectId, appId: app.id });
            else await management.deactivateApp({ projectId, appId: app.id });
            announce(inactive ? L.appReactivated(app.name) : L.appDeactivated(app.name));
            await reload();
          } catch (e) {
            status.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
          }
        });
      },
    },
    inactive ? L.reactivateApplication : L.deactivateApplication,
  );
  actions.push(toggle);
  const remove: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      class: 'danger',
      onclick: async () => {
        if (!window.confirm(L.confirmRemoveApp(app.name))) return;
        await busy(remove, L.removing, async () => {
          try {
            await management.removeApp({ projectId, appId: app.id });
            announce(L.appRemoved(app.name));
            await reload();
          } catch (e) {
            status.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
          }
        });
      },
    },
    L.removeApplication,
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
      c ? h('span', { class: c.noneCompliant ? 'badge bad' : 'badge good' }, c.noneCompliant ? L.badgeNotCompliant : L.badgeCompliant) : null,
      inactive ? [' ', h('span', { class: 'badge off', 'data-testid': 'app-inactive' }, L.deactivated)] : null,
      app.apiAccessAllowed ? [' ', h('span', { class: 'badge api', 'data-testid': 'app-api-access' }, L.keyholdApi)] : null,
    ),
    h(
      'div',
      { class: 'app-body' },
      h(
        'dl',
        { class: 'facts' },
        row(L.applicationId, h('span', { class: 'mono' }, app.id)),
        row(L.state, h('span', { 'data-testid': 'app-state' }, inactive ? L.appDeactivatedState : L.active)),
        row(L.clientId, h('span', { class: 'mono', 'data-testid': 'client-id' }, c?.clientId ?? '')),
        row(L.clientSecret, hasSecret(app) ? L.secretSet : L.secretNone),
        c
          ? [
              row(L.applicationType, labelOf(APP_TYPES, c.appType)),
              row(L.authMethod, labelOf(AUTH_METHODS, c.authMethodType)),
              row(L.responseTypes, c.responseTypes.map((t) => shortLabelOf(RESPONSE_TYPES, t)).join(', ')),
              row(L.grantTypes, c.grantTypes.map((t) => shortLabelOf(GRANT_TYPES, t)).join(', ')),
              row(L.redirectUris, list(c.redirectUris)),
              row(L.postLogoutUris, list(c.postLogoutRedirectUris)),
              row(L.additionalOrigins, list(c.additionalOrigins)),
              row(L.oidcVersion, labelOf(VERSIONS, c.version)),
              row(L.accessTokenType, labelOf(TOKEN_TYPES, c.accessTokenType)),
              row(L.rolesInAccessToken, yesNo(c.accessTokenRoleAssertion)),
              row(L.rolesInIdToken, yesNo(c.idTokenRoleAssertion)),
              row(L.userinfoInIdToken, yesNo(c.idTokenUserinfoAssertion)),
              row(L.clockSkew, durationText(c.clockSkew)),
              row(L.devMode, yesNo(c.devMode)),
              row(L.skipNativeShort, yesNo(c.skipNativeAppSuccessPage)),
            ]
          : null,
        row(L.created, tsText(app.details?.creationDate)),
        row(L.changed, tsText(app.details?.changeDate)),
      ),
      c ? complianceReport(c.noneCompliant, c.complianceProblems, 'h4') : null,
      apiAccessSwitch(projectId, app, instanceOwner),
      mayWrite ? h('div', { class: 'actions', role: 'group', 'aria-label': L.actionsFor(app.name) }, actions) : null,
      status,
    ),
  );
}

export async function projectView(projectId: string): Promise<View> {
  const [{ project }, instanceOwner, may] = await Promise.all([
    management.getProjectByID({ id: projectId }),
    isInstanceOwner(),
    permissions(['project.write', 'project.app.write', 'project.role.write', 'project.member.write', 'project.grant.write'] as const, projectId),
  ]);
  const name = project?.name ?? projectId;
  const heading = h('h2', { id: 'apps-title', tabindex: '-1' }, L.applications);
  let appCount = 0;
  const list = searchList<App>({
    id: 'apps',
    noun: L.appsNoun,
    searchLabel: L.searchApps,
    searchHint: L.nameHint,
    empty: L.noApps,
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
          appDetails(projectId, a, instanceOwner, may['project.app.write'], async () => {
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
  const [rolesPart, membersPart, grantedPart] = await Promise.all([
    rolesSection(
      projectId,
      (key) => grants.filter((g) => g.roleKeys.includes(key)).length,
      (n) => {
        roleCount = n;
      },
      () => grantsPart.reload(),
      may['project.role.write'],
    ),
    projectMembers(projectId, may['project.member.write']),
    grantedOrgsSection(projectId, may['project.grant.write']),
  ]);
  const settings = project ? settingsSection(project, () => ({ apps: appCount, roles: roleCount, grants: grants.length }), reloadPage, may['project.write']) : null;

  return {
    title: name,
    node: h(
      'section',
      { 'aria-labelledby': 'project-title' },
      h('nav', { 'aria-label': L.breadcrumb, class: 'breadcrumb' }, h('a', { href: '#/projects' }, L.navProjects), ' / ', h('span', { 'aria-current': 'page' }, name)),
      h('h1', { id: 'project-title', tabindex: '-1' }, name),
      h(
        'dl',
        { class: 'facts compact' },
        h('dt', null, L.projectId),
        h('dd', { class: 'mono' }, projectId),
        h('dt', null, L.created),
        h('dd', null, tsText(project?.details?.creationDate)),
      ),
      may['project.app.write'] ? h('p', null, h('a', { class: 'button', href: href('projects', projectId, 'apps', 'new') }, L.newOidcApp)) : null,
      h('section', { class: 'apps', 'aria-labelledby': 'apps-title' }, heading, list.element),
      rolesPart,
      membersPart,
      grantsPart.element,
      grantedPart,
      settings,
    ),
  };
}
