// #/projects/<id>/apps/new: every field of AddOIDCApp (seed spec §2.1). The
// hints here are only hints; what the server says is the truth: its BadRequest
// violations appear next to the fields they name. After creation: the client
// id, the secret shown once, and the compliance report in the browser's language.
import type { MessageInitShape } from '@bufbuild/protobuf';
import { OIDCAppType, OIDCAuthMethodType } from '../../../gen/keyhold/management/v1/app_pb.js';
import type { AddOIDCAppRequestSchema, AddOIDCAppResponse } from '../../../gen/keyhold/management/v1/management_pb.js';
import { describeError, management } from '../api.js';
import { complianceReport, secretOnce } from '../components.js';
import { announce, copyableValue, h, textField, uid } from '../dom.js';
import { busy, clearProblems, mapSentIndices, rowsEditor, showProblems } from '../forms.js';
import { APP_TYPES, AUTH_METHODS, GRANT_TYPES, RESPONSE_TYPES, TOKEN_TYPES, VERSIONS, type Choice } from '../labels.js';
import { href, type View } from '../view.js';

type Request = MessageInitShape<typeof AddOIDCAppRequestSchema>;

function selectField<T extends number>(label: string, field: string, choices: Choice<T>[], hint?: string) {
  const id = uid(`f-${field}`);
  const hintId = hint ? `${id}-hint` : undefined;
  const select = h(
    'select',
    { id, name: field, 'data-field': field, 'aria-describedby': hintId },
    choices.map((c) => h('option', { value: String(c.value) }, c.label)),
  );
  const wrapper = h('div', { class: 'field' }, h('label', { for: id }, label), hint ? h('p', { class: 'hint', id: hintId }, hint) : null, select);
  return { wrapper, select, value: () => Number(select.value) as T };
}

function checkboxGroup<T extends number>(legend: string, field: string, choices: Choice<T>[], checked: T[], hint?: string) {
  const hintId = hint ? uid('hint') : undefined;
  const boxes = choices.map((c) => {
    const id = uid(`f-${field}`);
    const input = h('input', { id, type: 'checkbox', name: field, value: String(c.value), checked: checked.includes(c.value) });
    return { choice: c, input, node: h('div', { class: 'check' }, input, h('label', { for: id }, c.label, ' ', h('code', { class: 'wire' }, c.wire))) };
  });
  const element = h(
    'fieldset',
    { class: 'checks', 'data-field': field, 'aria-describedby': hintId },
    h('legend', null, legend),
    hint ? h('p', { class: 'hint', id: hintId }, hint) : null,
    boxes.map((b) => b.node),
  );
  return { element, values: () => boxes.filter((b) => b.input.checked).map((b) => b.choice.value) };
}

function checkbox(label: string, field: string, hint?: string) {
  const id = uid(`f-${field}`);
  const hintId = hint ? `${id}-hint` : undefined;
  const input = h('input', { id, type: 'checkbox', name: field, 'data-field': field, 'aria-describedby': hintId });
  return { element: h('div', { class: 'check' }, input, h('label', { for: id }, label), hint ? h('p', { class: 'hint', id: hintId }, hint) : null), input };
}

function fieldset(legend: string, ...children: HTMLElement[]): HTMLFieldSetElement {
  return h('fieldset', { class: 'group' }, h('legend', null, legend), children);
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i;

function checkRedirectUri(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Not an absolute URI yet: it needs a scheme, for example https://app.example.com/callback.';
  }
  if (value.includes('#')) return 'Redirect URIs must not contain a fragment (#\u2026).';
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname)) return 'Plain http outside localhost: only web apps may use it, and it is not recommended.';
  return undefined;
}

function checkOrigin(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Not an origin yet: scheme://host[:port], for example https://app.example.com.';
  }
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]+[/?#]/i.test(value) || url.search || url.hash) return 'An origin has no path, query or fragment (and no trailing slash).';
  return undefined;
}

export async function newAppView(projectId: string): Promise<View> {
  const { project } = await management.getProjectByID({ id: projectId });
  const projectName = project?.name ?? projectId;
  const content = h('div');

  const showForm = () => {
    const name = textField({ label: 'Name', name: 'name', required: true, hint: '1 to 200 characters, unique in the project (case-insensitive).' });
    const appType = selectField('Application type', 'appType', APP_TYPES);
    const authMethod = selectField('Authentication method', 'authMethodType', AUTH_METHODS, 'Basic and Post get a client secret, shown once after creation.');
    const authAdvice = h('p', { class: 'hint advice', 'aria-live': 'polite' });
    const adviseAuth = () => {
      const type = appType.value();
      const method = authMethod.value();
      authAdvice.textContent =
        (type === OIDCAppType.OIDC_APP_TYPE_NATIVE || type === OIDCAppType.OIDC_APP_TYPE_USER_AGENT) && method !== OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_NONE
          ? 'Native and user-agent apps cannot keep a secret; the compliance report will recommend None (PKCE).'
          : '';
    };
    appType.select.addEventListener('change', adviseAuth);
    authMethod.select.addEventListener('change', adviseAuth);
    authMethod.wrapper.append(authAdvice);

    const responseTypes = checkboxGroup('Response types', 'responseTypes', RESPONSE_TYPES, [RESPONSE_TYPES[0]!.value], 'Code needs the authorization code (or device code) grant; the ID token types need implicit.');
    const grantTypes = checkboxGroup('Grant types', 'grantTypes', GRANT_TYPES, [GRANT_TYPES[0]!.value]);
    const redirectUris = rowsEditor({
      field: 'redirectUris',
      legend: 'Redirect URIs',
      itemLabel: 'Redirect URI',
      addLabel: 'Add redirect URI',
      placeholder: 'https://app.example.com/callback',
      hint: 'Where the code or tokens are sent after login. Absolute URIs without a fragment.',
      initial: [''],
      check: checkRedirectUri,
    });
    const postLogout = rowsEditor({
      field: 'postLogoutRedirectUris',
      legend: 'Post-logout redirect URIs',
      itemLabel: 'Post-logout redirect URI',
      addLabel: 'Add post-logout redirect URI',
      placeholder: 'https://app.example.com/signed-out',
      check: checkRedirectUri,
    });
    const origins = rowsEditor({
      field: 'additionalOrigins',
      legend: 'Additional origins',
      itemLabel: 'Origin',
      addLabel: 'Add origin',
      placeholder: 'https://app.example.com',
      hint: 'Other origins from which the API may be used: scheme://host[:port], no path.',
      check: checkOrigin,
    });
    const version = selectField('OIDC version', 'version', VERSIONS);
    const tokenType = selectField('Access token type', 'accessTokenType', TOKEN_TYPES);
    const accessRoles = checkbox('Add roles to the access token', 'accessTokenRoleAssertion', 'Takes effect only with JWT access tokens.');
    const idRoles = checkbox('Add roles to the ID token', 'idTokenRoleAssertion');
    const idUserinfo = checkbox('Add user info (profile, email, address, phone) to the ID token', 'idTokenUserinfoAssertion', 'Deviates from the OIDC specification.');
    const clockSkew = textField({
      label: 'Clock skew (seconds)',
      name: 'clockSkew',
      type: 'number',
      value: '0',
      hint: '0 to 5 seconds; added to "exp" and subtracted from "iat", "auth_time" and "nbf".',
      attrs: { min: '0', max: '5', step: 'any', inputmode: 'decimal' },
    });
    const devMode = checkbox('Development mode', 'devMode', 'Skips some checks of the OIDC specification; never for production.');
    const skipNative = checkbox('Skip the login-success page for native apps', 'skipNativeAppSuccessPage');

    const submit = h('button', { type: 'submit' }, 'Create application');
    const form = h(
      'form',
      { method: 'post', novalidate: true, class: 'card app-form', 'aria-labelledby': 'new-app-title' },
      fieldset('Application', name.wrapper, appType.wrapper, authMethod.wrapper),
      fieldset('Flows', responseTypes.element, grantTypes.element),
      fieldset('URIs and origins', redirectUris.element, postLogout.element, origins.element),
      fieldset('Tokens', version.wrapper, tokenType.wrapper, accessRoles.element, idRoles.element, idUserinfo.element, clockSkew.wrapper),
      fieldset('Development', devMode.element, skipNative.element),
      h('div', { class: 'actions' }, submit, h('a', { href: href('projects', projectId), class: 'button secondary' }, 'Cancel')),
    );

    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const redirects = redirectUris.values();
      const logouts = postLogout.values();
      const extraOrigins = origins.values();
      const request: Request = {
        projectId,
        name: name.input.value,
        appType: appType.value(),
        authMethodType: authMethod.value(),
        responseTypes: responseTypes.values(),
        grantTypes: grantTypes.values(),
        redirectUris: redirects.values,
        postLogoutRedirectUris: logouts.values,
        additionalOrigins: extraOrigins.values,
        version: version.value(),
        accessTokenType: tokenType.value(),
        accessTokenRoleAssertion: accessRoles.input.checked,
        idTokenRoleAssertion: idRoles.input.checked,
        idTokenUserinfoAssertion: idUserinfo.input.checked,
        devMode: devMode.input.checked,
        skipNativeAppSuccessPage: skipNative.input.checked,
      };
      const skew = clockSkew.input.value.trim();
      if (skew !== '') {
        const seconds = Number(skew);
        if (Number.isFinite(seconds)) {
          const whole = Math.trunc(seconds);
          request.clockSkew = { seconds: BigInt(whole), nanos: Math.round((seconds - whole) * 1e9) };
        }
      }
      await busy(submit, 'Creating\u2026', async () => {
        try {
          const res = await management.addOIDCApp(request);
          clearProblems(form);
          showResult(name.input.value.trim(), res);
        } catch (e) {
          let problem = describeError(e);
          problem = mapSentIndices(problem, 'redirectUris', redirects.rows, 'Redirect URI');
          problem = mapSentIndices(problem, 'postLogoutRedirectUris', logouts.rows, 'Post-logout redirect URI');
          problem = mapSentIndices(problem, 'additionalOrigins', extraOrigins.rows, 'Origin');
          showProblems(form, problem);
        }
      });
    });
    content.replaceChildren(form);
  };

  const showResult = (appName: string, res: AddOIDCAppResponse) => {
    const result = h(
      'section',
      { class: 'card result', 'aria-labelledby': 'created-title', 'data-testid': 'app-created' },
      h('h2', { id: 'created-title', tabindex: '-1' }, `Application \u201c${appName}\u201d created`),
      h('dl', { class: 'facts compact' }, h('dt', null, 'Application ID'), h('dd', { class: 'mono', 'data-testid': 'app-id' }, res.appId)),
      copyableValue('Client ID', res.clientId, { testId: 'client-id' }),
      res.clientSecret ? secretOnce(res.clientSecret) : h('p', { 'data-testid': 'no-secret' }, 'No client secret: this authentication method does not use one.'),
      complianceReport(res.noneCompliant, res.complianceProblems),
      h(
        'div',
        { class: 'actions' },
        h('a', { class: 'button', href: href('projects', projectId) }, `Back to ${projectName}`),
        h('button', { type: 'button', class: 'secondary', onclick: () => { showForm(); content.querySelector<HTMLInputElement>('input')?.focus(); } }, 'Create another application'),
      ),
    );
    content.replaceChildren(result);
    announce(`Application ${appName} created.${res.clientSecret ? ' Copy the client secret now: you will not see it again.' : ''}`);
    result.querySelector<HTMLElement>('h2')?.focus();
  };

  showForm();
  return {
    title: `New application \u00b7 ${projectName}`,
    node: h(
      'section',
      { 'aria-labelledby': 'new-app-title' },
      h('nav', { 'aria-label': 'Breadcrumb', class: 'breadcrumb' }, h('a', { href: '#/projects' }, 'Projects'), ' / ', h('a', { href: href('projects', projectId) }, projectName), ' / ', h('span', { 'aria-current': 'page' }, 'New application')),
      h('h1', { id: 'new-app-title', tabindex: '-1' }, 'New OIDC application'),
      h('p', null, 'Fields marked * are required; everything else has the documented default. Keyhold checks the request and reports every problem at once.'),
      content,
    ),
  };
}
