// The OIDC application form (every field of AddOIDCApp, seed spec §2.1), shared
// by "New application" and "Edit application": the same fields, hints and
// client-side checks, and the server's BadRequest violations placed next to
// the fields they name. The hints are only hints; the server is the truth.
import type { Duration } from '@bufbuild/protobuf/wkt';
import { OIDCAppType, OIDCAuthMethodType, type OIDCConfig, type OIDCGrantType, type OIDCResponseType, type OIDCTokenType, type OIDCVersion } from '../../gen/keyhold/management/v1/app_pb.js';
import { describeError } from './api.js';
import { h, textField, uid } from './dom.js';
import { L } from './i18n.js';
import { busy, clearProblems, mapSentIndices, rowsEditor, showProblems } from './forms.js';
import { APP_TYPES, AUTH_METHODS, GRANT_TYPES, RESPONSE_TYPES, TOKEN_TYPES, VERSIONS, type Choice } from './labels.js';

/** What the form sends: AddOIDCApp's fields (UpdateOIDCAppConfig takes the same but name and version). */
export interface AppFormValues {
  name: string;
  appType: OIDCAppType;
  authMethodType: OIDCAuthMethodType;
  responseTypes: OIDCResponseType[];
  grantTypes: OIDCGrantType[];
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  additionalOrigins: string[];
  version: OIDCVersion;
  accessTokenType: OIDCTokenType;
  accessTokenRoleAssertion: boolean;
  idTokenRoleAssertion: boolean;
  idTokenUserinfoAssertion: boolean;
  devMode: boolean;
  skipNativeAppSuccessPage: boolean;
  clockSkew?: { seconds: bigint; nanos: number };
}

export interface AppFormOptions {
  /** The app as stored (edit), or nothing (new). */
  initial?: { name: string; config?: OIDCConfig };
  labelledBy: string;
  submitLabel: string;
  busyLabel: string;
  cancelHref: string;
  /** Sends the values; a thrown error is shown on the form. */
  save(values: AppFormValues): Promise<void>;
}

export function selectField<T extends number>(label: string, field: string, choices: Choice<T>[], hint?: string, initial?: T) {
  const id = uid(`f-${field}`);
  const hintId = hint ? `${id}-hint` : undefined;
  const select = h(
    'select',
    { id, name: field, 'data-field': field, 'aria-describedby': hintId },
    choices.map((c) => h('option', { value: String(c.value), selected: c.value === initial }, c.label)),
  );
  const wrapper = h('div', { class: 'field' }, h('label', { for: id }, label), hint ? h('p', { class: 'hint', id: hintId }, hint) : null, select);
  return { wrapper, select, value: () => Number(select.value) as T };
}

export function checkboxGroup<T extends number>(legend: string, field: string, choices: Choice<T>[], checked: T[], hint?: string) {
  const hintId = hint ? uid('hint') : undefined;
  const boxes = choices.map((c) => {
    const id = uid(`f-${field}`);
    const input = h('input', { id, type: 'checkbox', name: field, value: String(c.value), checked: checked.includes(c.value) });
    // Plain words only: the wire names are the API's business (docs/console.md names them).
    return { choice: c, input, node: h('div', { class: 'check' }, input, h('label', { for: id }, c.label)) };
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

export function checkbox(label: string, field: string, hint?: string, checked = false) {
  const id = uid(`f-${field}`);
  const hintId = hint ? `${id}-hint` : undefined;
  const input = h('input', { id, type: 'checkbox', name: field, 'data-field': field, 'aria-describedby': hintId, checked });
  return { element: h('div', { class: 'check' }, input, h('label', { for: id }, label), hint ? h('p', { class: 'hint', id: hintId }, hint) : null), input };
}

function fieldset(legend: string, ...children: HTMLElement[]): HTMLFieldSetElement {
  return h('fieldset', { class: 'group' }, h('legend', null, legend), children);
}

export const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i;

export function checkRedirectUri(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return L.notAbsoluteUri;
  }
  if (value.includes('#')) return L.uriFragment;
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname)) return L.plainHttp;
  return undefined;
}

export function checkOrigin(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return L.notOrigin;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]+[/?#]/i.test(value) || url.search || url.hash) return L.originNoPath;
  return undefined;
}

export function seconds(d: Duration | undefined): string {
  if (!d) return '0';
  return String(Number(d.seconds) + d.nanos / 1e9);
}

export function appForm(opts: AppFormOptions): HTMLFormElement {
  const init = opts.initial?.config;
  const name = textField({ label: L.name, name: 'name', value: opts.initial?.name, required: true, hint: L.appNameHint });
  const appType = selectField(L.applicationType, 'appType', APP_TYPES, undefined, init?.appType);
  const authMethod = selectField(L.authMethod, 'authMethodType', AUTH_METHODS, init ? L.authMethodEditHint : L.authMethodNewHint, init?.authMethodType);
  const authAdvice = h('p', { class: 'hint advice', 'aria-live': 'polite' });
  const adviseAuth = () => {
    const type = appType.value();
    const method = authMethod.value();
    authAdvice.textContent =
      (type === OIDCAppType.OIDC_APP_TYPE_NATIVE || type === OIDCAppType.OIDC_APP_TYPE_USER_AGENT) && method !== OIDCAuthMethodType.OIDC_AUTH_METHOD_TYPE_NONE
        ? L.nativeNoSecret
        : '';
  };
  adviseAuth();
  appType.select.addEventListener('change', adviseAuth);
  authMethod.select.addEventListener('change', adviseAuth);
  authMethod.wrapper.append(authAdvice);

  const responseTypes = checkboxGroup(L.responseTypes, 'responseTypes', RESPONSE_TYPES, init ? init.responseTypes : [RESPONSE_TYPES[0]!.value], L.responseTypesHint);
  const grantTypes = checkboxGroup(L.grantTypes, 'grantTypes', GRANT_TYPES, init ? init.grantTypes : [GRANT_TYPES[0]!.value]);
  const redirectUris = rowsEditor({
    field: 'redirectUris',
    legend: L.redirectUris,
    itemLabel: L.redirectUri,
    addLabel: L.addRedirectUri,
    placeholder: 'https://app.example.com/callback',
    hint: L.redirectUrisHint,
    initial: init?.redirectUris.length ? [...init.redirectUris] : [''],
    check: checkRedirectUri,
  });
  const postLogout = rowsEditor({
    field: 'postLogoutRedirectUris',
    legend: L.postLogoutUris,
    itemLabel: L.postLogoutUri,
    addLabel: L.addPostLogoutUri,
    placeholder: 'https://app.example.com/signed-out',
    initial: init ? [...init.postLogoutRedirectUris] : [],
    check: checkRedirectUri,
  });
  const origins = rowsEditor({
    field: 'additionalOrigins',
    legend: L.additionalOrigins,
    itemLabel: L.origin,
    addLabel: L.addOrigin,
    placeholder: 'https://app.example.com',
    hint: L.originsHint,
    initial: init ? [...init.additionalOrigins] : [],
    check: checkOrigin,
  });
  const version = selectField(L.oidcVersion, 'version', VERSIONS, undefined, init?.version);
  const tokenType = selectField(L.accessTokenType, 'accessTokenType', TOKEN_TYPES, undefined, init?.accessTokenType);
  const accessRoles = checkbox(L.addRolesAccess, 'accessTokenRoleAssertion', L.jwtOnly, init?.accessTokenRoleAssertion);
  const idRoles = checkbox(L.addRolesId, 'idTokenRoleAssertion', undefined, init?.idTokenRoleAssertion);
  const idUserinfo = checkbox(L.addUserinfo, 'idTokenUserinfoAssertion', L.deviatesSpec, init?.idTokenUserinfoAssertion);
  const clockSkew = textField({
    label: L.clockSkewSeconds,
    name: 'clockSkew',
    type: 'number',
    value: seconds(init?.clockSkew),
    hint: L.clockSkewHint,
    attrs: { min: '0', max: '5', step: 'any', inputmode: 'decimal' },
  });
  const devMode = checkbox(L.devMode, 'devMode', L.devModeHint, init?.devMode);
  const skipNative = checkbox(L.skipNative, 'skipNativeAppSuccessPage', undefined, init?.skipNativeAppSuccessPage);

  const submit = h('button', { type: 'submit' }, opts.submitLabel);
  const form = h(
    'form',
    { method: 'post', novalidate: true, class: 'card app-form', 'aria-labelledby': opts.labelledBy },
    fieldset(L.application, name.wrapper, appType.wrapper, authMethod.wrapper),
    fieldset(L.flows, responseTypes.element, grantTypes.element),
    fieldset(L.urisAndOrigins, redirectUris.element, postLogout.element, origins.element),
    fieldset(L.tokens, version.wrapper, tokenType.wrapper, accessRoles.element, idRoles.element, idUserinfo.element, clockSkew.wrapper),
    fieldset(L.development, devMode.element, skipNative.element),
    h('div', { class: 'actions' }, submit, h('a', { href: opts.cancelHref, class: 'button secondary' }, L.cancel)),
  );

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const redirects = redirectUris.values();
    const logouts = postLogout.values();
    const extraOrigins = origins.values();
    const values: AppFormValues = {
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
      const secs = Number(skew);
      if (Number.isFinite(secs)) {
        const whole = Math.trunc(secs);
        values.clockSkew = { seconds: BigInt(whole), nanos: Math.round((secs - whole) * 1e9) };
      }
    }
    await busy(submit, opts.busyLabel, async () => {
      try {
        await opts.save(values);
        clearProblems(form);
      } catch (e) {
        let problem = describeError(e);
        problem = mapSentIndices(problem, 'redirectUris', redirects.rows, L.redirectUri);
        problem = mapSentIndices(problem, 'postLogoutRedirectUris', logouts.rows, L.postLogoutUri);
        problem = mapSentIndices(problem, 'additionalOrigins', extraOrigins.rows, L.origin);
        showProblems(form, problem);
      }
    });
  });
  return form;
}
